package web_test

import (
	"context"
	"testing"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

const copyAnswerMD = "Use **fmt**:\n\n```go\nfmt.Println(\"hi\")\n```\n"

// Every finished answer has a Copy button that copies its Markdown source,
// and every code block one that copies its code; each says "Copied".
func TestBrowserCopyButtons(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		return emit(copyAnswerMD)
	}}))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + "/chat")
	b.ClickAndWait("#new-conversation")
	mid := sendQ(b, "How do I print?", false)
	waitStatus(b, mid, "complete")
	waitFor(b, "the copy buttons", `!!document.querySelector('#m-`+mid+` .copy-answer:not([hidden])') && !!document.querySelector('#m-`+mid+` .copy-code + pre')`)

	// What each button copies (the headless clipboard cannot be read back
	// here): the answer's Markdown source, the block's code.
	if got := eval[string](b, `document.querySelector('#m-`+mid+` .copy-answer').dataset.md`); got != copyAnswerMD {
		b.Errorf("the answer's copy source is %q, want the Markdown %q", got, copyAnswerMD)
	}
	if got := eval[string](b, `document.querySelector('#m-`+mid+` .copy-code').nextElementSibling.textContent`); got != "fmt.Println(\"hi\")\n" {
		b.Errorf("the code block's copy source is %q", got)
	}
	for _, button := range []string{".copy-answer", ".copy-code"} {
		b.Click("#m-" + mid + " " + button)
		waitFor(b, button+" saying Copied", `document.querySelector('#m-`+mid+` `+button+`').textContent === 'Copied'`)
	}
}
