package markdown

import (
	"html"
	"strings"
)

// Section is a piece of a rendered lesson: the HTML up to and including
// the H2 heading whose id is Anchor, or, last, the rest of the lesson
// after its last H2 (Anchor "").
type Section struct {
	HTML   string
	Anchor string
}

// SplitAtHeadings cuts Render's output after each H2 heading, so a page
// can place something of its own (a section's state, a button) under each
// heading while the lesson's HTML stays exactly as Render made it. Render
// writes raw HTML from lessons escaped, so every "<h2 id=" in its output
// is a real heading.
func SplitAtHeadings(rendered string) []Section {
	var out []Section
	rest := rendered
	for {
		start := strings.Index(rest, `<h2 id="`)
		if start < 0 {
			break
		}
		end := strings.Index(rest[start:], "</h2>")
		if end < 0 {
			break
		}
		end += start + len("</h2>")
		idStart := start + len(`<h2 id="`)
		anchor, _, _ := strings.Cut(rest[idStart:], `"`)
		out = append(out, Section{HTML: rest[:end], Anchor: html.UnescapeString(anchor)})
		rest = rest[end:]
	}
	return append(out, Section{HTML: rest})
}
