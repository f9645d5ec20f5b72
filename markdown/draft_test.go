package markdown

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
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

// draftAnswers are answers of every shape a block can take, and the
// shapes that must not be cut: a fence or HTML holding blank lines, lists
// loose and tight, indented continuations, setext headings, tables,
// quotes, link reference definitions, section links.
var draftAnswers = map[string]string{
	"realistic":        draftBenchAnswer,
	"paragraphs":       "One **bold** line.\nA second line of it.\n\nTwo.\n\n\nThree, after two blank lines.\n",
	"one paragraph":    strings.Repeat("w1 w2 w3 ", 60),
	"tight list":       "Steps:\n\n- one\n- two\n- three\n\nAfter the list.\n\n1. first\n2. second\n\nEnd.",
	"loose after para": "Intro.\n\n- one\n\n- two\n\n  more of two\n\n- three\n\n1. a\n\n2. b\n\n> q\n\n> r\n\nEnd.",
	"loose list":       "- one\n\n- two\n\n- three\n\nAfter.\n\n* other bullet\n\n+ third bullet\n\nEnd.",
	"list continued":   "Do this:\n\n1. Install:\n\n   ```sh\n   go install\n\n   go version\n   ```\n\n   Then run it.\n\n2. Check:\n\n       indented code\n\n   done\n\nAfter.\n",
	"empty items":      "-\n\n-\n\nfoo\n\n-\n\n  bar\n\nbaz",
	"fence blank":      "Code:\n\n```go\nfunc main() {\n\n\tfmt.Println(1)\n}\n\n```\n\nAfter the code.\n\n~~~\n\nx\n~~~\n\nEnd.",
	"fence unclosed":   "Before.\n\n```\ncode\n\nmore code\n\nstill code",
	"fence in fence":   "````md\n```go\nx\n```\n\nnot a cut\n````\n\nAfter.",
	"fence closer cut": "```\n\n```\npara\n\nnext",
	"fence info tick":  "Para\n```a`\ncontinued\n\nnext\n\n```b\n\nin fence\n```\n\ndone",
	"indented code":    "Para.\n\n    code one\n\n    code two\n\nAfter.\n\n\tcode tab\n\nEnd.",
	"setext":           "Title\n=====\n\nSub\n---\n\nText\n\n---\n\nMore\n***\nEnd\n\n===\n",
	"atx":              "# One\n\nText.\n\n## Two ##\n\n### Three\nText.\n\n#### Configuración\n\nFin.",
	"table":            "Compare:\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 | 4 |\n\nAfter.\n\nPara\n| x | y |\n|---|---|\n| 5 | 6 |\n\nEnd.",
	"quote":            "> one\n> two\n\n> three\n\nlazy:\n\n> quote\nlazy line\n\n>> nested\n\nEnd.",
	"html blocks":      "Para.\n\n<!--\n\ncomment\n\n-->\n\nAfter.\n\n<div>\n\n*md*\n\n</div>\n\n<pre>\n\nx\n\n</pre>\n\nEnd <b>b</b>.",
	"ref definition":   "See [the docs][d] and [§ VLANs][v].\n\nMore text.\n\n[d]: https://go.dev\n[v]: #vlans\n\nAfter.",
	"ref late":         "[x] is used.\n\nFiller.\n\nMore filler.\n\n[x]: /late",
	"section links":    "See [§ VLANs](#vlans).\n\nAnd [§ DNS](#dns), [intro](#).\n\n- [§ a](#a)\n\nEnd.",
	"task list":        "- [ ] todo\n- [x] done\n\nText ~~old~~ new, www.example.com.\n\nEnd.",
	"headings and hr":  "Intro\n\n***\n\n## After rule\n\n___\n\nEnd",
	"crlf":             "One\r\n\r\nTwo\r\n\r\n- a\r\n- b\r\n\r\nEnd",
	"deep nesting":     strings.Repeat(">", 40) + " deep\n\n" + strings.Repeat("- ", 30) + "x\n\nEnd.",
	"many delimiters":  strings.Repeat("*a_", 400) + "\n" + strings.Repeat("`b[", 300) + "\n\nNext " + strings.Repeat("*c", 10) + ".",
	"bound's fence":    "```a`\n\nnext " + strings.Repeat("*a* ", 300) + "\n\nEnd " + strings.Repeat("*b_", 200) + ".",
	"spaces only":      "   \n\n  \t\n",
	"trailing space":   "One.  \n\nTwo.\n\n   ",
	// A table cut from a paragraph's last line, then undone by the next
	// token: the paragraph before it is not finished (found by FuzzDraft).
	"table undone":   "\n0\n0\n-|",
	"table undone 2": "Intro.\n\n0\n0\n-||\n\nA\n\nB\nC\n-|\n\nEnd.",
}

