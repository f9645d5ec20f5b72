package markdown

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// assertInert fails when rendered HTML could run script: a script-like
// element, an event-handler attribute, or a URL attribute with a scheme other
// than http, https or mailto. It tokenizes instead of grepping because text
// such as "onload=" inside a paragraph is harmless and legitimately present.
func assertInert(t testing.TB, src, out string) {
	t.Helper()
	if strings.Contains(strings.ToLower(out), "<script") {
		t.Fatalf("output contains <script\nsrc: %q\nout: %s", src, out)
	}
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		switch tok.Data {
		case "script", "iframe", "object", "embed", "style", "link", "meta", "form", "svg", "math", "base":
			t.Fatalf("dangerous element <%s>\nsrc: %q\nout: %s", tok.Data, src, out)
		}
		for _, a := range tok.Attr {
			key := strings.ToLower(a.Key)
			if strings.HasPrefix(key, "on") || key == "style" || key == "srcdoc" || key == "formaction" {
				t.Fatalf("dangerous attribute %s=%q\nsrc: %q\nout: %s", a.Key, a.Val, src, out)
			}
			if key == "href" || key == "src" || key == "cite" || key == "action" {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				if i := strings.IndexByte(v, ':'); i >= 0 && !strings.ContainsAny(v[:i], "/?#") {
					switch v[:i] {
					case "http", "https", "mailto":
					default:
						t.Fatalf("dangerous URL %s=%q\nsrc: %q\nout: %s", a.Key, a.Val, src, out)
					}
				}
			}
		}
	}
}

var xssPayloads = []string{
	`<script>alert(1)</script>`,
	"<script>\nalert(1)\n</script>\n\ntext",
	`<img src=x onerror=alert(1)>`,
	`Inline <img src=x onerror="alert(1)"> image`,
	`[click](javascript:alert(1))`,
	`[click](JaVaScRiPt:alert(1))`,
	`[click](  javascript:alert(1) "t")`,
	"[click](java\tscript:alert(1))",
	`[click](&#106;avascript:alert(1))`,
	`<a href="javascript:alert(1)">x</a>`,
	"<div onclick=\"alert(1)\">\n\nblock\n\n</div>",
	`<iframe src="https://evil.example"></iframe>`,
	"<iframe srcdoc=\"<script>alert(1)</script>\">",
	`<p onmouseover="alert(1)">hover</p>`,
	`<svg onload=alert(1)>`,
	`<math><mi xlink:href="javascript:alert(1)">x</mi></math>`,
	`![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)`,
	`[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
	`![x](javascript:alert(1))`,
	`<style>body{display:none}</style>`,
	`<form action="javascript:alert(1)"><button>x</button></form>`,
	"```\"><script>alert(1)</script>\ncode\n```",
	"```go onload=alert(1)\nfmt.Println(1)\n```",
	"## <img src=x onerror=alert(1)>",
	"[ref]\n\n[ref]: javascript:alert(1)",
	"<javascript:alert(1)>",
	"www.example.com/<script>",
	`<a href="vbscript:msgbox(1)">x</a>`,
	"<!-- <script>alert(1)</script> -->",
	`<base href="https://evil.example/">`,
	`<object data="x.swf"></object>`,
}

func TestRenderXSSInert(t *testing.T) {
	for _, p := range xssPayloads {
		t.Run(p, func(t *testing.T) {
			assertInert(t, p, Render(p))
			assertInert(t, p, RenderAnswer(p))
		})
	}
}

func TestRenderRawHTMLOmitted(t *testing.T) {
	out := Render("before\n\n<div class=\"btn\">raw</div>\n\nafter <b>bold</b>")
	for _, bad := range []string{"<div", "<b>", "btn"} {
		if strings.Contains(out, bad) {
			t.Errorf("raw HTML leaked %q: %s", bad, out)
		}
	}
	if !strings.Contains(out, "before") || !strings.Contains(out, "after") {
		t.Errorf("surrounding text lost: %s", out)
	}
}

