package markdown

import (
	"strings"
	"testing"
)

func TestSplitAtHeadings(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		anchors []string
	}{
		{"no heading", "Just text.\n", []string{""}},
		{"intro and two sections", "Intro.\n\n## First\n\nOne.\n\n### Sub\n\nx\n\n## Second `code`\n\nTwo.\n", []string{"first", "second-code", ""}},
		{"heading first", "## Only\n\nText.\n", []string{"only", ""}},
		{"headings in code stay text", "```html\n<h2 id=\"fake\">no</h2>\n```\n\n## Real\n\nText.\n", []string{"real", ""}},
		{"accented heading", "## Qué es una VLAN\n\nTexto.\n", []string{"que-es-una-vlan", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			html := Render(tt.src)
			parts := SplitAtHeadings(html)
			var anchors []string
			var joined strings.Builder
			for _, p := range parts {
				anchors = append(anchors, p.Anchor)
				joined.WriteString(p.HTML)
				if p.Anchor != "" && !strings.HasSuffix(p.HTML, "</h2>") {
					t.Errorf("piece of %q does not end with its heading: %q", p.Anchor, p.HTML)
				}
			}
			if strings.Join(anchors, ",") != strings.Join(tt.anchors, ",") {
				t.Errorf("anchors %q, want %q", anchors, tt.anchors)
			}
			if joined.String() != html {
				t.Errorf("the pieces do not add up to the lesson")
			}
			// Each heading's anchor is the anchor Chunks gives its section.
			chunkAnchors := map[string]bool{}
			for _, c := range Chunks("T", tt.src) {
				chunkAnchors[c.Anchor] = true
			}
			for _, a := range anchors {
				if a != "" && !chunkAnchors[a] {
					t.Errorf("anchor %q is no chunk's (%v)", a, chunkAnchors)
				}
			}
		})
	}
}
