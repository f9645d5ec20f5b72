package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"aula/handlers/web"
	"aula/internal/pgtest"
	"aula/models"
)

// sessionRequest is a request carrying the cookies a previous response set.
func sessionRequest(t *testing.T, prev *httptest.ResponseRecorder) *http.Request {
	t.Helper()
	r := httptest.NewRequest("GET", "/login", nil)
	if prev != nil {
		for _, c := range prev.Result().Cookies() {
			r.AddCookie(c)
		}
	}
	return r
}

// A visitor who is not signed in keeps their values in the signed cookie;
// signing in writes the first row.
func TestAnonymousSessionWritesNoRow(t *testing.T) {
	db := pgtest.New(t)
	store := web.NewSessionStore(models.NewSessions(db.DB), []byte(strings.Repeat("k", 32)))
	rows := func() (n int64) {
		t.Helper()
		db.Raw("SELECT count(*) FROM sessions").Scan(&n)
		return n
	}

	// An anonymous visitor: a CSRF token and a language, kept in the cookie.
	r := sessionRequest(t, nil)
	sess, _ := store.New(r, "aula")
	sess.Values["csrf"], sess.Values["locale"] = "token-1", "es"
	w := httptest.NewRecorder()
	if err := store.Save(r, w, sess); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 0 {
		t.Fatalf("an anonymous session wrote %d rows", n)
	}
	back, _ := store.New(sessionRequest(t, w), "aula")
	if back.Values["csrf"] != "token-1" || back.Values["locale"] != "es" {
		t.Fatalf("values after the round trip: %v", back.Values)
	}

	// A forged cookie is a fresh, empty session.
	forged := httptest.NewRequest("GET", "/", nil)
	c := w.Result().Cookies()[0]
	c.Value = c.Value[:len(c.Value)-2] + "xx"
	forged.AddCookie(c)
	if s, _ := store.New(forged, "aula"); len(s.Values) != 0 {
		t.Fatalf("a forged cookie gave values %v", s.Values)
	}

	// Signing in is something to keep: a row, and the cookie names it.
	back.Values["uid"] = createUser(t, db, "sess@example.com")
	w2 := httptest.NewRecorder()
	if err := store.Save(sessionRequest(t, w), w2, back); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 1 || back.ID == "" {
		t.Fatalf("signed in: %d rows, id %q", n, back.ID)
	}
	again, _ := store.New(sessionRequest(t, w2), "aula")
	if again.ID != back.ID || again.Values["locale"] != "es" {
		t.Fatalf("the signed-in session did not load from its row: %q %v", again.ID, again.Values)
	}
}

func createUser(t *testing.T, db *pgtest.DB, email string) string {
	t.Helper()
	u, err := models.NewUsers(db.DB).Create(context.Background(), models.NewUser{
		Email: email, Name: "Sess", Password: "a long enough password", Plan: models.PlanFree, Locale: "en"})
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}
