package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

const (
	fbPass   = "a-long-password-1"
	fbLesson = "vlan-basics"
)

// fbSections are the anchors of lesson vlan-basics's published sections
// and their hashes, in order.
func fbSections(t *testing.T, s *apptest.Server) (anchors []string, hash map[string]string) {
	t.Helper()
	var rows []struct{ Anchor, Hash string }
	if err := s.DB.Raw(`SELECT anchor, hash FROM lesson_chunks WHERE lesson_id = ? ORDER BY position`, fbLesson).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	hash = map[string]string{}
	for _, r := range rows {
		if _, ok := hash[r.Anchor]; !ok {
			anchors = append(anchors, r.Anchor)
		}
		hash[r.Anchor] = r.Hash
	}
	return anchors, hash
}

// fbRateDown stores a student's question and the tutor's answer citing
// anchor of vlan-basics, rated down for reason with comment.
func fbRateDown(t *testing.T, s *apptest.Server, user, anchor, question, reason, comment string) {
	t.Helper()
	var conv string
	if err := s.DB.Raw(`INSERT INTO conversations (user_id, mode, lesson_id, next_seq) VALUES (?, 'lesson', ?, 2) RETURNING id`,
		user, fbLesson).Row().Scan(&conv); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"citations": []map[string]any{
		{"kind": "lesson", "lessonId": fbLesson, "anchor": anchor, "heading": anchor, "cited": true}}})
	for _, q := range []string{
		`INSERT INTO messages (conversation_id, user_id, seq, role, content) VALUES (@c, @u, 0, 'user', @q)`,
		`INSERT INTO messages (conversation_id, user_id, seq, role, content, metadata, rating, rating_reason, rating_comment, rated_at)
			VALUES (@c, @u, 1, 'assistant', 'An answer.', @m, 'down', @r, @k, now())`,
	} {
		err := s.DB.Exec(q, map[string]any{"c": conv, "u": user, "q": question, "m": string(meta), "r": reason, "k": comment}).Error
		if err != nil {
			t.Fatal(err)
		}
	}
}

// fbGraded stores a graded check answer on anchor's text hash.
func fbGraded(t *testing.T, s *apptest.Server, user, anchor, hash, verdict, answer string) {
	t.Helper()
	var conv string
	if err := s.DB.Raw(`INSERT INTO conversations (user_id, mode, lesson_id) VALUES (?, 'check', ?) RETURNING id`,
		user, fbLesson).Row().Scan(&conv); err != nil {
		t.Fatal(err)
	}
	if err := s.DB.Exec(`INSERT INTO checks (conversation_id, user_id) VALUES (?, ?)`, conv, user).Error; err != nil {
		t.Fatal(err)
	}
	err := s.DB.Exec(`INSERT INTO check_items (conversation_id, user_id, position, lesson_id, anchor, section_hash, kind,
			question, answer, verdict, attempts, graded_at)
		VALUES (@c, @u, 1, @l, @a, @h, 'blank', 'Fill it in', @ans, @v, 1, clock_timestamp())`,
		map[string]any{"c": conv, "u": user, "l": fbLesson, "a": anchor, "h": hash, "ans": answer, "v": verdict}).Error
	if err != nil {
		t.Fatal(err)
	}
}

// fbAdmin is a signed-in CONTENT_ADMIN.
func fbAdmin(t *testing.T, s *apptest.Server) *webtest.Client {
	t.Helper()
	s.User(t, "author@example.com", fbPass, models.PlanContentAdmin)
	return s.SignIn(t, "author@example.com", fbPass)
}

