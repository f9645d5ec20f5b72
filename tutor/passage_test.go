package tutor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"aula/internal/fakellm"
	"aula/models"
)

// passageLesson has Markdown the page renders differently from its
// source (code, emphasis, a link), so a selection of the page's text must
// still be found in it.
var passageLesson = lessonFixture{"trunks", "Trunks", "en", []chunkFixture{
	{"What is a VLAN", "A VLAN splits one physical switch into separate broadcast domains."},
	{"Trunk ports", "A **trunk port** carries the traffic of many VLANs between switches,\ntagging each frame with its `802.1Q` VLAN id (see [the standard](https://example.com/8021q))."},
	{"Native VLAN", "Frames of the native VLAN cross a trunk untagged."},
}}

// A question about a passage reaches the model through the real OpenAI
// client with the passage first among the lesson's material, and the
// receipt cites the section the server found it in, whatever the
// selection's line breaks, Markdown and cut words.
func TestAskAboutPassageThroughFakeOpenAI(t *testing.T) {
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{"It", " tags", " frames", "."}})
	f := newFixture(t, func(c *Config) {
		c.NewProvider = nil
		c.Credentials = fakeCreds(fakellm.OpenAI, srv.URL)
	})
	f.seedLessons(passageLesson)
	f.exec(`UPDATE ai_routes SET provider = 'openai', model = 'm1' WHERE use_case = 'tutor_chat'`)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeLesson, "trunks", "")
	selected := "unk port carries the traffic of many VLANs between switches, tagging each frame with its 802.1Q VLAN id (see the standard"
	res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "What does this mean?", Passage: selected})
	if err != nil {
		t.Fatal(err)
	}
	m := f.wait(u, res.AssistantMessage.ID)
	if m.Status != models.StatusComplete {
		t.Fatalf("answer %s %s", m.Status, m.ErrorCode)
	}
	req, ok := srv.LastRequest()
	if !ok {
		t.Fatal("the fake received no request")
	}
	quote, lesson := strings.Index(req.System, "> "+selected), strings.Index(req.System, "## Lesson: Trunks")
	if quote < 0 || lesson < 0 || quote > lesson {
		t.Fatalf("the passage must come before the lesson (quote at %d, lesson at %d):\n%s", quote, lesson, req.System)
	}
	if !strings.Contains(req.System, "(from [§ Trunk ports](#trunk-ports))") {
		t.Fatalf("the passage must name its section:\n%s", req.System)
	}
	r := ParseReceipt(m.Metadata)
	if r.Passage == nil || r.Passage.Anchor != "trunk-ports" || !r.Passage.Cited {
		t.Fatalf("receipt passage %+v", r.Passage)
	}
	if len(r.Citations) == 0 || r.Citations[0].Anchor != "trunk-ports" || !r.Citations[0].Cited {
		t.Fatalf("the passage's section must lead the citations, cited: %+v", r.Citations)
	}
	q, err := models.NewMessages(f.db.DB).Get(context.Background(), u, res.UserMessage.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p := PassageOf(q.Metadata); p == nil || p.Text != selected || p.Anchor != "trunk-ports" {
		t.Fatalf("the question keeps its passage: %+v", p)
	}
}

// A regenerated answer still sees the passage its question was about, its
// section first among the sources; a follow-up's history quotes it.
func TestRetryKeepsPassage(t *testing.T) {
	f := newFixture(t)
	f.seedLessons(passageLesson)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeLesson, "trunks", "")
	f.prov.set(emit("ok"))
	res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "Why?", Passage: "cross a trunk untagged"})
	if err != nil {
		t.Fatal(err)
	}
	f.wait(u, res.AssistantMessage.ID)
	if _, err := f.svc.Retry(context.Background(), u, res.AssistantMessage.ID); err != nil {
		t.Fatal(err)
	}
	m := f.wait(u, res.AssistantMessage.ID)
	req := f.prov.last(t)
	if !strings.Contains(req.System, "> cross a trunk untagged") || len(req.Sources) == 0 || req.Sources[0].Anchor != "native-vlan" {
		t.Fatalf("retry lost the passage: sources %+v\n%s", req.Sources, req.System)
	}
	if r := ParseReceipt(m.Metadata); r.Passage == nil || r.Passage.Anchor != "native-vlan" {
		t.Fatalf("retry receipt %+v", r.Passage)
	}
	// A follow-up without a passage still knows what the first question was about.
	f.ask(u, c, "And tagged ones?")
	req = f.prov.last(t)
	if len(req.History) != 2 || req.History[0].Content != "> cross a trunk untagged\n\nWhy?" || strings.Contains(req.System, "The passage the student asks about") {
		t.Fatalf("the follow-up's history %+v", req.History)
	}
}

