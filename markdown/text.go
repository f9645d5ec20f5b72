package markdown

import (
	"strings"

	"golang.org/x/net/html"
)

// AnswerText is what a reader hears of a tutor answer: the text of its
// rendered HTML, without Markdown punctuation (**, #, backticks) or tags,
// blocks separated by a space and runs of white space collapsed. Screen
// readers read it from the page's live region.
func AnswerText(src string) string { return htmlText(RenderAnswer(src)) }

// LessonText is the text a reader sees of lesson Markdown, the same way
// (what a student selects on the page), without touching the page cache:
// the tutor compares a selected passage with it.
func LessonText(src string) string { return htmlText(convertLesson(lessonMD, src, SectionLinks{})) }

// htmlText is the text of sanitized HTML, blocks separated by a space.
func htmlText(doc string) string {
	z := html.NewTokenizer(strings.NewReader(doc))
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			// Block boundaries (</p>, <li>, <br>) must not glue words together;
			// inline tags (<strong>, <code>) sit inside words and sentences.
			if name, _ := z.TagName(); blockTags[string(name)] {
				b.WriteByte(' ')
			}
		}
	}
}

var blockTags = map[string]bool{"p": true, "br": true, "li": true, "pre": true, "div": true, "blockquote": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "tr": true, "td": true, "th": true, "hr": true}
