package markdown

import (
	"strings"
	"testing"
)

// A draft is rendered by the very conversion the finished answer goes
// through: for the same text and links the HTML is byte-identical, so an
// answer's last draft and its final rendering never differ.
func TestRenderAnswerDraftIsTheFinalRendering(t *testing.T) {
	links := SectionLinks{Base: "/learn/net/vlans", Anchors: map[string]string{"dns": "/learn/net/dns"}}
	for _, tc := range []struct{ name, src string }{
		{"bold and list", "Use **bold**:\n\n- one\n- two\n"},
		{"unclosed bold", "Use **bol"},
		{"section links", "See [§ VLANs](#vlans) and [§ DNS](#dns)."},
		{"unclosed fence", "```go\nfmt.Println(1)\n"},
		{"raw html stays text", "<script>alert(1)</script> and <b>b</b>"},
		{"past the Markdown limit", strings.Repeat("word ", MaxAnswerBytes/4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, l := range []SectionLinks{{}, links} {
				if d, f := RenderAnswerDraft(tc.src, l), RenderAnswerAt(tc.src, l); d != f {
					t.Fatalf("draft\n%s\nfinal\n%s", d, f)
				}
			}
		})
	}
}

// BenchmarkRenderAnswerDraft is the cost of one draft rendering of a
// 2 KB answer, the unit the streaming renderer pays every RenderEvery.
func BenchmarkRenderAnswerDraft(b *testing.B) {
	src := strings.Repeat("Use **bold** and `code` with [§ VLANs](#vlans):\n\n- one\n- two\n\n", 40)[:2048]
	for b.Loop() {
		RenderAnswerDraft(src, SectionLinks{Base: "/learn/net/vlans"})
	}
}