// draftBenchAnswer is a tutor answer of the usual shape, about 2.5 KB:
// paragraphs, a § link, a list, a code fence and a table.
const draftBenchAnswer = "A **VLAN** splits one switch into several broadcast domains, " +
	"as [§ What a VLAN is](#what-a-vlan-is) explains. Each port belongs to one VLAN, and a frame " +
	"that enters a port only leaves through ports of the same VLAN.\n\n" +
	"Three problems appear as a network grows:\n\n" +
	"1. **Broadcast traffic** reaches every port, so every host pays for it.\n" +
	"2. **Security**: any host can reach any other on the same segment.\n" +
	"3. **Moves** between floors need recabling instead of a setting.\n\n" +
	"To put a port in VLAN 10 on a Cisco switch:\n\n" +
	"```\ninterface GigabitEthernet0/1\n switchport mode access\n switchport access vlan 10\n no shutdown\n```\n\n" +
	"A *trunk* carries several VLANs between switches, each frame tagged with its VLAN id (802.1Q); " +
	"see [§ Trunks](#trunks). Hosts in different VLANs talk through a router or a layer 3 switch, " +
	"which is where you filter what may cross.\n\n" +
	"| Port type | VLANs | Tagged |\n| --- | --- | :---: |\n| access | one | no |\n| trunk | many | yes |\n| native | one per trunk | no |\n\n" +
	"## Good habits\n\n" +
	"- Keep management on its own VLAN.\n- Do not use VLAN 1 for users.\n- Document which port is in which VLAN,\n  and review it when a floor moves.\n\n" +
	"```go\n// A frame's VLAN decides where it may go.\nfunc allowed(in, out Port) bool {\n\treturn in.VLAN == out.VLAN\n}\n```\n\n" +
	"A common mistake is a trunk whose two ends disagree on the native VLAN: frames of one VLAN " +
	"then arrive in another, silently. Check both ends with `show interfaces trunk`, and prefer " +
	"tagging every VLAN so none travels untagged.\n\n" +
	"> A VLAN is a setting, not a cable: moving a desk is a change of one line.\n\n" +
	"### Why not one big network?\n\n" +
	"Every broadcast a host sends (an ARP request, a DHCP discover) reaches every other host of its " +
	"broadcast domain, and each of them spends a little time on it. With fifty hosts nobody notices; " +
	"with two thousand the broadcasts alone can take a visible share of every link, and one faulty " +
	"card sending them in a loop can stop the whole floor. Splitting the hosts into VLANs bounds " +
	"how far any broadcast travels.\n\n" +
	"Steps to plan the VLANs of a small office:\n\n" +
	"1. List the groups of hosts that need to talk to each other often.\n" +
	"2. Give each group a VLAN number and a subnet (for example VLAN 10 and 10.0.10.0/24).\n" +
	"3. Decide which router interface or layer 3 switch routes between them, and what it filters.\n" +
	"4. Write it down before touching a switch.\n\n" +
	"Try it: which VLAN would you give the printers, and why? Write the `switchport` lines for one of them, " +
	"then say what a host in VLAN 20 must go through to print."

// replayDraft feeds src to a Draft in tokens cut at random points and
// checks every step: the blocks it finished, then its open part, are the
// whole text's draft rendering. It returns the bytes rendered as open.
func replayDraft(t *testing.T, src string, links SectionLinks, rng *rand.Rand) (final, openBytes int) {
	t.Helper()
	var d Draft
	shown := ""
	for end := 0; end < len(src); {
		end = min(len(src), end+1+rng.IntN(12))
		text := src[:end]
		s := d.Step(text, links)
		if s.Reset {
			shown = ""
		}
		shown += s.Final
		body := strings.TrimRightFunc(text, unicode.IsSpace)
		if want := strings.TrimSuffix(RenderAnswerDraft(body, links), "\n"); shown+s.Open != want {
			t.Fatalf("after %q\nthe draft shows\n%s\nthe whole renders\n%s", text, shown+s.Open, want)
		}
		if s.Tail != text[len(body):] {
			t.Fatalf("after %q the raw tail is %q", text, s.Tail)
		}
		openBytes += end - d.Final()
	}
	return d.Final(), openBytes
}

// Fed token by token at random points, an answer of any shape shows at
// every step the whole text's rendering, with and without section links,
// and the finished answer's rendering at its end; the shapes of ordinary
// answers finish their blocks on the way.
func TestDraftStepsAreTheWholeRendering(t *testing.T) {
	links := SectionLinks{Base: "/learn/net/vlans", Anchors: map[string]string{"dns": "/learn/net/dns"}}
	for name, src := range draftAnswers {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(6) {
				l := SectionLinks{}
				if seed%2 == 1 {
					l = links
				}
				final, _ := replayDraft(t, src, l, rand.New(rand.NewPCG(seed, 29)))
				if strings.HasPrefix(name, "ref") && final != 0 {
					t.Fatalf("a link reference definition left %d bytes rendered as finished", final)
				}
			}
		})
	}
	final, open := replayDraft(t, draftBenchAnswer, SectionLinks{}, rand.New(rand.NewPCG(1, 2)))
	if final < len(draftBenchAnswer)*3/4 {
		t.Errorf("of the realistic answer only %d of %d bytes ended as finished blocks", final, len(draftBenchAnswer))
	}
	t.Logf("realistic answer: %d bytes, %d finished, %d bytes rendered as open over its steps", len(draftBenchAnswer), final, open)
}

// BenchmarkDraftAnswer is what the drafts of one answer cost: the
// realistic answer fed in tokens of four bytes, rendered every five tokens
// (the 100 ms pause at 50 tokens a second). whole renders the whole text
// at each pause, as the drafts did before; blocks is Draft.
func BenchmarkDraftAnswer(b *testing.B) {
	var ends []int
	for end := 0; end < len(draftBenchAnswer); {
		end = min(len(draftBenchAnswer), end+4*5)
		ends = append(ends, end)
	}
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			for _, end := range ends {
				body := strings.TrimRightFunc(draftBenchAnswer[:end], unicode.IsSpace)
				_ = strings.TrimSuffix(RenderAnswerDraft(body, SectionLinks{}), "\n")
			}
		}
	})
	b.Run("blocks", func(b *testing.B) {
		for b.Loop() {
			var d Draft
			for _, end := range ends {
				d.Step(draftBenchAnswer[:end], SectionLinks{})
			}
		}
	})
}
