package tutor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"aula/internal/fakellm"
	"aula/models"
)

// dropLog counts the preparations dropped because the recorded turn
// differed from the thread the front read.
type dropLog struct {
	mu      sync.Mutex
	dropped int
}

func (d *dropLog) Enabled(context.Context, slog.Level) bool { return true }
func (d *dropLog) WithAttrs([]slog.Attr) slog.Handler       { return d }
func (d *dropLog) WithGroup(string) slog.Handler            { return d }
func (d *dropLog) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "tutor: prepared request dropped") {
		d.mu.Lock()
		d.dropped++
		d.mu.Unlock()
	}
	return nil
}

func (d *dropLog) count() int { d.mu.Lock(); defer d.mu.Unlock(); return d.dropped }

// prepFixture is a service answering through a fake OpenAI server whose
// requests the test reads, with the preparations it dropped counted.
type prepFixture struct {
	*fixture
	srv   *fakellm.Server
	drops *dropLog
}

func newPrepFixture(t *testing.T) *prepFixture {
	t.Helper()
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{"VLANs", " split", " a", " switch", "."}})
	drops := &dropLog{}
	f := newFixture(t, func(c *Config) {
		c.NewProvider = nil
		c.Credentials = fakeCreds(fakellm.OpenAI, srv.URL)
		c.Logger = slog.New(drops)
	})
	f.seedLessons(testLessons[0], passageLesson)
	f.exec(`UPDATE ai_routes SET provider = 'openai', model = 'm1', temperature = 0.7, max_tokens = 300 WHERE use_case = 'tutor_chat'`)
	return &prepFixture{fixture: f, srv: srv, drops: drops}
}

// known is what a front read before asking in conv: the thread and the
// user's locale.
func (f *fixture) known(userID, convID string) *Known {
	f.t.Helper()
	c, err := models.NewConversations(f.db.DB).Get(context.Background(), userID, convID)
	if err != nil {
		f.t.Fatal(err)
	}
	u, err := models.NewUsers(f.db.DB).Get(context.Background(), userID)
	if err != nil {
		f.t.Fatal(err)
	}
	return &Known{Conversation: *c, Locale: u.Locale}
}

// sent asks in and returns the body of the request the provider
// received for it and the receipt stored with the answer.
func (f *prepFixture) sent(in AskInput) ([]byte, []byte) {
	f.t.Helper()
	res, err := f.svc.Ask(context.Background(), in)
	if err != nil {
		f.t.Fatalf("ask %q: %v", in.Content, err)
	}
	m := f.wait(in.UserID, res.AssistantMessage.ID)
	if m.Status != models.StatusComplete {
		f.t.Fatalf("answer to %q: %s %s", in.Content, m.Status, m.ErrorCode)
	}
	req, ok := f.srv.LastRequest()
	if !ok {
		f.t.Fatal("the fake received no request")
	}
	return req.Body, m.Metadata
}