func TestRenderLinks(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"[a](https://example.com)", `<a href="https://example.com" rel="nofollow noopener">a</a>`},
		{"[a](http://example.com/x?y=1)", `<a href="http://example.com/x?y=1" rel="nofollow noopener">a</a>`},
		{"[a](mailto:a@example.com)", `<a href="mailto:a@example.com" rel="nofollow noopener">a</a>`},
		{"[a](/learn/redes/l1#vlan)", `<a href="/learn/redes/l1#vlan" rel="nofollow noopener">a</a>`},
		{"[a](#configuracion-de-vlan)", `<a href="#configuracion-de-vlan" rel="nofollow noopener">a</a>`},
		{"see https://go.dev now", `<a href="https://go.dev" rel="nofollow noopener">https://go.dev</a>`},
		{"[a](ftp://example.com)", `<a rel="nofollow noopener">a</a>`},
	}
	for _, tt := range tests {
		if got := Render(tt.src); !strings.Contains(got, tt.want) {
			t.Errorf("Render(%q) = %s, want it to contain %s", tt.src, got, tt.want)
		}
	}
}

func TestRenderGFM(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"table", "| a | b |\n|:--|--:|\n| 1 | 2 |", []string{"<table>", `<th align="left">a</th>`, `<td align="right">2</td>`}},
		{"strikethrough", "~~old~~ new", []string{"<del>old</del>"}},
		{"tasklist", "- [x] done\n- [ ] todo", []string{`<input checked="" disabled="" type="checkbox">`, `<input disabled="" type="checkbox">`}},
		{"autolink", "visit www.example.com", []string{`href="http://www.example.com"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Render(tt.src)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %s in %s", w, out)
				}
			}
		})
	}
}

func TestRenderCodeHighlight(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
		not       []string
	}{
		{
			name: "go",
			src:  "```go\nfunc main() {}\n```",
			want: []string{`<pre class="chroma">`, `<code class="language-go">`, `<span class="kd">func</span>`, `<span class="nf">main</span>`},
		},
		{
			name: "cisco ios config as unknown language falls back to plain chroma",
			src:  "```nosuchlang\nswitchport mode trunk\n```",
			want: []string{`<pre class="chroma">`, `<code class="language-nosuchlang">`, "switchport mode trunk"},
		},
		{
			name: "no language",
			src:  "```\n<b>not html</b>\n```",
			want: []string{`<pre class="chroma"><code>`, "&lt;b&gt;not html&lt;/b&gt;"},
			not:  []string{"<b>"},
		},
		{
			name: "hostile info string dropped",
			src:  "```\"onmouseover=x\nx := 1\n```",
			want: []string{`<pre class="chroma"><code>`},
			not:  []string{"onmouseover"},
		},
		{
			name: "indented code stays plain",
			src:  "text\n\n    x := 1\n",
			want: []string{"<pre><code>x := 1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Render(tt.src)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %s in %s", w, out)
				}
			}
			for _, n := range append(tt.not, "style=") {
				if strings.Contains(out, n) {
					t.Errorf("unexpected %s in %s", n, out)
				}
			}
		})
	}
}

func TestHighlightCSS(t *testing.T) {
	css := HighlightCSS()
	for _, w := range []string{".chroma", ".chroma .kd", "@media (prefers-color-scheme: dark) {"} {
		if !strings.Contains(css, w) {
			t.Errorf("HighlightCSS missing %q", w)
		}
	}
	if strings.Count(css, "{") != strings.Count(css, "}") {
		t.Error("HighlightCSS has unbalanced braces")
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Configuración de VLAN", "configuracion-de-vlan"},
		{"¿Qué es una VLAN?", "que-es-una-vlan"},
		{"Añadir un puerto", "anadir-un-puerto"},
		{"Pingüino über Straße", "pinguino-uber-straße"},
		{"TCP / IP: the basics", "tcp-ip-the-basics"},
		{"  Go 1.26 generics  ", "go-126-generics"},
		{"snake_case and-dash", "snake-case-and-dash"},
		{"日本語 見出し", "日本語-見出し"},
		{"!!!", "heading"},
		{"", "heading"},
	}
	for _, tt := range tests {
		if got := Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

var h2ID = regexp.MustCompile(`<h2 id="([^"]*)">`)

func TestHeadingIDsMatchChunkAnchors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "duplicates",
			src:  "## Ejemplo\n\na\n\n## Ejemplo\n\nb\n\n## Ejemplo\n\nc\n",
			want: []string{"ejemplo", "ejemplo-1", "ejemplo-2"},
		},
		{
			name: "spanish",
			src:  "## Configuración de VLAN\n\na\n\n## ¿Por qué segmentar la red?\n\nb\n\n## Añadir puertos al *trunk*\n\nc\n",
			want: []string{"configuracion-de-vlan", "por-que-segmentar-la-red", "anadir-puertos-al-trunk"},
		},
		{
			name: "h1 and h3 share the dedup namespace",
			src:  "# Resumen\n\nx\n\n### Resumen\n\ny\n\n## Resumen\n\nz\n",
			want: []string{"resumen-2"},
		},
		{
			name: "collides with an explicit suffix",
			src:  "## Paso 1\n\na\n\n## Paso\n\nb\n\n## Paso\n\nc\n",
			want: []string{"paso-1", "paso", "paso-2"},
		},
		{
			name: "setext and inline markup",
			src:  "Subredes `/24`\n-------------\n\ntext\n\n## [Enlace](https://x.example) y **negrita**\n\nmore\n",
			want: []string{"subredes-24", "enlace-y-negrita"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ids []string
			for _, m := range h2ID.FindAllStringSubmatch(Render(tt.src), -1) {
				ids = append(ids, m[1])
			}
			var anchors []string
			for _, c := range Chunks("Lección", tt.src) {
				if c.Anchor != "" {
					anchors = append(anchors, c.Anchor)
				}
			}
			if fmt.Sprint(ids) != fmt.Sprint(tt.want) {
				t.Errorf("Render h2 ids = %q, want %q", ids, tt.want)
			}
			if fmt.Sprint(anchors) != fmt.Sprint(tt.want) {
				t.Errorf("Chunks anchors = %q, want %q", anchors, tt.want)
			}
		})
	}
}

