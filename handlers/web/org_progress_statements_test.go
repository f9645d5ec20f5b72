package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/models"
)

// The matrix page (each order, a group's), its CSV (every member) and a
// member's report run as many statements for 1,000 members × 50 assigned
// lessons as for 3 members × 2: every query is set-based, none per member
// or lesson. The large organization is made with generate_series.
func TestOrgProgressRunsAFixedNumberOfStatements(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	orgA := orgWith(t, s, root, "org-a", "a@example.com", "m1@example.com", "m2@example.com")
	a := s.SignIn(t, "a@example.com", orgPass)
	newGroup(t, s, a, orgA, "Red")
	for _, l := range []string{"subnetting", "vlan-basics"} {
		a.Submit(a.Get("/org"), "#assign-form", map[string]string{"lesson": l, "check": "1"})
	}
	m1 := userID(t, s, "m1@example.com")
	count := func(group string) map[string]int64 {
		var gid string
		s.DB.Raw(`SELECT id::text FROM organization_groups WHERE organization_id = ? AND name = ?`, orgA, group).Scan(&gid)
		out := map[string]int64{}
		for name, path := range map[string]string{"matrix": "/org/progress", "matrix by done": "/org/progress?sort=done&dir=desc",
			"a group's matrix": "/org/progress?group=" + gid, "CSV": "/org/progress.csv", "report": "/org/members/" + m1} {
			s.SQLs.Store(0)
			if p := a.Get(path); p.Status != http.StatusOK {
				t.Fatalf("%s: %d", path, p.Status)
			}
			out[name] = s.SQLs.Load()
		}
		return out
	}
	small := count("Red")
	if err := models.NewScaleData(s.DB.DB).InsertOrg(context.Background(), orgA, models.OrgScale{Members: 1000, Lessons: 48, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	large := count("Scale group")
	for path, n := range large {
		t.Logf("%s runs %d statements (3 members × 2 lessons: %d)", path, n, small[path])
		if n != small[path] || n > 8 {
			t.Errorf("%s: %d statements for 3 × 2, %d for 1,000 × 50; want the same small number", path, small[path], n)
		}
	}
	p := a.Get("/org/progress")
	if rows, cols := p.Doc.Find("#matrix tbody tr").Length(), p.Doc.Find("#matrix thead th.matrix-lesson").Length(); rows != 50 || cols != 50 {
		t.Errorf("the large matrix's first page: %d rows, %d lesson columns; want 50 and 50", rows, cols)
	}
	if lines := len(readCSV(t, a, "/org/progress.csv")); lines != 1+1003 {
		t.Errorf("the large CSV has %d lines, want a header and 1,003 members", lines)
	}
}
