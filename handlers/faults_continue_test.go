package handlers_test

// A continuation whose process is killed (SIGKILL) mid-answer: what the
// student had read stays theirs after the restart.

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/internal/pgtest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
	"aula/tutor/stream"
)

// Ask, Stop (the text kept), Continue, and aula's real binary is killed
// with SIGKILL while the continuation streams; the next process recovers
// the answer stopped as it was, with the text kept at Stop and whatever
// the continuation stored since (it is stored as it streams while another
// process follows it), its question still counted, and Continue offered
// again. It used to end failed and emptied.
func TestFaultKilledDuringContinueKeepsText(t *testing.T) {
	const kept = "A VLAN splits one switch into separate broadcast domains, kept at Stop."
	const more = " Frames carry a tag naming their VLAN."
	cases := []struct {
		name     string
		followed bool   // another process follows the continuation, so its text is stored as it streams
		want     string // the text the row keeps
	}{
		{"nobody follows it elsewhere", false, kept},
		{"another process follows it", true, kept + more},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Each answer is written whole, then the model stalls: Stop
			// keeps exactly kept, and the continuation streams until killed.
			fake := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{StallAfterTokens: true, Respond: func(r fakellm.Request) []string {
				for _, m := range r.Messages {
					if strings.Contains(m.Content, kept) {
						return []string{more}
					}
				}
				return strings.SplitAfter(kept, " ")
			}})
			db := pgtest.New(t)
			ctx := context.Background()
			u, err := models.NewUsers(db.DB).Create(ctx, models.NewUser{Email: "ana@example.com", Name: "Ana",
				Password: "a-long-password-1", Plan: models.PlanFree})
			if err != nil {
				t.Fatal(err)
			}
			env := []string{"AULA_LLM_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL=" + fake.URL, "AULA_LEASE_TTL=1s"}
			p := startAula(t, db.URL, env...)
			st := signInStudent(t, p.URL, "ana@example.com", "a-long-password-1", nil)
			cid := apptest.NewThread(t, st.web)
			mid, status, err := st.ask(ctx, cid, "What is a VLAN?")
			if err != nil || status != http.StatusOK {
				t.Fatalf("ask: %d %v", status, err)
			}
			readUntil(t, st, mid, kept)
			if status, body, err := st.do(ctx, http.MethodPost, "/messages/"+mid+"/cancel", url.Values{}, true); err != nil || status != http.StatusNoContent {
				t.Fatalf("stop: %d %v %.300s", status, err, body)
			}
			if m := rowOf(t, db, mid); m.Status != models.StatusCancelled || m.Content != kept {
				t.Fatalf("stopped answer stored %s %q, want cancelled %q", m.Status, m.Content, kept)
			}
			if status, body, err := st.do(ctx, http.MethodPost, "/messages/"+mid+"/continue", url.Values{}, true); err != nil || status != http.StatusOK {
				t.Fatalf("continue: %d %v %.300s", status, err, body)
			}
			readUntil(t, st, mid, kept+more)
			if tc.followed {
				followUntil(t, db, u.ID, mid, kept+more)
			}
			if m := rowOf(t, db, mid); m.Status != models.StatusStreaming {
				t.Fatalf("the continuation ended (%s %q) before the kill, want it still streaming", m.Status, m.Content)
			}

			p.signal(t, syscall.SIGKILL)
			_ = p.wait(t, 30*time.Second) // killed: its exit status says so
			p = startAula(t, db.URL, env...)
			m := settledRow(t, db, mid)
			if m.Status != models.StatusCancelled || m.Content != tc.want {
				t.Errorf("after the restart the answer is %s %q %q, want stopped with %q", m.Status, m.ErrorCode, m.Content, tc.want)
			}
			var used int64
			db.Raw(`SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, u.ID).Scan(&used)
			if used != 1 {
				t.Errorf("questions used %d, want 1 (the continued answer stays counted)", used)
			}
			again := signInStudent(t, p.URL, "ana@example.com", "a-long-password-1", nil)
			page := again.web.Get("/chat/" + cid)
			bubble := page.Doc.Find("#m-" + mid)
			if bubble.AttrOr("data-status", "") != models.StatusCancelled || !strings.Contains(html.UnescapeString(bubble.Text()), tc.want) ||
				page.Doc.Find(`form[action="/messages/`+mid+`/continue"]`).Length() == 0 {
				t.Errorf("the thread after the restart shows the answer %q without its text or Continue: %.400s",
					bubble.AttrOr("data-status", ""), bubble.Text())
			}
		})
	}
}

// readUntil reads the student's stream of mid until its text is want.
func readUntil(t *testing.T, st *student, mid, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a broken test only
	defer cancel()
	var text strings.Builder
	final, err := st.stream(ctx, mid, func(ev webtest.SSEEvent, _ time.Time) bool {
		if ev.Type == "chunk" {
			text.WriteString(html.UnescapeString(ev.Data))
		}
		return text.String() != want
	})
	if text.String() != want {
		t.Fatalf("the student's stream read %q then %q %.200q (%v), want %q", text.String(), final.Type, final.Data, err, want)
	}
}

// followUntil follows mid from another process (it asks the generating
// one to store the text as it grows) until it has read want from the row.
func followUntil(t *testing.T, db *pgtest.DB, userID, mid, want string) {
	t.Helper()
	peer := tutor.New(tutor.Config{DB: db.DB, Logger: discardLog(), Stream: stream.Config{DatabaseURL: db.URL}})
	if err := peer.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer peer.Close()                                                       // before the kill: the restarted process is the one to recover the answer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a broken test only
	defer cancel()
	sub, err := peer.Streams().Subscribe(ctx, userID, mid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var text strings.Builder
	for text.String() != want {
		chunk, _, final, err := sub.Next(ctx)
		if err != nil || final != nil {
			t.Fatalf("following from another process read %q, then %+v %v; want %q", text.String(), final, err, want)
		}
		text.WriteString(chunk)
	}
}

// rowOf reads a message of the test's database.
func rowOf(t *testing.T, db *pgtest.DB, mid string) models.Message {
	t.Helper()
	var m models.Message
	if err := db.Raw(`SELECT * FROM messages WHERE id = ?`, mid).Scan(&m).Error; err != nil {
		t.Fatal(err)
	}
	return m
}

// settledRow waits (bounded) until a message has left streaming.
func settledRow(t *testing.T, db *pgtest.DB, mid string) models.Message {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		m := rowOf(t, db, mid)
		if m.Status != models.StatusStreaming {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("message %s still streaming after the restart", mid)
		}
	}
}
