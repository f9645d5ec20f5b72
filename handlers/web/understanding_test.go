package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// understandingSeed writes check totals for two sections of vlan-basics:
// the first answered under its current text and an earlier one, with 👎;
// a section the lesson no longer has; and three questions.
func understandingSeed(t *testing.T, s *apptest.Server) (first, second string) {
	t.Helper()
	var anchors []struct{ Anchor, Hash string }
	s.DB.Raw(`SELECT anchor, hash FROM lesson_chunks WHERE lesson_id = 'vlan-basics' AND anchor <> '' ORDER BY position LIMIT 2`).Scan(&anchors)
	if len(anchors) != 2 {
		t.Fatalf("vlan-basics sections %v", anchors)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if err := s.DB.Exec(sql, args...).Error; err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	a, b := anchors[0], anchors[1]
	exec(`INSERT INTO section_check_totals (lesson_id, anchor, section_hash, answers, correct, partly, not_yet) VALUES
		('vlan-basics', ?, ?, 10, 3, 1, 6), ('vlan-basics', ?, 'earlier-text', 20, 14, 2, 4),
		('vlan-basics', ?, ?, 5, 4, 0, 1), ('vlan-basics', 'removed-section', 'old', 2, 0, 0, 2)`,
		a.Anchor, a.Hash, a.Anchor, b.Anchor, b.Hash)
	exec(`INSERT INTO section_rating_totals (lesson_id, anchor, heading, down) VALUES ('vlan-basics', ?, 'x', 3), ('vlan-basics', ?, 'old x', 1)`, a.Anchor, a.Anchor)
	exec(`INSERT INTO lesson_rating_totals (lesson_id, up, down) VALUES ('vlan-basics', 2, 7)`)
	exec(`INSERT INTO check_question_totals (lesson_id, anchor, section_hash, question_hash, question, answers, not_yet) VALUES
		('vlan-basics', ?, ?, 'q1', 'What does a VLAN split', 8, 5),
		('vlan-basics', ?, 'earlier-text', 'q2', 'Old question', 9, 3),
		('vlan-basics', ?, ?, 'q3', 'Never missed', 4, 0)`, a.Anchor, a.Hash, a.Anchor, b.Anchor, b.Hash)
	return a.Anchor, b.Anchor
}

// The Understanding page shows, per lesson and per section, the share of
// check answers graded not yet beside the 👎, each section now and before
// its lesson was edited, and the questions missed most; in both languages.
func TestAdminUnderstandingFigures(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanContentAdmin)
	first, second := understandingSeed(t, s)
	c := s.SignIn(t, "root@example.com", "pass-phrase-1")
	p := c.Get("/admin/understanding")
	if p.Status != 200 || p.Doc.Find(`#tab-understanding[aria-current="true"]`).Length() != 1 {
		t.Fatalf("status %d, tab %d", p.Status, p.Doc.Find("#tab-understanding").Length())
	}
	if got := p.Text("#u-answers .kpi-value") + " " + p.Text("#u-not-yet .kpi-value"); got != "37 35 %" {
		t.Errorf("totals %q, want 37 answers, 13 not yet (35 %%)", got)
	}
	if got := rowText(p.Doc.Find("#ul-vlan-basics td")); got != "37|13|35 %|7" {
		t.Errorf("lesson row %q", got)
	}
	rows := p.Doc.Find("#u-sections tbody tr")
	if rows.Length() != 3 {
		t.Fatalf("%d section rows, want 3", rows.Length())
	}
	want := []struct{ id, cells string }{
		{"us-vlan-basics-" + first, "10|60 %|20|20 %|+40 pts|4"},
		{"us-vlan-basics-" + second, "5|20 %|0|—|—|0"},
		{"us-vlan-basics-removed-section", "0|—|2|100 %|—|0"},
	}
	for i, w := range want {
		row := rows.Eq(i)
		if id := row.AttrOr("id", ""); id != w.id || rowText(row.Find("td")) != w.cells {
			t.Errorf("section row %d: %s %q, want %s %q", i, id, rowText(row.Find("td")), w.id, w.cells)
		}
	}
	if href := rows.Eq(0).Find("th a").AttrOr("href", ""); href != "/learn/networking/vlan-basics#"+first {
		t.Errorf("the section links to %q", href)
	}
	if !strings.Contains(rows.Eq(2).Find("th").Text(), "#removed-section (removed)") {
		t.Errorf("a removed section reads %q", rows.Eq(2).Find("th").Text())
	}
	missed := p.Doc.Find("#u-missed tbody tr")
	if missed.Length() != 2 || !strings.HasPrefix(strings.TrimSpace(missed.Eq(0).Find(".question").Text()), "What does a VLAN split") ||
		missed.Eq(0).Find(".earlier").Length() != 0 || missed.Eq(1).Find(".earlier").Length() != 1 {
		t.Errorf("missed questions: %q", missed.Text())
	}
	c.Lang = "es"
	if es := c.Get("/admin/understanding"); es.Text("h1") != "Comprensión" || !strings.Contains(es.Text("#u-sections"), "Antes de la edición") {
		t.Errorf("Spanish page: %q", es.Text("h1"))
	}
}

