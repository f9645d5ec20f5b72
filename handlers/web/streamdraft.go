package web

import (
	"context"
	"regexp"
	"strings"
	"time"
	"unicode"

	"aula/markdown"
)

// draft is the Markdown of an answer in flight, for a reader that asked
// for it rendered (?render=1, the site's bubble). Tokens still reach the
// reader as the provider emits them, as `chunk` text; at most every
// `every` the text so far goes out rendered as `md`: the blocks finished
// since the last (each rendered once, markdown.Draft), then the rendering
// of the open ones, which replaces the last. Together they are the whole
// text's rendering, so a draft equals the finished answer's HTML; the
// pause bounds the cost of the open blocks.
type draft struct {
	on    bool
	text  strings.Builder
	shown int // bytes covered by the last `md`
	every time.Duration
	last  time.Time
	timer *time.Timer
	links *markdown.SectionLinks
	md    markdown.Draft
}

// renderStep is the length of the open blocks by which the pause between
// renderings grows.
const renderStep = 4 << 10

func newDraft(on bool, every time.Duration) *draft {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &draft{on: on, every: every, timer: t}
}

// from is where the subscription starts for a reader at offset: a draft
// renders the whole text, though only what the reader lacks is sent.
func (d *draft) from(offset int) int {
	if d.on {
		return 0
	}
	return offset
}

// add keeps the text the subscription read.
func (d *draft) add(text string) {
	if d.on {
		d.text.WriteString(text)
	}
}

// renderCrowd is how many streams open at once lengthen the pause by one
// more `every`.
const renderCrowd = 100

// due says whether a render should go out now, with open streams open in
// the process; when one is pending but too soon after the last, it arms
// the timer that wakes the reader.
func (d *draft) due(now time.Time, open int) bool {
	if !d.on || d.text.Len() == d.shown {
		return false
	}
	// The pause grows with the open blocks, so the rendering's cost per
	// second stays flat however long a block gets (each rendering costs
	// their length), and with the streams open, so a class reading at once
	// costs the process about as many renderings per second as a hundred
	// students do: the chunks still come as they are written, the
	// formatting follows later.
	every := d.every * time.Duration(1+(d.text.Len()-d.md.Final())/renderStep) * time.Duration(1+max(open, 0)/renderCrowd)
	if wait := every - now.Sub(d.last); wait > 0 {
		d.timer.Reset(wait)
		return false
	}
	return true
}

// render is the text so far as the next `md`: see markdown.Draft.
func (d *draft) render(now time.Time, links markdown.SectionLinks) markdown.DraftStep {
	d.last, d.shown = now, d.text.Len()
	return d.md.Step(d.text.String(), links)
}

// draftBody splits an answer in flight into its rendering and its
// trailing white space, which stays raw text where the next token goes
// (Markdown would drop it, and the cursor would stick to the last word):
// the page's bubble, drawn whole.
func draftBody(text string, links markdown.SectionLinks) (html, tail string) {
	body := strings.TrimRightFunc(text, unicode.IsSpace)
	return strings.TrimSuffix(markdown.RenderAnswerDraft(body, links), "\n"), text[len(body):]
}

// draftLinks is where a draft's section links point: the thread's own
// lesson (the citations of other lessons are only known once it ends).
func (a *App) draftLinks(ctx context.Context, userID, mid string, inPanel bool) markdown.SectionLinks {
	if inPanel {
		return markdown.SectionLinks{} // beside the lesson, "#anchor" is its section
	}
	m, err := a.Messages.Get(ctx, userID, mid)
	if err != nil {
		return markdown.SectionLinks{}
	}
	conv, err := a.Conversations.Get(ctx, userID, m.ConversationID)
	if err != nil || conv.LessonID == nil {
		return markdown.SectionLinks{}
	}
	_, paths, err := a.Content.CitationTargets(ctx, []string{*conv.LessonID})
	if err != nil {
		return markdown.SectionLinks{}
	}
	return answerLinks(nil, conv, paths, false)
}

// sectionLink finds what Markdown could read as a link to a section
// ("#anchor"): an inline destination, or a reference definition's.
var sectionLink = regexp.MustCompile(`\(\s*<?#|\]:\s*<?#`)

// linksFor computes the draft's links once, at the first render whose
// text holds a section link: until then they change nothing, and a class
// asking at once spares a read per answer. Only the open blocks are
// searched: the finished ones were when they were open.
func (a *App) linksFor(ctx context.Context, d *draft, userID, mid string, inPanel bool) markdown.SectionLinks {
	if d.links == nil && !sectionLink.MatchString(d.text.String()[d.md.Final():]) {
		return markdown.SectionLinks{}
	}
	if d.links == nil {
		l := a.draftLinks(ctx, userID, mid, inPanel)
		d.links = &l
	}
	return *d.links
}
