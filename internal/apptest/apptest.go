// Package apptest starts aula's whole HTTP server (the site, the JSON API
// and MCP, as cmd/aula mounts them) on a fresh database for the tests of
// the front doors.
package apptest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"gorm.io/gorm"

	"aula/content"
	"aula/content/importer"
	"aula/handlers"
	"aula/handlers/api"
	"aula/handlers/mcp"
	"aula/handlers/web"
	"aula/internal/pgtest"
	"aula/internal/webtest"
	"aula/models"
	"aula/static"
	"aula/tutor"
	"aula/tutor/stream"
)

// Server is aula's handler on a fresh database with the demo content.
type Server struct {
	URL string
	App *web.App
	// Handler is the whole server, every door mounted.
	Handler *echo.Echo
	DB      *pgtest.DB
	SQLs    *atomic.Int64 // statements run, for counting tests
	Tutor   *tutor.Service
}

// New starts aula on a fresh database with the demo content; opts adjust
// the tutor's configuration (a scripted provider, a clock, timeouts).
func New(t testing.TB, opts ...func(*tutor.Config)) *Server {
	t.Helper()
	db := pgtest.New(t)
	ctx := context.Background()
	rep, err := importer.Import(ctx, models.NewContent(db.DB), content.FS)
	if err != nil || len(rep.Errors) > 0 {
		t.Fatalf("import demo content: %v %v", err, rep.Errors)
	}
	s := &Server{DB: db, SQLs: countStatements(t, db.DB)}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// No embed loop: its passes would count in the statements a test measures.
	cfg := tutor.Config{DB: db.DB, Logger: log, Stream: stream.Config{DatabaseURL: db.URL}, EmbedInterval: -1}
	for _, o := range opts {
		o(&cfg)
	}
	svc := tutor.New(cfg)
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	s.Tutor = svc
	metrics := &handlers.Metrics{}
	s.App = web.New(db.DB, svc, []byte("test-session-key-0123456789abcdef"), log, metrics)
	// A plain post of a question waits NoJSWait (2 s) for its answer before
	// it redirects. A test that reads the finished answer on the page it
	// lands on must not depend on the machine answering within 2 s: here
	// the answer's end decides. Tests of the redirect at once set their own.
	s.App.NoJSWait = time.Minute
	s.Handler = handlers.New(&handlers.Server{DB: db.DB, Tutor: svc, Log: log, Static: static.FS,
		AssetVersion: s.App.AssetVersion, Metrics: metrics, Pages: s.App},
		s.App, api.New(db.DB, svc), mcp.New(db.DB, svc, log))
	hs := httptest.NewServer(s.Handler)
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

// countStatements counts every SQL statement GORM sends.
func countStatements(t testing.TB, db *gorm.DB) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	inc := func(*gorm.DB) { n.Add(1) }
	cb := db.Callback()
	for name, err := range map[string]error{
		"create": cb.Create().After("gorm:create").Register("count:create", inc),
		"query":  cb.Query().After("gorm:query").Register("count:query", inc),
		"update": cb.Update().After("gorm:update").Register("count:update", inc),
		"delete": cb.Delete().After("gorm:delete").Register("count:delete", inc),
		"row":    cb.Row().After("gorm:row").Register("count:row", inc),
		"raw":    cb.Raw().After("gorm:raw").Register("count:raw", inc),
	} {
		if err != nil {
			t.Fatalf("register %s counter: %v", name, err)
		}
	}
	return &n
}

// User creates an account directly in the database.
func (s *Server) User(t testing.TB, email, password, plan string) *models.User {
	t.Helper()
	// A corporate plan comes with an organization, so an account is never
	// created with one; a test that needs such a plan alone (every plan
	// against every route) gets the account and then the plan set directly.
	corporate := plan == models.PlanCorporateUser || plan == models.PlanCorporateAdmin
	create := plan
	if corporate {
		create = models.PlanFree
	}
	u, err := s.App.Users.Create(context.Background(), models.NewUser{Email: email, Name: "Test " + plan, Password: password, Plan: create})
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	if corporate {
		if err := s.DB.Exec(`UPDATE users SET plan = ? WHERE id = ?`, plan, u.ID).Error; err != nil {
			t.Fatalf("set plan %s: %v", plan, err)
		}
		u.Plan = plan
	}
	return u
}

// SignIn returns a client signed in as email.
func (s *Server) SignIn(t testing.TB, email, password string) *webtest.Client {
	t.Helper()
	c := webtest.New(t, s.URL)
	p := c.Submit(c.Get("/login"), `form[action="/login"]`, map[string]string{"email": email, "password": password})
	if p.Status != 200 || p.URL.Path != "/learn" {
		t.Fatalf("sign in as %s: status %d at %s", email, p.Status, p.URL)
	}
	return c
}