// A missed question written in Markdown (as the model writes them) reads
// as text under "Questions students miss most": no **, backticks or
// [text](url) left over.
func TestAdminUnderstandingQuestionsAsText(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanContentAdmin)
	var anchor, hash string
	s.DB.Raw(`SELECT anchor, hash FROM lesson_chunks WHERE lesson_id = 'vlan-basics' AND anchor <> '' ORDER BY position LIMIT 1`).Row().Scan(&anchor, &hash)
	if err := s.DB.Exec(`INSERT INTO check_question_totals (lesson_id, anchor, section_hash, question_hash, question, answers, not_yet)
		VALUES ('vlan-basics', ?, ?, 'md', ?, 3, 2)`, anchor, hash,
		"What does **`switchport mode trunk`** do on a *Cisco* port? See [§ Trunks](#trunks).").Error; err != nil {
		t.Fatal(err)
	}
	p := s.SignIn(t, "root@example.com", "pass-phrase-1").Get("/admin/understanding")
	got := p.Text("#u-missed .question")
	if got != "What does switchport mode trunk do on a Cisco port? See § Trunks." {
		t.Errorf("missed question reads %q", got)
	}
	for _, marker := range []string{"**", "`", "](", "*"} {
		if strings.Contains(p.Text("#u-missed"), marker) {
			t.Errorf("the missed questions show the Markdown marker %q: %q", marker, p.Text("#u-missed"))
		}
	}
}

// Sections come in pages found by keyset: every section once, in order;
// a cursor aula did not write is a 400; students do not see the page.
func TestAdminUnderstandingPagesAndAccess(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanContentAdmin)
	s.User(t, "ana@example.com", "pass-phrase-1", models.PlanPro)
	n := models.UnderstandingTop + 7
	for i := range n {
		if err := s.DB.Exec(`INSERT INTO section_check_totals (lesson_id, anchor, section_hash, answers, not_yet) VALUES ('vlan-basics', ?, ?, 10, ?)`,
			fmt.Sprintf("s-%02d", i), "h", i%4).Error; err != nil {
			t.Fatal(err)
		}
	}
	c := s.SignIn(t, "root@example.com", "pass-phrase-1")
	var seen []string
	p := c.Get("/admin/understanding")
	for pages := 0; ; pages++ {
		p.Doc.Find("#u-sections tbody tr").Each(func(_ int, r *goquery.Selection) { seen = append(seen, r.AttrOr("id", "")) })
		next, ok := p.Doc.Find("#u-next").Attr("href")
		if !ok || pages > 3 {
			break
		}
		p = c.Get(next)
		if p.Doc.Find("#u-first").Length() != 1 {
			t.Errorf("a later page has no way back to the first")
		}
	}
	if len(seen) != n || uniq(seen) != n {
		t.Fatalf("pages showed %d sections (%d distinct), want %d", len(seen), uniq(seen), n)
	}
	if first := seen[0]; !strings.HasSuffix(first, "s-03") {
		t.Errorf("first section %s, want the one with most not yet", first)
	}
	if p := c.Get("/admin/understanding?after=bm9wZQ"); p.Status != 400 || !strings.Contains(p.Body, "not valid") {
		t.Errorf("bad cursor: %d", p.Status)
	}
	student := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	if p := student.Get("/admin/understanding"); p.Status != 404 {
		t.Errorf("a student gets %d", p.Status)
	}
}