// The 👎 and check results on a section appear beside that section (in
// both languages, with their plural forms), each with its evidence
// link; after the section is edited and republished they restart, while
// the section left alone keeps its own.
func TestContentFeedbackBesideEachSectionRestartsAfterAnEdit(t *testing.T) {
	s := apptest.New(t)
	c := fbAdmin(t, s)
	anchors, hash := fbSections(t, s)
	first, second := anchors[1], anchors[2]
	ann := s.User(t, "ann@example.com", fbPass, models.PlanPro).ID
	bob := s.User(t, "bob@example.com", fbPass, models.PlanPro).ID
	fbRateDown(t, s, ann, first, "What is a broadcast domain?", "lesson_unclear", "Where does it end?")
	fbRateDown(t, s, bob, first, "what is a broadcast domain", "answer_wrong", "")
	fbRateDown(t, s, bob, second, "How are VLANs kept apart?", "other", "")
	fbGraded(t, s, ann, first, hash[first], models.VerdictNotYet, "a router")
	fbGraded(t, s, bob, second, hash[second], models.VerdictCorrect, "tags")
	if err := s.DB.Exec(`INSERT INTO section_rating_totals (lesson_id, anchor, heading, down) VALUES ('subnetting', 'masks', 'Masks', 9)`).Error; err != nil {
		t.Fatal(err)
	}

	p := c.Get("/admin/content/lessons/" + fbLesson + "/feedback")
	if p.Status != http.StatusOK {
		t.Fatalf("feedback page: %d", p.Status)
	}
	item := p.Doc.Find("#section-" + first)
	if got := item.Find(".feedback-down").Text(); got != "2 answers rated down" {
		t.Errorf("first section's 👎: %q", got)
	}
	if href := item.Find(".feedback-down").AttrOr("href", ""); href != "/admin/ratings?lesson="+fbLesson+"#sr-"+fbLesson+"-"+first {
		t.Errorf("the 👎 links to %q", href)
	}
	fbEvidence(t, c, item)
	if got := item.Find(".feedback-tried").Text(); got != "1 student tried a check" ||
		item.Find(".feedback-not-yet").Text() != "1 not yet (last answer not right)" {
		t.Errorf("first section's checks: %q, %q", got, item.Find(".feedback-not-yet").Text())
	}
	if !strings.Contains(item.Find(".feedback-checks").Text(), "a router") ||
		!strings.Contains(item.Find(".feedback-comments").Text(), "Where does it end?") ||
		!strings.Contains(item.Find(".feedback-questions").Text(), "2 times") {
		t.Errorf("first section's panel lacks its wrong answer, comment or question:\n%s", item.Text())
	}
	if got := p.Text("#section-" + second + " .feedback-down"); got != "1 answer rated down" {
		t.Errorf("second section's 👎: %q", got)
	}
	editor := c.Get("/admin/content/lessons/" + fbLesson)
	if got := editor.Text("#editor-outline #section-" + first + " .feedback-down"); got != "2 answers rated down" ||
		editor.Text("#editor-outline #section-"+second+" .feedback-tried") != "1 student tried a check" {
		t.Errorf("the editor's outline: %q\n%s", got, editor.Text("#editor-outline"))
	}
	if got := p.Text("#section-" + anchors[3] + " .feedback-none"); !strings.HasPrefix(got, "Nothing from students on this text yet") {
		t.Errorf("an untouched section says %q", got)
	}
	c.Lang = "es"
	es := c.Get("/admin/content/lessons/" + fbLesson + "/feedback")
	if got := es.Text("#section-" + first + " .feedback-down"); got != "2 respuestas valoradas negativamente" {
		t.Errorf("Spanish 👎: %q", got)
	}
	if got := es.Text("#section-" + second + " .feedback-tried"); got != "1 estudiante hizo una comprobación" {
		t.Errorf("Spanish checks: %q", got)
	}
	c.Lang = ""

	republishEdited(t, s, first)
	p = c.Get("/admin/content/lessons/" + fbLesson + "/feedback")
	if p.Doc.Find("#section-"+first+" .feedback-down").Length() != 0 || p.Doc.Find("#section-"+first+" .feedback-none").Length() != 1 {
		t.Errorf("the edited section kept its figures:\n%s", p.Text("#section-"+first))
	}
	if got := p.Text("#section-" + second + " .feedback-down"); got != "1 answer rated down" ||
		p.Text("#section-"+second+" .feedback-tried") != "1 student tried a check" {
		t.Errorf("the untouched section lost its figures:\n%s", p.Text("#section-"+second))
	}
	editor = c.Get("/admin/content/lessons/" + fbLesson)
	if editor.Doc.Find("#editor-outline #section-"+first+" .feedback-none").Length() != 1 ||
		editor.Text("#editor-outline #section-"+second+" .feedback-down") != "1 answer rated down" {
		t.Errorf("the editor's outline after the edit:\n%s", editor.Text("#editor-outline"))
	}
}