func TestChunks(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Chunk
	}{
		{
			name: "intro, sections and h3 kept inside",
			src:  "VLANs split a switch.\n\n## What is a VLAN\n\nA broadcast domain.\n\n### Tagging\n\n802.1Q.\n\n## Trunks\n\nCarry many VLANs.\n",
			want: []Chunk{
				{Heading: "VLANs", Anchor: "", Text: "VLANs split a switch.", Position: 0},
				{Heading: "What is a VLAN", Anchor: "what-is-a-vlan", Text: "A broadcast domain.\n\n### Tagging\n\n802.1Q.", Position: 1},
				{Heading: "Trunks", Anchor: "trunks", Text: "Carry many VLANs.", Position: 2},
			},
		},
		{
			name: "## inside a code fence does not split",
			src:  "## Script\n\n```bash\n## comment, not a heading\necho hi\n```\n\n~~~\n## also not\n~~~\n",
			want: []Chunk{
				{Heading: "Script", Anchor: "script", Text: "```bash\n## comment, not a heading\necho hi\n```\n\n~~~\n## also not\n~~~", Position: 0},
			},
		},
		{
			name: "no intro, empty section skipped",
			src:  "## Vacía\n\n## Llena\n\ntexto\n",
			want: []Chunk{
				{Heading: "Llena", Anchor: "llena", Text: "texto", Position: 0},
			},
		},
		{
			name: "intro of only an h1 is skipped",
			src:  "# VLANs\n\n## Uno\n\nuno\n",
			want: []Chunk{
				{Heading: "Uno", Anchor: "uno", Text: "uno", Position: 0},
			},
		},
		{
			name: "no h2 at all",
			src:  "Just a note.\n\n### Small\n\nmore",
			want: []Chunk{
				{Heading: "VLANs", Anchor: "", Text: "Just a note.\n\n### Small\n\nmore", Position: 0},
			},
		},
		{
			name: "h2 inside a blockquote does not split",
			src:  "## Real\n\n> ## Quoted\n> text\n",
			want: []Chunk{
				{Heading: "Real", Anchor: "real", Text: "> ## Quoted\n> text", Position: 0},
			},
		},
		{
			name: "empty", src: "", want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Chunks("VLANs", tt.src)
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("Chunks =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestChunksSplitsLongSections(t *testing.T) {
	para := strings.Repeat("Una VLAN separa dominios de difusión. ", 20) // ~760 chars
	var b strings.Builder
	b.WriteString("## Larga\n\n")
	for range 8 {
		b.WriteString(para + "\n\n")
	}
	b.WriteString("```go\n" + strings.Repeat("x := 1 // ## not a heading\n", 120) + "```\n\n## Corta\n\nfin\n")
	chunks := Chunks("T", b.String())

	var long []Chunk
	for i, c := range chunks {
		if c.Position != i {
			t.Errorf("chunk %d has Position %d", i, c.Position)
		}
		if c.Anchor == "larga" {
			long = append(long, c)
		}
	}
	if len(long) < 3 {
		t.Fatalf("long section gave %d chunks, want at least 3", len(long))
	}
	for _, c := range long {
		if c.Heading != "Larga" {
			t.Errorf("split chunk heading %q", c.Heading)
		}
		if strings.Count(c.Text, "```")%2 != 0 {
			t.Errorf("a code fence was cut: %q", c.Text[:80])
		}
	}
	// Only a single oversized block (the code) may exceed the limit.
	for _, c := range long[:len(long)-1] {
		if n := len([]rune(c.Text)); n > MaxChunkChars {
			t.Errorf("chunk of %d chars exceeds %d", n, MaxChunkChars)
		}
	}
	if last := chunks[len(chunks)-1]; last.Anchor != "corta" || last.Text != "fin" {
		t.Errorf("last chunk = %+v", last)
	}
}

func TestRenderAnswerHasNoIDs(t *testing.T) {
	out := RenderAnswer("## body 12\n\ntext [a](https://x.example)")
	if strings.Contains(out, "id=") {
		t.Errorf("RenderAnswer emitted an id: %s", out)
	}
	if !strings.Contains(out, `rel="nofollow noopener"`) {
		t.Errorf("RenderAnswer link without rel: %s", out)
	}
}

func TestRenderCacheBounded(t *testing.T) {
	for i := range renderCacheSize + 10 {
		Render(fmt.Sprintf("## S %d", i))
	}
	if n := len(renderCache.m); n > renderCacheSize {
		t.Errorf("cache holds %d entries, limit %d", n, renderCacheSize)
	}
	if got := Render("## S 3"); !strings.Contains(got, `id="s-3"`) {
		t.Errorf("render after eviction = %s", got)
	}
}

func lesson10K() string {
	var b strings.Builder
	b.WriteString("# VLANs y trunks\n\nEn esta lección configuramos **VLANs** en un switch Cisco.\n\n")
	for i := 0; b.Len() < 10*1024; i++ {
		fmt.Fprintf(&b, "## Sección %d: configuración\n\n", i)
		b.WriteString("Una VLAN separa dominios de difusión; un *trunk* 802.1Q las transporta. Ver [docs](https://example.com/vlan).\n\n")
		b.WriteString("- [x] crear la VLAN\n- [ ] asignar puertos\n\n| puerto | vlan |\n|:--|--:|\n| Gi0/1 | 10 |\n\n")
		b.WriteString("```go\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println(\"vlan\", i)\n\t}\n}\n```\n\n")
	}
	return b.String()
}

// BenchmarkRender measures a full uncached render; BenchmarkRenderCached
// what a repeat view of the same lesson costs.
func BenchmarkRender(b *testing.B) {
	src := lesson10K()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		convert(lessonMD, src)
	}
}

func BenchmarkRenderCached(b *testing.B) {
	src := lesson10K()
	b.SetBytes(int64(len(src)))
	Render(src)
	for b.Loop() {
		Render(src)
	}
}

func BenchmarkChunks(b *testing.B) {
	src := lesson10K()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		Chunks("VLANs", src)
	}
}

