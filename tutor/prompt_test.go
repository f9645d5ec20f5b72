package tutor

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"aula/models"
)

func longLesson(sections, size int) *Lesson {
	l := &Lesson{ID: "long", Title: "A long lesson"}
	var md strings.Builder
	for i := range sections {
		h := fmt.Sprintf("Section %d topic%d", i, i)
		text := fmt.Sprintf("Body of section %d about topic%d. ", i, i)
		text += strings.Repeat(fmt.Sprintf("filler%d ", i), (size-len(text))/9)
		l.Chunks = append(l.Chunks, Source{Kind: "lesson", ChunkID: int64(i + 1), LessonID: "long", Heading: h,
			Anchor: fmt.Sprintf("section-%d", i), Text: text, Hash: hashOf(text)})
		fmt.Fprintf(&md, "## %s\n\n%s\n\n", h, text)
	}
	l.Content = md.String()
	return l
}

func TestLessonBudgetRule(t *testing.T) {
	short := longLesson(3, 1000)
	long := longLesson(20, 1500) // about 30,000 characters
	hits := []Source{long.Chunks[12], long.Chunks[4], {Kind: "lesson", LessonID: "other", Heading: "Elsewhere", Anchor: "x", Text: "other lesson text"}}
	hits[0].Score, hits[1].Score = 0.9, 0.5

	t.Run("short lesson goes whole", func(t *testing.T) {
		p := BuildPrompt(PromptInput{Mode: models.ModeLesson, Lesson: short, Sources: []Source{short.Chunks[1]}, Lang: "en"})
		if !p.LessonWhole || !strings.Contains(p.System, short.Content) || !strings.Contains(p.System, "# ") {
			t.Fatal("a lesson within 8,000 characters must go whole")
		}
		if len(p.Sources) != 1 || p.Sources[0].Heading != short.Chunks[1].Heading {
			t.Fatalf("citation candidates %v", headings(p.Sources))
		}
	})
	t.Run("long lesson: outline and relevant sections within budget", func(t *testing.T) {
		p := BuildPrompt(PromptInput{Mode: models.ModeLesson, Lesson: long, Sources: hits, Lang: "en"})
		if p.LessonWhole {
			t.Fatal("a 30,000-character lesson cannot go whole")
		}
		for _, c := range long.Chunks {
			if !strings.Contains(p.System, fmt.Sprintf("[§ %s](#%s)", c.Heading, c.Anchor)) {
				t.Fatalf("outline misses %q", c.Heading)
			}
		}
		if !strings.Contains(p.System, long.Chunks[12].Text) || !strings.Contains(p.System, long.Chunks[4].Text) {
			t.Fatal("the relevant sections are missing")
		}
		if strings.Contains(p.System, "Body of section 7 ") {
			t.Fatal("an irrelevant section was included")
		}
		start := strings.Index(p.System, "## Lesson:")
		end := strings.Index(p.System, "## Related sections")
		lessonPart := p.System[start:end]
		lessonPart = lessonPart[strings.Index(lessonPart, "\n")+1:]
		if n := utf8.RuneCountInString(lessonPart); n > DefaultLessonBudget+40 {
			t.Fatalf("lesson part is %d characters, over the 8,000 budget", n)
		}
		if got := headings(p.Sources); len(got) != 3 || got[0] != long.Chunks[12].Heading || got[2] != "Elsewhere" {
			t.Fatalf("sources %v", got)
		}
	})
	t.Run("long lesson, nothing matched: opening sections within budget", func(t *testing.T) {
		p := BuildPrompt(PromptInput{Mode: models.ModeLesson, Lesson: long, Lang: "es"})
		if !strings.Contains(p.System, long.Chunks[0].Text) || strings.Contains(p.System, "Body of section 19 ") {
			t.Fatal("expected the opening sections only")
		}
		if !strings.Contains(p.System, "Answer in Spanish") {
			t.Fatal("language instruction missing")
		}
	})
}

func TestPromptModes(t *testing.T) {
	tests := []struct {
		name string
		in   PromptInput
		want []string
	}{
		{"help covers only aula", PromptInput{Mode: models.ModeHelp, Lang: "en"},
			[]string{"only from the help articles", "does not cover", "No help article matches"}},
		{"tutor", PromptInput{Mode: models.ModeTutor, Lang: "en", Sources: []Source{{Heading: "Trunk ports", Anchor: "trunk-ports", Text: "t"}}},
			[]string{"IT and learning", "Trunk ports"}},
		{"lesson cites sections", PromptInput{Mode: models.ModeLesson, Lang: "en", Lesson: longLesson(2, 300)},
			[]string{"[§ Heading](#anchor)", "[§ Section 1 topic1](#section-1)"}},
		{"guide first hint", PromptInput{Mode: models.ModeTutor, Style: models.StyleGuide, Guide: Guide{HintLevel: 1}},
			[]string{"Do not give the answer yet"}},
		{"guide bigger hint", PromptInput{Mode: models.ModeTutor, Style: models.StyleGuide, Guide: Guide{HintLevel: 2}},
			[]string{"bigger hint"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sys := BuildPrompt(tt.in).System
			for _, w := range tt.want {
				if !strings.Contains(sys, w) {
					t.Fatalf("prompt lacks %q:\n%s", w, sys)
				}
			}
		})
	}
}

func TestLessonModeThroughService(t *testing.T) {
	f := newFixture(t)
	f.seedLessons(testLessons...)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeLesson, "vlan-basics", "")
	m := f.ask(u, c, "How do I put a port in VLAN 10?")
	r := ParseReceipt(m.Metadata)
	if !r.LessonWhole || r.LessonID != "vlan-basics" || len(r.Citations) == 0 || r.Citations[0].LessonID != "vlan-basics" {
		t.Fatalf("receipt %+v", r)
	}
	sys := f.prov.last(t).System
	if !strings.Contains(sys, "## Lesson: VLAN basics") || !strings.Contains(sys, "switchport access vlan 10") {
		t.Fatalf("lesson missing from prompt:\n%s", sys)
	}
}
