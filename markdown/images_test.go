package markdown

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// A lesson's image as the editor inserts it renders as an <img> of this
// site's /media with its alt, in a lesson and in an answer; a src that
// could run script or carry data (javascript:, data:, vbscript:) is
// dropped, and an image never gains an event handler.
func TestRenderImages(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for name, render := range map[string]func(string) string{"lesson": Render, "answer": RenderAnswer} {
		out := render("![A router's ports](/media/" + sha + ".png)")
		img := imgs(t, out)
		if img.Length() != 1 || img.AttrOr("src", "") != "/media/"+sha+".png" || img.AttrOr("alt", "") != "A router's ports" {
			t.Fatalf("%s: the image is not rendered: %s", name, out)
		}
		for _, src := range []string{
			"javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:image/png;base64,iVBORw0KGgo=",
			"data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)",
		} {
			md := "![x](" + src + ")\n\n![y](<" + src + ">)"
			out := render(md)
			assertInert(t, md, out)
			imgs(t, out).Each(func(_ int, s *goquery.Selection) {
				if v, ok := s.Attr("src"); ok {
					t.Errorf("%s: %q kept the src %q: %s", name, src, v, out)
				}
			})
		}
	}
}

// The alt the editor writes (models.CleanAlt, escaped by the view) comes
// back as the same text, Markdown punctuation included.
func TestRenderImageAltEscapes(t *testing.T) {
	out := Render(`![Figure 1: Router \*A\* \[core\] \\ \<b\> \& \~x\~ \| \_y\_ "q"? 50%](/media/x.png)`)
	if got := imgs(t, out).AttrOr("alt", ""); got != `Figure 1: Router *A* [core] \ <b> & ~x~ | _y_ "q"? 50%` {
		t.Fatalf("alt = %q: %s", got, out)
	}
}

func imgs(t *testing.T, out string) *goquery.Selection {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return doc.Find("img")
}