func TestAnswerText(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"**VLANs** split a switch.\n\n- one\n- two", "VLANs split a switch. one two"},
		{"# Title\n\nUse `go build` & run.", "Title Use go build & run."},
		{"```go\nx := 1\n```", "x := 1"},
	} {
		if got := AnswerText(tt.src); got != tt.want {
			t.Errorf("AnswerText(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// Section links point where they are rendered for, by construction: the
// answer's own lesson, another lesson's page for an anchor listed there,
// or the page showing the answer; other links are left alone.
func TestRenderAnswerAtLinks(t *testing.T) {
	src := "See [§ Zero values](#zero-values), [§ VLANs](#creating-vlans) and [Go](https://go.dev/#top)."
	own, other := "/learn/go-basics/go-variables-types", "/learn/networking/vlan-cisco-ios"
	cases := []struct {
		name  string
		links SectionLinks
		want  []string
	}{
		{"none", SectionLinks{}, []string{`href="#zero-values"`, `href="#creating-vlans"`}},
		{"base", SectionLinks{Base: own}, []string{`href="` + own + `#zero-values"`, `href="` + own + `#creating-vlans"`}},
		{"another lesson", SectionLinks{Anchors: map[string]string{"creating-vlans": other}},
			[]string{`href="#zero-values"`, `href="` + other + `#creating-vlans"`}},
		{"both", SectionLinks{Base: own, Anchors: map[string]string{"creating-vlans": other}},
			[]string{`href="` + own + `#zero-values"`, `href="` + other + `#creating-vlans"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := RenderAnswerAt(src, tc.links)
			for _, w := range append(tc.want, `href="https://go.dev/#top"`) {
				if !strings.Contains(out, w) {
					t.Errorf("%s: no %s in %s", tc.name, w, out)
				}
			}
		})
	}
}
