package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/internal/webtest"
)

// lessonOrder is the lesson ids of module mid in the catalog's order.
func lessonOrder(t *testing.T, p *webtest.Page, mid string) []string {
	t.Helper()
	return p.Doc.Find("#module-" + mid + " .content-lesson").Map(func(_ int, s *goquery.Selection) string {
		return s.AttrOr("data-lesson", "")
	})
}

// storedOrder is module mid's lessons by stored position, and whether
// the positions are exactly 1..n.
func storedOrder(t *testing.T, s *apptest.Server, mid string) ([]string, bool) {
	t.Helper()
	var rows []struct {
		ID       string
		Position int
	}
	s.DB.Raw(`SELECT id, position FROM lessons WHERE module_id = ? ORDER BY position, id`, mid).Scan(&rows)
	ids, dense := []string{}, true
	for i, r := range rows {
		ids = append(ids, r.ID)
		dense = dense && r.Position == i+1
	}
	return ids, dense
}

// Without JavaScript, the up and down buttons are forms: each post answers
// 303 back to the item in the catalog, and the new order is what the
// catalog and the student's path show. "to" (what dragging posts) places
// at a position. Paths and modules move the same way; a lesson moves to
// another module with its select.
func TestContentCatalogReorderWithForms(t *testing.T) {
	s := apptest.New(t)
	c := author(t, s)
	s.User(t, "student@example.com", authorPass, "FREE")
	mid := moduleIDOf(t, s, "networking", "switching")
	p := c.Get("/admin/content")
	if got := lessonOrder(t, p, mid); strings.Join(got, ",") != "vlan-basics,vlan-cisco-ios" {
		t.Fatalf("the switching module lists %v", got)
	}
	if p.Doc.Find("#lesson-vlan-basics .order-up").Length() != 0 || p.Doc.Find("#lesson-vlan-cisco-ios .order-down").Length() != 0 {
		t.Fatal("the first lesson offers up, or the last down")
	}
	code, loc := noFollow(t, c, "/admin/content/lessons/vlan-basics/order", url.Values{"step": {"1"}})
	if code != http.StatusSeeOther || loc != "/admin/content#lesson-vlan-basics" {
		t.Fatalf("down: %d to %q", code, loc)
	}
	p = c.Submit(c.Get("/admin/content"), "#lesson-vlan-basics .order-buttons form", nil) // its only form now: up
	if got := lessonOrder(t, p, mid); strings.Join(got, ",") != "vlan-basics,vlan-cisco-ios" {
		t.Fatalf("after down and up: %v", got)
	}
	if p = c.Submit(p, "#lesson-vlan-cisco-ios .order-buttons form", nil); p.Status != http.StatusOK { // up
		t.Fatalf("up: %d", p.Status)
	}
	st := s.SignIn(t, "student@example.com", authorPass)
	path := st.Get("/learn/networking").Text("main")
	if strings.Index(path, "Configuring VLANs") > strings.Index(path, "What a VLAN is") {
		t.Fatalf("the student's path does not follow: %q", path)
	}
	// Dragging posts a position; beyond the end is the end.
	ipMid := moduleIDOf(t, s, "networking", "ip")
	noFollow(t, c, "/admin/content/lessons/subnetting/order", url.Values{"to": {"99"}})
	if got, dense := storedOrder(t, s, ipMid); strings.Join(got, ",") != "routing-basics,subnetting" || !dense {
		t.Fatalf("to 99: %v dense=%v", got, dense)
	}
	// Modules and paths.
	noFollow(t, c, "/admin/content/modules/"+ipMid+"/order", url.Values{"step": {"-1"}})
	noFollow(t, c, "/admin/content/paths/redes/order", url.Values{"to": {"1"}})
	p = c.Get("/admin/content")
	if first := p.Doc.Find("#path-networking .content-module").First().AttrOr("id", ""); first != "module-"+ipMid {
		t.Fatalf("the ip module is not first: %s", first)
	}
	if first := p.Doc.Find(".content-path").First().AttrOr("id", ""); first != "path-redes" {
		t.Fatalf("the first path is %s", first)
	}
	// Move a lesson to another module: last there, the old module dense.
	if p = c.Submit(p, "#lesson-subnetting form.content-move", map[string]string{"module": mid}); p.Status != http.StatusOK || p.URL.Fragment != "lesson-subnetting" {
		t.Fatalf("move: %d at %s", p.Status, p.URL)
	}
	if got, dense := storedOrder(t, s, mid); strings.Join(got, ",") != "vlan-cisco-ios,vlan-basics,subnetting" || !dense {
		t.Fatalf("after the move: %v dense=%v", got, dense)
	}
	if got, dense := storedOrder(t, s, ipMid); strings.Join(got, ",") != "routing-basics" || !dense {
		t.Fatalf("the module left: %v dense=%v", got, dense)
	}
	if href := st.Get("/learn/networking").Doc.Find(`a[href="/learn/networking/subnetting"]`).Length(); href == 0 {
		t.Fatal("the moved lesson left the student's path")
	}
	// Bad places are refused with the reason; unknown items are 404.
	for _, tc := range []struct {
		path string
		form url.Values
		want int
	}{
		{"/admin/content/lessons/subnetting/order", url.Values{"step": {"2"}}, http.StatusUnprocessableEntity},
		{"/admin/content/lessons/subnetting/order", url.Values{"to": {"0"}}, http.StatusUnprocessableEntity},
		{"/admin/content/lessons/subnetting/order", url.Values{}, http.StatusUnprocessableEntity},
		{"/admin/content/lessons/nope/order", url.Values{"step": {"1"}}, http.StatusNotFound},
		{"/admin/content/modules/999999/order", url.Values{"step": {"1"}}, http.StatusNotFound},
		{"/admin/content/modules/x/order", url.Values{"step": {"1"}}, http.StatusNotFound},
		{"/admin/content/paths/nope/order", url.Values{"step": {"1"}}, http.StatusNotFound},
		{"/admin/content/lessons/subnetting/module", url.Values{"module": {"abc"}}, http.StatusUnprocessableEntity},
		{"/admin/content/lessons/subnetting/module", url.Values{"module": {"999999"}}, http.StatusNotFound},
	} {
		if code, _ := noFollow(t, c, tc.path, tc.form); code != tc.want {
			t.Errorf("%s %v: %d, want %d", tc.path, tc.form, code, tc.want)
		}
	}
	c.Lang = "es"
	if p := send(t, c, http.MethodPost, "/admin/content/lessons/subnetting/order", url.Values{"step": {"9"}}, c.Get("/admin/content").CSRF()); !strings.Contains(p.Text("main"), "Indica adónde va") {
		t.Errorf("a bad place in Spanish: %d %q", p.Status, p.Text("main"))
	}
}

