package web_test

import (
	"fmt"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
	"aula/urls"
)

// emojiJS lists the page's own text (text nodes, titles, labels and
// placeholders, outside lesson prose, message bodies and quoted passages)
// that holds a codepoint at or past U+1F000: an emoji, an empty box on a
// machine without an emoji font.
const emojiJS = `(() => {
	const astral = /[\u{1F000}-\u{10FFFF}]/u, out = [];
	const skip = el => !el || el.closest('.prose, .passage-text, script, style, template, textarea');
	const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n; (n = w.nextNode());) {
		if (astral.test(n.data) && !skip(n.parentElement)) out.push(n.parentElement.tagName + ': ' + n.data.trim());
	}
	for (const el of document.body.querySelectorAll('[title], [aria-label], [placeholder], [data-ask-label]')) {
		if (skip(el)) continue;
		for (const a of ['title', 'aria-label', 'placeholder', 'data-ask-label']) {
			const v = el.getAttribute(a);
			if (v && astral.test(v)) out.push(el.tagName + '[' + a + ']: ' + v);
		}
	}
	return out; })()`

// iconsJS lists the visible controls matching %q whose icon is not a
// visible SVG with a size.
const iconsJS = `(() => {
	const buttons = [...document.querySelectorAll(%q)].filter(b => b.getClientRects().length > 0);
	const bad = buttons.filter(b => {
		const s = b.querySelector('svg'), r = s && s.getBoundingClientRect();
		return !s || r.width < 8 || r.height < 8 || getComputedStyle(s).visibility !== 'visible';
	}).map(b => b.className + ' ' + b.getAttribute('aria-label'));
	return buttons.length ? bad : ['none shown']; })()`

// The lesson with its tutor button, the lesson panel and /chat with
// finished answers, and the admin pages
// (ratings and understanding among them), show no emoji in their own text
// — a machine without an emoji font draws them as empty boxes — and the
// tutor button and every rating button show an SVG icon with a size; at 1366×900 and 390×844,
// light and dark, in English and Spanish.
func TestLayoutIconsAreSVGNotEmoji(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: longAnswer}))
	root := s.User(t, "root@example.com", "a-long-password-1", models.PlanSuperAdmin)
	seedAdminData(t, s, root)
	threads := threadPages(t, s, root)
	b := signInBrowser(t, s, "root@example.com", "a-long-password-1")
	threads["lesson"] = urls.Lesson("networking", "vlan-basics")
	controls := map[string]string{
		threads["lesson"]: ".tutor-fab",
		threads["panel"]:  ".rate-up, .rate-down > summary",
		threads["chat"]:   ".rate-up, .rate-down > summary",
	}
	pages := append([]string{threads["lesson"], threads["panel"], threads["chat"]}, adminPages(t, s)...)
	for _, lang := range []string{"en", "es"} {
		for _, p := range pages {
			for _, sc := range screens() {
				b.Viewport(sc.size, sc.mobile)
				b.Navigate(s.URL + p)
				label := fmt.Sprintf("%s %s %s", p, lang, sc.name)
				if bad := eval[[]string](b, emojiJS); len(bad) > 0 {
					b.Errorf("%s shows emoji: %q", label, bad)
				}
				if sel, ok := controls[p]; ok {
					if bad := eval[[]string](b, fmt.Sprintf(iconsJS, sel)); len(bad) > 0 {
						b.Errorf("%s: %s without a visible icon: %v", label, sel, bad)
					}
				}
				if lang == "en" {
					shotSchemes(b, fmt.Sprintf("icons-%s-%s", shotName(p, threads), sc.name))
				}
			}
		}
		b.ClickAndWait("#lang-switch")
	}
}

// shotName names the screenshot of page p: panel, chat or admin-….
func shotName(p string, threads map[string]string) string {
	for k, v := range threads {
		if v == p {
			return k
		}
	}
	return "admin" + strings.ReplaceAll(strings.TrimPrefix(p, "/admin"), "/", "-")
}