// A passage that is not text, too long, not the lesson's, or sent in a
// thread without a lesson is refused before anything is written.
func TestAskPassageRefused(t *testing.T) {
	f := newFixture(t)
	f.seedLessons(passageLesson, testLessons[2])
	u := f.user(models.PlanPro)
	lesson := f.conv(u, models.ModeLesson, "trunks", "")
	tutorConv := f.conv(u, models.ModeTutor, "", "")
	cases := []struct {
		name, conv, passage string
		reason              Reason
		cause               error
	}{
		{"NUL", lesson, "a trunk\x00port", RefusedPassage, ErrPassageInvalid},
		{"invalid UTF-8", lesson, "trunk \xff\xfe port", RefusedPassage, ErrPassageInvalid},
		{"too long", lesson, strings.Repeat("trunk ", MaxPassageChars/6+1), RefusedPassageTooLong, ErrPassageTooLong},
		{"another lesson's text", lesson, "A goroutine is a lightweight thread", RefusedPassage, ErrPassageNotInLesson},
		{"made up", lesson, "trunks carry nothing at all", RefusedPassage, ErrPassageNotInLesson},
		{"only punctuation", lesson, "… — !", RefusedPassage, ErrPassageNotInLesson},
		{"no lesson", tutorConv, "cross a trunk untagged", RefusedPassage, ErrPassageNotInLesson},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: tc.conv, Content: "Why?", Passage: tc.passage})
			var r *Refusal
			if !errors.As(err, &r) || r.Reason != tc.reason || !errors.Is(err, tc.cause) {
				t.Fatalf("err %v, want refusal %s (%v)", err, tc.reason, tc.cause)
			}
		})
	}
	var n int
	f.scalar(&n, `SELECT count(*) FROM messages WHERE user_id = ?`, u)
	if n != 0 || f.used(u) != 0 {
		t.Fatalf("a refused passage wrote %d messages and used %d questions", n, f.used(u))
	}
	other := f.user(models.PlanPro)
	if _, err := f.svc.Ask(context.Background(), AskInput{UserID: other, ConversationID: lesson, Content: "Why?", Passage: "cross a trunk"}); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("someone else's thread: %v, want not found", err)
	}
}

// LocatePassage finds the section a selection starts in, across the
// forms a page's selection takes.
func TestLocatePassage(t *testing.T) {
	chunks := []Source{
		{ChunkID: 1, Heading: "Trunks", Anchor: "", Text: "Intro about *trunks*."},
		{ChunkID: 2, Heading: "Tagging", Anchor: "tagging", Text: "Each frame gets a tag.\n\n- one\n- two"},
		{ChunkID: 3, Heading: "Tagging", Anchor: "tagging", Text: "Split for length: more tagging text."},
		{ChunkID: 4, Heading: "Native VLAN", Anchor: "native-vlan", Text: "Untagged frames use the native VLAN."},
	}
	cases := []struct {
		passage string
		chunk   int64
		ok      bool
	}{
		{"Intro about trunks", 1, true},
		{"gets a tag.\n\none\ntwo", 2, true},
		{"more tagging text", 3, true},
		{"text.\n\nNative VLAN\nUntagged frames", 3, true}, // over a heading: where it starts
		{"NATIVE vlan", 4, true},
		{"frames use the native VLAN and more", 0, false},
		{"x", 0, false},
	}
	for _, tc := range cases {
		c, ok := LocatePassage(tc.passage, chunks)
		if ok != tc.ok || ok && c.ChunkID != tc.chunk {
			t.Errorf("LocatePassage(%q) = chunk %d %v, want %d %v", tc.passage, c.ChunkID, ok, tc.chunk, tc.ok)
		}
	}
}
