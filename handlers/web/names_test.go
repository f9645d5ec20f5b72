package web_test

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/models"
)

// Every control and header whose visible text is only emoji or symbols
// (👎, ☰, ✕, 🤖) has a name in words, on every page a student or an admin
// sees, in English and Spanish: where no emoji font is installed the icon
// is an empty box, and a screen reader reads it as "thumbs down sign" at best.
func TestIconOnlyControlsHaveNames(t *testing.T) {
	s := apptest.New(t)
	student := s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	s.User(t, "root@example.com", "a-long-password-1", models.PlanSuperAdmin)
	cid := seedAxeConversations(t, s, student)
	chk := seedAxeCheck(t, s, student)
	understandingSeed(t, s)
	var lessonConv, answer string
	s.DB.Raw(`SELECT conversation_id FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE c.mode = 'lesson' AND m.user_id = ? LIMIT 1`, student.ID).Scan(&lessonConv)
	s.DB.Raw(`SELECT id FROM messages WHERE conversation_id = ? AND role = 'assistant'`, cid).Scan(&answer)
	if err := s.App.Messages.Rate(context.Background(), student.ID, answer, models.RatingDown, "answer_wrong", ""); err != nil {
		t.Fatal(err)
	}
	lesson := "/learn/networking/vlan-basics"
	pages := map[string][]string{
		"ana@example.com": {"/learn", "/learn/networking", lesson, lesson + "?tutor=open&session=" + lessonConv,
			lesson + "?tutor=open&history=open", "/chat", "/chat/" + cid, "/checks/" + chk, "/dashboard",
			"/settings", "/upgrade"},
		"root@example.com": {"/admin", "/admin/ratings", "/admin/understanding", "/admin/latency", "/admin/suggestions",
			"/admin/users", "/admin/routes", "/admin/site"},
	}
	for email, paths := range pages {
		c := s.SignIn(t, email, "a-long-password-1")
		for _, lang := range []string{"en", "es"} {
			c.Lang = lang
			s.DB.Exec(`UPDATE users SET locale = ? WHERE email = ?`, lang, email)
			for _, path := range paths {
				p := c.Get(path)
				if p.Status != 200 {
					t.Errorf("%s %s: status %d", lang, path, p.Status)
					continue
				}
				for _, bad := range unnamedIcons(p.Doc) {
					t.Errorf("%s %s: %s has no name in words", lang, path, bad)
				}
			}
		}
	}
}

// unnamedIcons lists the links, buttons, summaries and table headers whose
// visible text has no letter or digit and that have no name in words
// (aria-label, title or visually hidden text).
func unnamedIcons(doc *goquery.Document) []string {
	var bad []string
	doc.Find(`a, button, summary, th, [role="button"]`).Each(func(_ int, el *goquery.Selection) {
		if el.AttrOr("aria-hidden", "") == "true" || words(visibleText(el)) {
			return
		}
		if words(el.AttrOr("aria-label", "")) || el.AttrOr("aria-labelledby", "") != "" ||
			words(el.AttrOr("title", "")) || words(el.Find(".sr-only").Text()) {
			return
		}
		h, _ := goquery.OuterHtml(el)
		bad = append(bad, h[:min(len(h), 160)])
	})
	return bad
}

// visibleText is the text of el a sighted reader sees.
func visibleText(el *goquery.Selection) string {
	c := el.Clone()
	c.Find(`.sr-only, [aria-hidden="true"]`).Remove()
	return c.Text()
}

// words reports whether s has a letter or a digit.
func words(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