// A check graded through the engine counts under the section's current
// text, also for a section cut into several chunks: the page computes the
// hash a check records (the chunks' hashes folded in order).
func TestAdminUnderstandingCountsEngineChecks(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanContentAdmin)
	u := s.User(t, "ana@example.com", "pass-phrase-1", models.PlanPro)
	long := "A trunk carries many VLANs between switches and tags each frame. "
	if err := s.DB.Exec(`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash)
		SELECT 'long-section', module_id, 'Long section', 'en', 'x', 'x' FROM lessons WHERE id = 'vlan-basics'`).Error; err != nil {
		t.Fatal(err)
	}
	var hashes []string
	for i := range 2 {
		text := strings.Repeat(long, 3) + fmt.Sprintf(" Part %d.", i)
		sum := sha256.Sum256([]byte(text))
		hashes = append(hashes, hex.EncodeToString(sum[:]))
		if err := s.DB.Exec(`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash) VALUES ('long-section', ?, 'Trunks', 'trunks', ?, ?)`,
			i, text, hashes[i]).Error; err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	st, err := s.Tutor.StartCheck(ctx, u, tutor.CheckScope{LessonID: "long-section", Anchor: "trunks"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tutor.AnswerCheck(ctx, u, st.Check.ConversationID, "no idea"); err != nil {
		t.Fatal(err)
	}
	c := s.SignIn(t, "root@example.com", "pass-phrase-1")
	p := c.Get("/admin/understanding")
	if got := rowText(p.Doc.Find("#us-long-section-trunks td")); !strings.HasPrefix(got, "1|") || !strings.Contains(got, "|0|—|") {
		t.Fatalf("the graded answer is not counted under the section's current text: %q", got)
	}
}

// rowText is the trimmed texts of cells joined by "|".
func rowText(cells *goquery.Selection) string {
	var out []string
	cells.Each(func(_ int, c *goquery.Selection) { out = append(out, strings.TrimSpace(c.Text())) })
	return strings.Join(out, "|")
}

func uniq(ids []string) int {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return len(m)
}

// On the scale data set (its generator, at a tenth of `aula seed
// --scale`'s threads, with check totals for every section and 50
// questions per section version) the page runs the statements it runs on
// an empty database, no more than the other admin pages.
func TestAdminUnderstandingScaleBudget(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanSuperAdmin)
	c := s.SignIn(t, "root@example.com", "pass-phrase-1")
	pages := []string{"/admin/understanding", "/admin", "/admin/ratings", "/admin/latency"}
	count := func() map[string]int64 {
		out := map[string]int64{}
		for _, pg := range pages {
			// The least of three, so a background statement of the tutor is not counted.
			out[pg] = 1 << 30
			for range 3 {
				s.SQLs.Store(0)
				if p := c.Get(pg); p.Status != 200 {
					t.Fatalf("%s: %d", pg, p.Status)
				}
				out[pg] = min(out[pg], s.SQLs.Load())
			}
		}
		return out
	}
	before := count()
	err := models.NewScaleData(s.DB.DB).Insert(context.Background(), models.ScaleSize{Users: 1000, Conversations: 10_000,
		MessagesPerConversation: 4, PasswordHash: "x", Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var sections, questions int
	s.DB.Raw(`SELECT (SELECT count(*) FROM section_check_totals), (SELECT count(*) FROM check_question_totals)`).Row().Scan(&sections, &questions)
	if sections < 100 || questions < 5000 {
		t.Fatalf("the scale data has %d section and %d question totals", sections, questions)
	}
	after := count()
	others := max(after["/admin"], after["/admin/ratings"], after["/admin/latency"])
	t.Logf("understanding: %d statements (%d section versions, %d questions); other admin pages at most %d",
		after["/admin/understanding"], sections, questions, others)
	if after["/admin/understanding"] != before["/admin/understanding"] || after["/admin/understanding"] > others {
		t.Errorf("understanding: %d statements, then %d at scale; the other admin pages run at most %d",
			before["/admin/understanding"], after["/admin/understanding"], others)
	}
	p := c.Get("/admin/understanding")
	if p.Doc.Find("#u-sections tbody tr").Length() != models.UnderstandingTop || p.Doc.Find("#u-next").Length() != 1 ||
		p.Doc.Find("#u-missed tbody tr").Length() != models.UnderstandingTop {
		t.Errorf("at scale the page lists %d sections and %d questions", p.Doc.Find("#u-sections tbody tr").Length(), p.Doc.Find("#u-missed tbody tr").Length())
	}
}
