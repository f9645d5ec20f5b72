package tutor_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"aula/tutor"
)

func lessonSources() []tutor.Source {
	return []tutor.Source{
		{
			Kind: "lesson", ChunkID: 1, LessonID: "l1", Title: "Concurrency", Heading: "Goroutines", Anchor: "goroutines",
			Text: "A goroutine is a function running concurrently with other goroutines. " +
				"You start one with the go keyword. Goroutines are cheap: a program can run thousands of them.\n\n" +
				"```go\ngo work()\n```\n" +
				"The main function does not wait for goroutines to finish.",
		},
		{
			Kind: "lesson", ChunkID: 2, LessonID: "l1", Title: "Concurrency", Heading: "Channels", Anchor: "channels",
			Text: "A channel lets goroutines send values to each other. " +
				"Sending on an unbuffered channel blocks until another goroutine receives. " +
				"Close a channel to tell receivers that no more values will come.",
		},
		{
			Kind: "lesson", ChunkID: 3, LessonID: "l1", Title: "Concurrency", Heading: "Summary", Anchor: "summary",
			Text: "- Variables declared in a package are visible to all its files.\n- Packages group related code together.",
		},
	}
}

// streamAll streams req through p and returns the tokens.
func streamAll(t *testing.T, p tutor.Provider, req tutor.Request) []string {
	t.Helper()
	var toks []string
	if _, err := p.Stream(t.Context(), req, func(s string) error {
		toks = append(toks, s)
		return nil
	}); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return toks
}

func TestOfflineAnswers(t *testing.T) {
	cases := []struct {
		name    string
		req     tutor.Request
		want    []string // substrings the answer must contain
		notWant []string
	}{
		{
			name: "english lesson answer cites sections",
			req:  tutor.Request{Question: "How do I start a goroutine?", Lang: "en", Mode: "lesson", Sources: lessonSources()},
			// Students get no configuration advice; each section is cited once.
			want:    []string{"Offline tutor", "You start one with the go keyword.", "[§ Goroutines](#goroutines)"},
			notWant: []string{"AULA_LLM_PROVIDER", "go work()", "Variables declared"},
		},
		{
			name: "channel question picks the channel section",
			req:  tutor.Request{Question: "What happens when sending on an unbuffered channel?", Lang: "en", Sources: lessonSources()},
			want: []string{"blocks until another goroutine receives.", "[§ Channels](#channels)"},
		},
		{
			name:    "spanish",
			req:     tutor.Request{Question: "¿Cómo inicio una goroutine?", Lang: "es", Sources: lessonSources()},
			want:    []string{"Tutor sin conexión", "[§ Goroutines](#goroutines)"},
			notWant: []string{"Offline tutor", "AULA_LLM_PROVIDER"},
		},
		{
			name: "spanish plural and accents match",
			req: tutor.Request{Question: "¿Qué hacen las funciones?", Lang: "es", Sources: []tutor.Source{{
				Kind: "lesson", Heading: "Funciones", Anchor: "funciones",
				Text: "Una función puede devolver varios valores. Las variables se declaran con var. El bucle for es el único bucle.",
			}}},
			want:    []string{"- Una función puede devolver varios valores.", "[§ Funciones](#funciones)"},
			notWant: []string{"coincidencia directa"},
		},
		{
			name: "no sources english",
			req:  tutor.Request{Question: "What is a monad?", Lang: "en", Mode: "lesson"},
			want: []string{"Offline tutor", "found nothing", "rephras"},
		},
		{
			name: "no sources spanish",
			req:  tutor.Request{Question: "¿Qué es una mónada?", Lang: "es", Mode: "tutor"},
			want: []string{"Tutor sin conexión", "No encontré nada", "reformular"},
		},
		{
			name: "help mode without sources",
			req:  tutor.Request{Question: "How do I get a refund?", Lang: "en", Mode: "help"},
			want: []string{"help articles do not cover"},
		},
		{
			name: "help mode spanish",
			req:  tutor.Request{Question: "¿Cómo pido un reembolso?", Lang: "es", Mode: "help"},
			want: []string{"artículos de ayuda no cubren"},
		},
		{
			name: "guide style gives a hint and asks back",
			req: tutor.Request{Question: "How do I start a goroutine?", Lang: "en", Style: "guide",
				Sources: lessonSources()},
			want:    []string{"hint", "> ", "You start one with the go keyword.", "[§ Goroutines](#goroutines)", "What do you think"},
			notWant: []string{"- "},
		},
		{
			// Unrelated quotes are worse than saying so (issue: honest offline tutor).
			name:    "no matching term says the material does not cover it",
			req:     tutor.Request{Question: "zzz qqq", Lang: "en", Sources: lessonSources()},
			want:    []string{"do not cover"},
			notWant: []string{"[§ "},
		},
		{
			name: "follow-up borrows the previous question's topic",
			req: tutor.Request{Question: "Why?", Lang: "en", Sources: lessonSources(),
				History: []tutor.Turn{{Role: "user", Content: "Does an unbuffered channel block?"}, {Role: "assistant", Content: "Yes."}}},
			want: []string{"[§ Channels](#channels)"},
		},
	}
	p, err := tutor.NewProvider(t.Context(), tutor.ProviderOffline, "", tutor.Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			answer := strings.Join(streamAll(t, p, tc.req), "")
			if answer != tutor.OfflineAnswer(tc.req) {
				t.Errorf("streamed tokens do not rebuild OfflineAnswer")
			}
			for _, w := range tc.want {
				if !strings.Contains(answer, w) {
					t.Errorf("answer lacks %q:\n%s", w, answer)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(answer, w) {
					t.Errorf("answer has %q:\n%s", w, answer)
				}
			}
			if again := strings.Join(streamAll(t, p, tc.req), ""); again != answer {
				t.Errorf("answer not deterministic:\n%s\n---\n%s", answer, again)
			}
		})
	}
}