// The request prepared while the question is recorded is byte for byte
// the one the generation builds after it, on the wire to the provider,
// and the stored receipt is the same: for a first question in a tutor
// thread, in a lesson thread (with and without a passage), for a
// follow-up with history, and when the thread changed after the front
// read it (the preparation is then dropped for the sequential path).
func TestPreparedRequestIsTheSequentialOne(t *testing.T) {
	f := newPrepFixture(t)
	const passage = "Frames of the native VLAN cross a trunk untagged"
	cases := []struct {
		name, mode, lesson, style string
		earlier                   []string // asked (and answered) in both threads first
		question, passage         string
		staleRead                 bool   // the front read the thread after the first earlier question only
		dropped                   int    // preparations dropped
		sends                     string // the request carries it (the case reads what it means to)
	}{
		{name: "tutor thread", mode: models.ModeTutor, question: "What is a VLAN?", sends: "What is a VLAN"},
		{name: "lesson thread", mode: models.ModeLesson, lesson: "vlan-basics", style: models.StyleGuide, question: "How do trunk ports work?", sends: "Lesson: VLAN basics"},
		{name: "lesson passage", mode: models.ModeLesson, lesson: "trunks", question: "What does this mean?", passage: passage, sends: "The passage the student asks about"},
		{name: "follow-up", mode: models.ModeTutor, earlier: []string{"What is a VLAN?", "And a trunk?"}, question: "How do I configure it on a Cisco switch?", sends: "VLANs split a switch."},
		{name: "lesson follow-up", mode: models.ModeLesson, lesson: "vlan-basics", earlier: []string{"What is a VLAN?"}, question: "¿Y cómo se configura?", sends: "Lesson: VLAN basics"},
		{name: "thread changed", mode: models.ModeTutor, earlier: []string{"What is a VLAN?", "And a trunk?"}, question: "How many VLANs can a trunk carry?", staleRead: true, dropped: 1, sends: "What is a VLAN?"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := f.user(models.PlanPro)
			seqConv, prepConv := f.conv(u, tc.mode, tc.lesson, tc.style), f.conv(u, tc.mode, tc.lesson, tc.style)
			var known *Known
			for _, q := range tc.earlier {
				f.sent(AskInput{UserID: u, ConversationID: seqConv, Content: q})
				f.sent(AskInput{UserID: u, ConversationID: prepConv, Content: q})
				if tc.staleRead && known == nil {
					known = f.known(u, prepConv)
				}
			}
			if known == nil {
				known = f.known(u, prepConv)
			}
			wantBody, wantReceipt := f.sent(AskInput{UserID: u, ConversationID: seqConv, Content: tc.question, Passage: tc.passage})
			before := f.drops.count()
			body, receipt := f.sent(AskInput{UserID: u, ConversationID: prepConv, Content: tc.question, Passage: tc.passage, Known: known})
			if !bytes.Equal(body, wantBody) {
				t.Errorf("prepared request differs from the sequential one:\nprepared   %s\nsequential %s", body, wantBody)
			}
			if !bytes.Contains(body, []byte(tc.sends)) {
				t.Errorf("the request lacks %q: %s", tc.sends, body)
			}
			if !bytes.Equal(receipt, wantReceipt) {
				t.Errorf("prepared receipt %s, sequential %s", receipt, wantReceipt)
			}
			if got := f.drops.count() - before; got != tc.dropped {
				t.Errorf("%d preparations dropped, want %d", got, tc.dropped)
			}
		})
	}
}

// A read of the preparation that fails (a table the database cannot
// read) fails the answer exactly as the sequential path does: failed with
// the same code, nothing kept, the question refunded, the buffer freed.
func TestPreparationErrorFailsAndRefunds(t *testing.T) {
	for _, stage := range []struct{ name, table string }{
		{"route", "ai_routes"},
		{"retrieval", "lesson_chunks"},
		{"lesson", "lessons"},
	} {
		for _, prepared := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/prepared=%t", stage.name, prepared), func(t *testing.T) {
				f := newFixture(t)
				f.seedLessons(testLessons[0])
				u := f.user(models.PlanFree)
				c := f.conv(u, models.ModeLesson, "vlan-basics", "")
				in := AskInput{UserID: u, ConversationID: c, Content: "What is a trunk port?"}
				if prepared {
					in.Known = f.known(u, c)
				}
				f.exec(`ALTER TABLE ` + stage.table + ` RENAME TO away`)
				res, err := f.svc.Ask(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				m := f.wait(u, res.AssistantMessage.ID)
				if m.Status != models.StatusFailed || m.ErrorCode != CodeContextError || m.Content != "" {
					t.Fatalf("stored %s (code %q) %q; want failed %q and nothing kept", m.Status, m.ErrorCode, m.Content, CodeContextError)
				}
				if f.used(u) != 0 || m.QuotaPeriod != nil {
					t.Fatalf("not refunded: used %d", f.used(u))
				}
				if f.svc.Streams().Active() != 0 {
					t.Fatal("buffer not freed")
				}
			})
		}
	}
}

