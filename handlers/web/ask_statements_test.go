package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"

	"aula/internal/apptest"
	"aula/models"
)

// countedKey marks the context of the requests whose statements a test counts.
type countedKey struct{}

// countedDoor serves s on an address of its own whose requests carry
// countedKey, and counts the statements run with such a context: the
// request's own, batched ones included (a batch keeps its first caller's
// context values), and not the answer's generation, which runs with a
// context of its own.
func countedDoor(t *testing.T, s *apptest.Server) (string, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	inc := func(db *gorm.DB) {
		if db.Statement.Context != nil && db.Statement.Context.Value(countedKey{}) != nil {
			n.Add(1)
		}
	}
	cb := s.DB.DB.Callback()
	for _, err := range []error{
		cb.Create().After("gorm:create").Register("counted:create", inc),
		cb.Query().After("gorm:query").Register("counted:query", inc),
		cb.Update().After("gorm:update").Register("counted:update", inc),
		cb.Delete().After("gorm:delete").Register("counted:delete", inc),
		cb.Row().After("gorm:row").Register("counted:row", inc),
		cb.Raw().After("gorm:raw").Register("counted:raw", inc),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), countedKey{}, true)))
	}))
	t.Cleanup(hs.Close)
	return hs.URL, &n
}

var streamURL = regexp.MustCompile(`/messages/([0-9a-f-]{36})/stream`)

// The browser's way to a first token, the HTMX ask and the answer's
// stream, runs a fixed, small number of statements: a class asking at
// once queues each of them on the connection pool. The ask reads the
// session with its user (one statement), reads the thread only when this
// process has not seen it (the answer's request is prepared from it while
// the turn is recorded) and records the turn (one, which also returns the
// month's count the page shows); the stream reads the session with its
// user and follows the answer in memory; rendering the first words reads
// nothing. Drawing the finished answer reads its thread, its versions,
// the cited sections' hashes and lessons' paths, and the route's model
// name: no files, which come with questions only.
func TestAskAndItsStreamRunAFixedNumberOfStatements(t *testing.T) {
	for _, tc := range []struct {
		name, plan  string
		seen        bool // the thread was made through this process
		ask, stream int64
		end         int64 // at most, drawing the finished answer once its text is stored
	}{
		{"FREE", models.PlanFree, true, 2, 1, 5},
		{"PRO", models.PlanPro, true, 2, 1, 5},
		{"thread made by another process", models.PlanPro, false, 3, 1, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ask, stream, end, body := askStatements(t, tc.plan, tc.seen)
			t.Logf("the ask runs %d statements, its stream %d up to the first chunk shown", ask, stream)
			if ask != tc.ask || stream != tc.stream {
				t.Errorf("the ask runs %d statements and its stream %d before its first chunk is shown, want %d and %d",
					ask, stream, tc.ask, tc.stream)
			}
			// At most: the thread's read may share a batch started by
			// another request, whose statement this request does not count.
			if end > tc.end {
				t.Errorf("drawing the finished answer runs %d statements, want at most %d", end, tc.end)
			}
			// The month's count comes with the turn: the bar shows this question.
			if tc.plan == models.PlanFree && !strings.Contains(body, `data-used="1" data-limit="3"`) {
				t.Errorf("the ask's usage bar does not show 1 of 3 questions:\n%s", body)
			}
		})
	}
}

// askStatements counts the statements of an HTMX ask by a user of plan,
// and of its stream, opened as the page opens it, up to the first chunk
// and its rendering (no section link in it: nothing to point into a
// lesson), and the ask's answer. The
// thread is made through the server when seen, else by another process.
func askStatements(t *testing.T, plan string, seen bool) (ask, stream, end int64, body string) {
	t.Helper()
	st := &stepper{tokens: []string{"Hello", " there."}, step: make(chan struct{})}
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	u := s.User(t, "ana@example.com", "a-long-password-1", plan)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	if !seen {
		conv, err := models.NewConversations(s.DB.DB).Create(context.Background(), u.ID, models.ModeTutor, "", 0, "")
		if err != nil {
			t.Fatal(err)
		}
		cid = conv.ID
	}
	csrf := c.Get("/learn").CSRF()
	base, n := countedDoor(t, s)
	c.Base = base

	n.Store(0)
	status, body, err := htmxAsk(c, csrf, cid, "How do trunk ports work?")
	if err != nil || status != http.StatusOK {
		t.Fatalf("ask: %d %v", status, err)
	}
	ask = n.Load()
	m := streamURL.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no stream in the ask's answer:\n%s", body)
	}
	n.Store(0)
	live := apptest.OpenSSE(t, c, m[1], "", "?render=1") // as the page's bubble opens it
	defer live.Close()
	st.step <- struct{}{}
	live.Must(t, "chunk")
	live.Must(t, "md")
	stream = n.Load()
	n.Store(0)
	st.step <- struct{}{}
	live.Rest(t)
	return ask, stream, n.Load(), body
}

// Someone else's thread is a 404 to the ask, and nothing is written,
// whether the question would be taken or refused.
func TestAskInSomeoneElsesThreadIsNotFound(t *testing.T) {
	s := apptest.New(t, fastTutor)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	s.User(t, "eve@example.com", "a-long-password-1", models.PlanFree)
	ana := s.SignIn(t, "ana@example.com", "a-long-password-1")
	eve := s.SignIn(t, "eve@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, ana)
	csrf := eve.Get("/learn").CSRF()
	for _, tc := range []struct{ name, question string }{
		{"a question", "What is a VLAN?"},
		{"an empty question (refused)", "   "},
	} {
		status, _, err := htmxAsk(eve, csrf, cid, tc.question)
		if err != nil || status != http.StatusNotFound {
			t.Errorf("%s in someone else's thread: %d %v, want 404", tc.name, status, err)
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE conversation_id = ?`, cid); n != 0 {
		t.Errorf("someone else's ask wrote %d messages", n)
	}
}

// A thread this process remembers but another one deleted is a 404 to
// the ask, HTMX or plain, and nothing is written: what is remembered
// only prepares the answer, the recorded turn decides.
func TestAskInAThreadDeletedElsewhereIsNotFound(t *testing.T) {
	s := apptest.New(t, fastTutor)
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	ana := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, ana)
	csrf := ana.Get("/chat/" + cid).CSRF()
	if err := models.NewConversations(s.DB.DB).Delete(context.Background(), u.ID, cid); err != nil {
		t.Fatal(err)
	}
	if status, _, err := htmxAsk(ana, csrf, cid, "What is a VLAN?"); err != nil || status != http.StatusNotFound {
		t.Errorf("HTMX ask in a thread deleted elsewhere: %d %v, want 404", status, err)
	}
	res := ana.Post("/chat/"+cid+"/messages", url.Values{"content": {"What is a VLAN?"}, "_csrf": {csrf}})
	if res.Status != http.StatusNotFound {
		t.Errorf("plain ask in a thread deleted elsewhere: %d, want 404", res.Status)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE conversation_id = ?`, cid); n != 0 {
		t.Errorf("the asks wrote %d messages", n)
	}
}
