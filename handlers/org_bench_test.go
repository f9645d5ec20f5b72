package handlers_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/models"
)

// BenchmarkOrgProgress times the completion matrix of an organization of
// 1,000 members × 50 assigned lessons (made with generate_series, in
// seconds): a page of 50 members by name, by lessons done and for a group
// of 500, and the whole matrix as CSV. The figure is the server's time for
// one response, its body read to the end.
func BenchmarkOrgProgress(b *testing.B) {
	s := apptest.New(b)
	ctx, now := context.Background(), time.Now()
	root := s.User(b, "root@example.com", "pass-phrase-1", models.PlanSuperAdmin)
	s.User(b, "boss@example.com", "pass-phrase-1", models.PlanFree)
	orgs := models.NewOrganizations(s.DB.DB)
	o, err := orgs.Create(ctx, models.NewOrganization{Name: "Scale school", Slug: "scale-school", Seats: 2000}, now)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := orgs.NameAdmin(ctx, root.ID, o.ID, "boss@example.com", now); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := models.NewScaleData(s.DB.DB).InsertOrg(ctx, o.ID, models.OrgScale{Members: 1000, Lessons: 50, Now: now}); err != nil {
		b.Fatal(err)
	}
	b.Logf("1,000 members × 50 lessons generated in %s", time.Since(start).Round(time.Millisecond))
	var group string
	s.DB.Raw(`SELECT id::text FROM organization_groups WHERE organization_id = ?`, o.ID).Scan(&group)
	admin := s.SignIn(b, "boss@example.com", "pass-phrase-1")
	for _, p := range []struct{ name, path, unit string }{
		{"matrix-page", "/org/progress", "ms/page"},
		{"matrix-page-by-done", "/org/progress?sort=done&dir=desc", "ms/page"},
		{"matrix-page-group", "/org/progress?group=" + group, "ms/page"},
		{"matrix-csv", "/org/progress.csv", "ms/csv"},
	} {
		b.Run(p.name, func(b *testing.B) {
			get := func() {
				resp, err := admin.HTTP.Get(s.URL + p.path)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("%s: status %d", p.path, resp.StatusCode)
				}
			}
			get() // warm the cache and the session
			b.ResetTimer()
			for b.Loop() {
				get()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, p.unit)
		})
	}
}