// A question refused (someone else's thread, the month's quota spent)
// drops its preparation: nothing is left streaming. (A provider call the
// preparation started before the refusal is ended, and a student refused
// for the quota gets no early call after: early_test.go.)
func TestRefusedQuestionDropsItsPreparation(t *testing.T) {
	f := newPrepFixture(t)
	owner, other := f.user(models.PlanFree), f.user(models.PlanFree)
	c := f.conv(owner, models.ModeTutor, "", "")
	known := f.known(owner, c)
	if _, err := f.svc.Ask(context.Background(), AskInput{UserID: other, ConversationID: c, Content: "What is a VLAN?",
		Known: known}); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("someone else's thread: %v, want ErrNotFound", err)
	}
	f.exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 1000)`, owner, models.Period(f.now.Now()))
	if _, err := f.svc.Ask(context.Background(), AskInput{UserID: owner, ConversationID: c, Content: "What is a VLAN?",
		Known: known}); !errors.Is(err, ErrQuotaExceeded) {
		t.Fatalf("quota spent: %v, want ErrQuotaExceeded", err)
	}
	if n := f.svc.Streams().Active(); n != 0 {
		t.Fatalf("%d streams after refusals; want none", n)
	}
}

// A question opening its thread (the thread stored by the question's
// own statement, models.NewThread) is prepared beside that statement
// from the thread as the front describes it, before it exists: the
// request on the wire and the stored receipt are byte for byte those of
// the same first question asked in a thread created first and answered
// sequentially, a lesson thread's module being its lesson's either way.
func TestOpenedThreadsRequestIsTheSequentialOne(t *testing.T) {
	f := newPrepFixture(t)
	cases := []struct {
		name, mode, lesson, style string
		known                     bool // the front knew the locale: the request is prepared early
		question, sends           string
	}{
		{name: "tutor thread", mode: models.ModeTutor, known: true, question: "What is a VLAN?", sends: "What is a VLAN"},
		{name: "lesson thread", mode: models.ModeLesson, lesson: "vlan-basics", style: models.StyleGuide, known: true,
			question: "How do trunk ports work?", sends: "Lesson: VLAN basics"},
		{name: "lesson thread, Spanish", mode: models.ModeLesson, lesson: "trunks", known: true, question: "¿Qué es un enlace troncal?", sends: "trunk"},
		{name: "help thread", mode: models.ModeHelp, known: true, question: "How do I change my language?", sends: "language"},
		{name: "not prepared early", mode: models.ModeLesson, lesson: "vlan-basics", question: "How do trunk ports work?", sends: "Lesson: VLAN basics"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := f.user(models.PlanPro)
			seqConv := f.conv(u, tc.mode, tc.lesson, tc.style)
			wantBody, wantReceipt := f.sent(AskInput{UserID: u, ConversationID: seqConv, Content: tc.question})
			opened, err := models.NewThread(u, tc.mode, tc.lesson, 0, tc.style)
			if err != nil {
				t.Fatal(err)
			}
			in := AskInput{UserID: u, ConversationID: opened.ID, Content: tc.question, Opens: opened}
			if tc.known {
				in.Known = &Known{Conversation: *opened, Locale: f.known(u, seqConv).Locale}
			}
			before := f.drops.count()
			body, receipt := f.sent(in)
			if !bytes.Equal(body, wantBody) || !bytes.Contains(body, []byte(tc.sends)) {
				t.Errorf("the opened thread's request differs from the sequential one or lacks %q:\nopened     %s\nsequential %s", tc.sends, body, wantBody)
			}
			if !bytes.Equal(receipt, wantReceipt) {
				t.Errorf("opened thread's receipt %s, sequential %s", receipt, wantReceipt)
			}
			if got := f.drops.count() - before; got != 0 {
				t.Errorf("%d preparations dropped, want none", got)
			}
			got, want := f.known(u, opened.ID).Conversation, f.known(u, seqConv).Conversation
			if !same(got.ModuleID, want.ModuleID) || !same(got.LessonID, want.LessonID) || got.Mode != want.Mode ||
				got.Style != want.Style || got.Title != want.Title || got.NextSeq != want.NextSeq {
				t.Errorf("opened thread stored as %+v, the sequential one %+v", got, want)
			}
		})
	}
}