func TestOfflineSentenceCount(t *testing.T) {
	req := tutor.Request{Question: "goroutine channel values", Lang: "en", Sources: lessonSources()}
	answer := tutor.OfflineAnswer(req)
	// Each section is one bullet cited once; the sentences are counted.
	var cited int
	for line := range strings.SplitSeq(answer, "\n") {
		if strings.HasPrefix(line, "- ") {
			cited += strings.Count(line, ". ")
			if strings.Count(line, "[§ ") != 1 {
				t.Errorf("section not cited exactly once: %q", line)
			}
		}
	}
	if cited < 3 || cited > 6 {
		t.Errorf("answer has %d sentences, want 3-6:\n%s", cited, answer)
	}
}

func TestOfflineStreamsWordTokens(t *testing.T) {
	p := tutor.NewOffline(0)
	req := tutor.Request{Question: "How do I start a goroutine?", Lang: "en", Sources: lessonSources()}
	toks := streamAll(t, p, req)
	if len(toks) < 10 {
		t.Fatalf("only %d tokens", len(toks))
	}
	for _, tok := range toks[:len(toks)-1] {
		if strings.TrimSpace(tok) == "" || strings.TrimRight(tok, " \n") == tok {
			t.Errorf("token %q is not a word with its trailing space", tok)
		}
	}
	if p.Name() != "offline" || tutor.ModelOf(p) != "offline-tutor" {
		t.Errorf("Name/Model = %q/%q", p.Name(), tutor.ModelOf(p))
	}
}

func TestOfflineCancel(t *testing.T) {
	// A delay no test would wait out: Stream must return on cancel, not
	// after the delay.
	p := tutor.NewOffline(3_600_000)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var n int
	_, err := p.Stream(ctx, tutor.Request{Question: "goroutine", Lang: "en", Sources: lessonSources()}, func(string) error {
		n++
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || tutor.ErrorCode(err) != tutor.CodeCancelled {
		t.Fatalf("Stream error = %v, want cancelled", err)
	}
	if n != 1 {
		t.Errorf("%d tokens after cancel, want 1", n)
	}
}

func TestOfflineOnTokenError(t *testing.T) {
	errStop := errors.New("stop")
	_, err := tutor.NewOffline(0).Stream(t.Context(), tutor.Request{Lang: "en"}, func(string) error { return errStop })
	if !errors.Is(err, errStop) {
		t.Fatalf("Stream error = %v, want errStop", err)
	}
}

// Continuing a stopped offline answer gives the rest of the same answer;
// text it would not have written gets nothing.
func TestOfflineContinues(t *testing.T) {
	req := tutor.Request{Question: "How do I start a goroutine?", Lang: "en", Mode: "lesson", Sources: lessonSources()}
	whole := offlineText(t, req)
	cut := len(whole) / 2
	for _, tc := range []struct {
		name, partial, want string
	}{
		{"the rest", whole[:cut], whole[cut:]},
		{"not its own", "Something else entirely", ""},
	} {
		req.Partial = tc.partial
		if got := offlineText(t, req); got != tc.want {
			t.Errorf("%s: continued with %q, want %q", tc.name, got, tc.want)
		}
	}
}

// offlineText is the offline tutor's whole answer to req.
func offlineText(t *testing.T, req tutor.Request) string {
	t.Helper()
	var b strings.Builder
	if _, err := (&tutor.Offline{}).Stream(context.Background(), req, func(tok string) error {
		b.WriteString(tok)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