// republishEdited saves and publishes vlan-basics with one sentence added
// to the section anchor.
func republishEdited(t *testing.T, s *apptest.Server, anchor string) {
	t.Helper()
	ctx := context.Background()
	content := models.NewContent(s.DB.DB)
	l, err := content.Lesson(ctx, fbLesson)
	if err != nil {
		t.Fatal(err)
	}
	var heading string
	s.DB.Raw(`SELECT heading FROM lesson_chunks WHERE lesson_id = ? AND anchor = ? LIMIT 1`, fbLesson, anchor).Scan(&heading)
	body := strings.Replace(l.ContentMD, "## "+heading+"\n", "## "+heading+"\n\nAn added sentence makes this clearer.\n", 1)
	if body == l.ContentMD {
		t.Fatalf("no heading %q to edit under", heading)
	}
	v, err := content.SaveVersion(ctx, fbLesson, l.Version, models.LessonDraft{Title: l.Title, Summary: l.Summary,
		Language: l.Language, ContentMD: body}, models.VersionSave, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := content.Publish(ctx, fbLesson, v.Number, models.Actor{}); err != nil {
		t.Fatal(err)
	}
}

// Students and organization admins (two of each) get 404 on every
// feedback and assist route, as visitors do; an unknown lesson is 404.
func TestContentFeedbackRoutesAreForContentAdminsOnly(t *testing.T) {
	s := apptest.New(t)
	s.Org(t, "org-a", "corp-a@example.com")
	s.Org(t, "org-b", "corp-b@example.com")
	s.User(t, "free@example.com", fbPass, models.PlanFree)
	s.User(t, "pro@example.com", fbPass, models.PlanPro)
	base := "/admin/content/lessons/" + fbLesson
	for _, who := range []struct{ email, pass string }{
		{"free@example.com", fbPass}, {"pro@example.com", fbPass},
		{"corp-a@example.com", apptest.OrgPassword}, {"corp-b@example.com", apptest.OrgPassword},
	} {
		c := s.SignIn(t, who.email, who.pass)
		token := c.Get("/settings").CSRF()
		if p := c.Get(base + "/feedback"); p.Status != http.StatusNotFound {
			t.Errorf("%s: GET feedback = %d", who.email, p.Status)
		}
		for _, path := range []string{"/suggest", "/preview-check"} {
			p := c.Post(base+path, url.Values{"_csrf": {token}, "title": {"T"}, "language": {"en"}, "body": {"## A\n\nText."}, "anchor": {"a"}})
			if p.Status != http.StatusNotFound {
				t.Errorf("%s: POST %s = %d", who.email, path, p.Status)
			}
		}
	}
	admin := fbAdmin(t, s)
	if p := admin.Get("/admin/content/lessons/no-such-lesson/feedback"); p.Status != http.StatusNotFound {
		t.Errorf("an unknown lesson: %d", p.Status)
	}
}

// fbForm is the values a browser sends from the assist form on p, with
// values on top.
func fbForm(p *webtest.Page, values map[string]string) url.Values {
	v := formValues(p, "#assist-form")
	for k, val := range values {
		v.Set(k, val)
	}
	return v
}

// formValues is what the form sel on p sends: its inputs and text areas
// (a repeated name several times) and each select's chosen option.
func formValues(p *webtest.Page, sel string) url.Values {
	v := url.Values{}
	form := p.Doc.Find(sel)
	form.Find("input, textarea").Each(func(_ int, s *goquery.Selection) {
		name := s.AttrOr("name", "")
		switch {
		case name == "" || s.AttrOr("type", "") == "submit":
		case goquery.NodeName(s) == "textarea":
			v.Add(name, s.Text())
		default:
			v.Add(name, s.AttrOr("value", ""))
		}
	})
	form.Find("select").Each(func(_ int, s *goquery.Selection) {
		opt := s.Find("option[selected]")
		if opt.Length() == 0 {
			opt = s.Find("option").First()
		}
		v.Set(s.AttrOr("name", ""), opt.AttrOr("value", ""))
	})
	return v
}

// fbEvidence follows the 👎 and comment links of a section's panel: the
// ratings page, narrowed to the lesson, has the section's row and the
// comment, and no other lesson's.
func fbEvidence(t *testing.T, c *webtest.Client, item *goquery.Selection) {
	t.Helper()
	down := item.Find(".feedback-down").AttrOr("href", "")
	path, anchor, _ := strings.Cut(down, "#")
	r := c.Get(path)
	if r.Status != http.StatusOK || r.Doc.Find("#"+anchor).Length() != 1 || !strings.Contains(r.Text("#ratings-lesson"), "What a VLAN is") {
		t.Errorf("%s: %d, row #%s %d, notice %q", down, r.Status, anchor, r.Doc.Find("#"+anchor).Length(), r.Text("#ratings-lesson"))
	}
	if r.Doc.Find(`#section-ratings tbody tr:not([id^="sr-`+fbLesson+`-"])`).Length() != 0 {
		t.Errorf("the narrowed ratings page lists other lessons' sections:\n%s", r.Text("#section-ratings"))
	}
	_, comment, _ := strings.Cut(item.Find(".feedback-comments a").AttrOr("href", ""), "#")
	if comment == "" || r.Doc.Find("#"+comment).Length() != 1 {
		t.Errorf("the comment %q is not on the narrowed ratings page", comment)
	}
}
