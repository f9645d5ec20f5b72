package stream

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"aula/models"
)

func openTestStream(t *testing.T, h *Hub, id string) *Stream {
	t.Helper()
	st, ok := h.Open(id, "u1", func(error) {})
	if !ok {
		t.Fatal("open refused")
	}
	return st
}

// collect reads a subscription to its end and checks that chunks are
// contiguous, valid UTF-8 and start where the previous one ended.
func collect(t *testing.T, sub *Subscription) (string, *Final) {
	t.Helper()
	var b strings.Builder
	next := sub.Offset()
	start := -1
	for {
		text, at, final, err := sub.Next(context.Background())
		if err != nil {
			t.Errorf("next: %v", err)
			return b.String(), nil
		}
		if final != nil {
			return b.String(), final
		}
		if start < 0 {
			start = at
			next = at
		}
		if at != next {
			t.Errorf("chunk at %d, want %d (lost or doubled text)", at, next)
		}
		if !utf8.ValidString(text) {
			t.Errorf("chunk %q splits a rune", text)
		}
		b.WriteString(text)
		next = at + len(text)
	}
}

func TestHubJoinAtOffsetDuringGeneration(t *testing.T) {
	h := NewHub()
	st := openTestStream(t, h, "m1")
	var tokens []string
	for i := range 2000 {
		tokens = append(tokens, fmt.Sprintf("tok%d·ñ ", i))
	}
	full := strings.Join(tokens, "")

	type result struct {
		offset int
		got    string
	}
	results := make(chan result, 64)
	var wg sync.WaitGroup
	join := func(offset int) {
		wg.Add(1)
		sub, ok := h.Subscribe("m1", offset)
		if !ok {
			t.Error("stream gone while generating")
			wg.Done()
			return
		}
		go func() {
			defer wg.Done()
			got, final := collect(t, sub)
			if final == nil || final.Status != models.StatusComplete {
				t.Errorf("final %+v", final)
			}
			results <- result{offset, got}
		}()
	}
	join(0)
	for i, tok := range tokens {
		st.Append(tok)
		if i%100 == 50 {
			// Join at what has been sent, at an earlier offset, and
			// past the end: each must get exactly the rest.
			n := st.Len()
			join(n)
			join(n / 2)
			join(n + 1000)
		}
	}
	st.Finish(&Final{Status: models.StatusComplete, Content: full})
	h.Remove(st)
	wg.Wait()
	close(results)
	count := 0
	for r := range results {
		count++
		off := min(r.offset, len(full))
		for off > 0 && off < len(full) && !utf8.RuneStart(full[off]) {
			off--
		}
		if r.got != full[off:] {
			t.Fatalf("subscriber at %d got %d bytes, want %d", r.offset, len(r.got), len(full)-off)
		}
	}
	if count != 1+3*20 {
		t.Fatalf("%d subscribers finished", count)
	}
	if _, ok := h.Subscribe("m1", 0); ok {
		t.Fatal("buffer not freed after completion")
	}
}

func TestHubSlowSubscriberDoesNotBlock(t *testing.T) {
	h := NewHub()
	st := openTestStream(t, h, "m2")
	slow, _ := h.Subscribe("m2", 0) // never reads until the end
	fast, _ := h.Subscribe("m2", 0)
	var fastGot string
	done := make(chan struct{})
	go func() {
		defer close(done)
		fastGot, _ = collect(t, fast)
	}()
	var b strings.Builder
	for i := range 100000 {
		tok := fmt.Sprintf("%d ", i)
		b.WriteString(tok)
		st.Append(tok) // would deadlock here if a subscriber could block it
	}
	st.Finish(&Final{Status: models.StatusComplete, Content: b.String()})
	<-done
	slowGot, final := collect(t, slow)
	if fastGot != b.String() || slowGot != b.String() || final == nil {
		t.Fatalf("fast %d slow %d bytes, want %d", len(fastGot), len(slowGot), b.Len())
	}
}

func TestHubNeverSplitsRunes(t *testing.T) {
	h := NewHub()
	st := openTestStream(t, h, "m3")
	sub, _ := h.Subscribe("m3", 0)
	word := "configuración ñandú 日本 "
	bytes := []byte(word)
	var chunks []string
	for i := range bytes {
		st.Append(string(bytes[i : i+1])) // a provider splitting runes
		for {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // only drain what is there
			text, _, _, err := sub.Next(ctx)
			if err != nil {
				sub, _ = h.Subscribe("m3", sub.Offset())
				break
			}
			chunks = append(chunks, text)
		}
	}
	if got := strings.Join(chunks, ""); got != word {
		t.Fatalf("got %q", got)
	}
	for _, c := range chunks {
		if !utf8.ValidString(c) {
			t.Fatalf("chunk %q splits a rune", c)
		}
	}
	// An offset inside a rune rewinds to its start.
	st.Finish(&Final{Status: models.StatusComplete, Content: word})
	mid := strings.Index(word, "ó") + 1
	s2 := st.Subscribe(mid)
	text, at, _, _ := s2.Next(context.Background())
	if at != mid-1 || !strings.HasPrefix(text, "ón") {
		t.Fatalf("offset inside a rune: %q at %d", text, at)
	}
}

func TestHubOpenRefusesDuplicate(t *testing.T) {
	h := NewHub()
	openTestStream(t, h, "m4")
	if _, ok := h.Open("m4", "u1", func(error) {}); ok {
		t.Fatal("a second generation for one message must be refused")
	}
}

func TestHubCleansWhatItPublishes(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
		want   string
	}{
		{"NUL dropped", []string{"a\x00b", "\x00", "c"}, "abc"},
		{"invalid UTF-8 replaced", []string{"x\xffy"}, "x\uFFFDy"},
		{"rune split across pieces kept", []string{"ñ"[:1], "ñ"[1:] + "\x00!"}, "ñ!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHub()
			st := openTestStream(t, h, "m-"+tt.name)
			sub := st.Subscribe(0)
			for _, p := range tt.pieces {
				st.Append(p)
			}
			st.Finish(&Final{Status: models.StatusComplete, Content: Clean(st.Text())})
			got, final := collect(t, sub)
			if got != tt.want || final.Content != tt.want || st.Text() != tt.want {
				t.Fatalf("published %q, final %q, buffer %q; want %q", got, final.Content, st.Text(), tt.want)
			}
		})
	}
}
