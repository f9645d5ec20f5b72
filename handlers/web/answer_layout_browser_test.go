package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
	"aula/tutor"
)

// layoutAnswer is a Markdown answer of the usual shape.
const layoutAnswer = "A **VLAN** splits one switch into separate networks; see [§ What a VLAN is](#what-a-vlan-is).\n\n" +
	"- **Broadcasts** stay inside their VLAN.\n- Hosts in two VLANs talk through a router.\n\n" +
	"```\nswitchport access vlan 10\n```\n"

// answerStates answers "stop…" and "hold…" questions word by word until
// stopped (a continuation ends them), and others with layoutAnswer.
func answerStates(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
	switch {
	case req.Partial != "":
		return emit(" and that is the end.")
	case strings.HasPrefix(req.Question, "stop"), strings.HasPrefix(req.Question, "hold"):
		for _, w := range strings.SplitAfter(strings.Repeat(layoutAnswer, 3), " ") {
			if err := emit(w); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(15 * time.Millisecond):
			}
		}
		<-ctx.Done()
		return ctx.Err()
	}
	return emit(layoutAnswer)
}

// The answer controls this issue added, in /chat and in the lesson panel,
// at the laptop and the phone size, light and dark: a regenerated answer
// ("2 / 2"), a stopped one offering Continue, Edit open on the last
// question, and an answer formatted while it streams. None is wider than
// its window; with AULA_SHOTS=DIR each is saved for a person to look at.
func TestLayoutAnswerStates(t *testing.T) {
	for _, where := range []string{"chat", "panel"} {
		t.Run(where, func(t *testing.T) {
			s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: answerStates}))
			s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
			b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
			openAsk(b, s, where)
			first := sendQ(b, "What is a VLAN?", false)
			waitStatus(b, first, "complete")
			waitFor(b, "Regenerate wired", fmt.Sprintf(`!!(document.querySelector('#m-%s .versions form:has(.regenerate)')||{})['htmx-internal-data']?.listenerInfos`, first))
			b.Click("#m-" + first + " button.regenerate")
			waitFor(b, "2 / 2", fmt.Sprintf(`document.querySelector('#m-%s[data-status=complete] .version-of')?.textContent === '2 / 2'`, first))
			formWired(b)
			stopped := sendQ(b, "stop: and trunks?", false)
			waitFor(b, "some words", fmt.Sprintf(`(document.getElementById('body-%s')||{textContent:''}).textContent.includes('splits')`, stopped))
			waitFor(b, "Stop wired", fmt.Sprintf(`!!(document.querySelector('#m-%s form.stop-form')||{})['htmx-internal-data']?.listenerInfos`, stopped))
			// The panel is drawn again around its first question: Stop once
			// the new Send has become Stop and HTMX has wired its form.
			waitFor(b, "Send to become Stop", `document.getElementById('send').dataset.mode === 'stop' && !!document.getElementById('ask-form')['htmx-internal-data']?.listenerInfos`)
			b.Click("#send")
			waitStatus(b, stopped, "cancelled")
			qid := eval[string](b, fmt.Sprintf(`document.getElementById('m-%s').previousElementSibling.id.slice(2)`, stopped))
			b.Click("#m-" + qid + " .edit-q summary")
			shots(b, "answers-"+where)

			b.Click("#m-" + qid + " .edit-q summary") // closed again
			formWired(b)
			held := sendQ(b, "hold: a long one", false)
			waitFor(b, "the draft formatted", fmt.Sprintf(`!!document.querySelector('#m-%s[data-status=streaming] #body-%s li strong')`, held, held))
			shots(b, "streaming-"+where)
		})
	}
}

// shots checks the page at both sizes and schemes fits its window, and
// saves each (AULA_SHOTS), scrolled to the newest message.
func shots(b *browser.Browser, name string) {
	b.T.Helper()
	for _, size := range []struct {
		name   string
		size   [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b.Viewport(size.size, size.mobile)
		for _, sch := range []string{"light", "dark"} {
			b.ColorScheme(sch)
			eval[bool](b, `(m => (m && (m.scrollTop = m.scrollHeight), true))(document.getElementById('messages'))`)
			if w := eval[float64](b, `document.documentElement.scrollWidth`); w > float64(size.size[0]) {
				b.Errorf("%s is %.0f px wide in a %d px window", name, w, size.size[0])
			}
			b.Shot(shotsDir(), name+"-"+size.name+"-"+sch)
		}
	}
}