// Parallel reorders of one module's lessons (and of the paths) queue
// behind the parent's lock: whatever order they land in, the positions
// are 1..n with none repeated and no lesson lost.
func TestContentCatalogParallelReordersStayDense(t *testing.T) {
	s := apptest.New(t)
	c := author(t, s)
	mid := moduleIDOf(t, s, "networking", "switching")
	for i := range 6 {
		noFollow(t, c, "/admin/content/modules/"+mid+"/lessons", url.Values{"id": {fmt.Sprintf("par-%d", i)}, "title": {fmt.Sprintf("P %d", i)}})
	}
	csrf := c.Get("/admin/content").CSRF()
	hc := *c.HTTP
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	post := func(path string, form url.Values) int {
		form.Set("_csrf", csrf)
		req, _ := http.NewRequest(http.MethodPost, c.Base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := hc.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	var wg sync.WaitGroup
	codes := make(chan int, 48)
	for i := range 24 {
		wg.Go(func() {
			id := fmt.Sprintf("par-%d", i%6)
			if i%3 == 0 {
				codes <- post("/admin/content/lessons/"+id+"/order", url.Values{"to": {fmt.Sprint(1 + i%8)}})
			} else {
				codes <- post("/admin/content/lessons/"+id+"/order", url.Values{"step": {[]string{"-1", "1"}[i%2]}})
			}
			codes <- post("/admin/content/paths/"+[]string{"networking", "redes", "go-basics"}[i%3]+"/order", url.Values{"step": {[]string{"-1", "1"}[i%2]}})
		})
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != http.StatusSeeOther {
			t.Fatalf("a parallel reorder answered %d", code)
		}
	}
	ids, dense := storedOrder(t, s, mid)
	if len(ids) != 8 || !dense {
		t.Fatalf("after parallel reorders: %v dense=%v", ids, dense)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM (SELECT position FROM paths GROUP BY position HAVING count(*) > 1) d`); n != 0 {
		t.Fatalf("%d path positions repeat", n)
	}
	if n := apptest.Count(t, s, `SELECT count(DISTINCT position) FROM paths WHERE position BETWEEN 1 AND (SELECT count(*) FROM paths)`); n != apptest.Count(t, s, `SELECT count(*) FROM paths`) {
		t.Fatalf("path positions are not 1..n")
	}
}
