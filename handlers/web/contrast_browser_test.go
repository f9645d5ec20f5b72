package web_test

import (
	"context"
	"fmt"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
	"aula/tutor"
)

// contrastJS finds, among the elements matched by the selector (%q) that
// hold text of their own, the one whose text colour has the lowest WCAG
// contrast on the first opaque background behind it.
const contrastJS = `(() => {
	const parse = c => (c.match(/[\d.]+/g) || []).map(Number);
	const lin = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
	const lum = ([r, g, b]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
	const bgOf = el => {
		for (; el; el = el.parentElement) {
			const c = parse(getComputedStyle(el).backgroundColor);
			if (c.length === 3 || c[3] > 0.5) return c.slice(0, 3);
		}
		return [255, 255, 255];
	};
	let worst = {Ratio: 99, N: 0};
	for (const el of document.querySelectorAll(%q)) {
		if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
		worst.N++;
		const fg = parse(getComputedStyle(el).color).slice(0, 3), bg = bgOf(el);
		const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
		const r = (hi + 0.05) / (lo + 0.05);
		if (r < worst.Ratio) worst = {Ratio: r, N: worst.N, What: el.className + ' "' + el.textContent.trim().slice(0, 24) + '" rgb(' + fg + ') on rgb(' + bg + ')'};
	}
	return worst;
})()`

// lowest is the lowest-contrast text among the elements matched by sel.
type lowest struct {
	Ratio float64
	N     int
	What  string
}

// worstContrast measures the lowest text contrast among sel's elements.
func worstContrast(b *browser.Browser, sel string) lowest {
	b.T.Helper()
	return eval[lowest](b, fmt.Sprintf(contrastJS, sel))
}

// Code in lessons and answers, and the attachment size on a question, read
// at WCAG AA (4.5:1) in both colour schemes.
func TestLayoutCodeContrast(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: longAnswer}))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	cid := seedThread(t, s, u, 1)
	ctx := context.Background()
	res, err := s.Tutor.Ask(ctx, tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "My notes",
		Attachment: &models.AttachmentInput{Filename: "notes.md", MIME: "text/markdown", Data: []byte("# Notes\n"), Text: "# Notes\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tutor.Streams().Wait(ctx, u.ID, res.AssistantMessage.ID); err != nil {
		t.Fatal(err)
	}
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Viewport(browser.Desktop, false)
	for _, page := range []struct{ name, path, sel string }{
		{"lesson_code", "/learn/go-basics/go-concurrency", "#lesson pre.chroma, #lesson pre.chroma *"},
		{"answer_code", "/chat/" + cid, "#messages pre.chroma, #messages pre.chroma *"},
		{"attachment_size", "/chat/" + cid, "#messages .attachment, #messages .attachment *"},
	} {
		b.Navigate(s.URL + page.path)
		for _, sch := range []string{"light", "dark"} {
			b.ColorScheme(sch)
			w := worstContrast(b, page.sel)
			figure(t, fmt.Sprintf("contrast.%s.%s", page.name, sch), fmt.Sprintf("%.2f:1 over %d texts (%s)", w.Ratio, w.N, w.What))
			if w.N == 0 || w.Ratio < 4.5 {
				b.Errorf("%s in %s: lowest contrast %.2f:1 (%s) over %d texts, want at least 4.5:1", page.name, sch, w.Ratio, w.What, w.N)
			}
			if page.name == "answer_code" {
				b.Shot(shotsDir(), "chat-code-1366-"+sch)
			}
		}
	}
}
