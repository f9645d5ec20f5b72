package handlers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/internal/webtest"
	"aula/models"
)

// BenchmarkFollowUpFirstToken: the felt first token (question post to the
// first answer byte at the client) of a thread's first question and of
// its follow-up, against a fake OpenAI server that takes 300 ms before its
// first token, every AI route on it; and their ratio, which is about 1
// when nothing (no condense model call) stands before a follow-up's answer.
func BenchmarkFollowUpFirstToken(b *testing.B) {
	fake := fakellm.Start(b, fakellm.OpenAI, fakellm.Options{Tokens: benchTokens(20), FirstTokenDelay: 300 * time.Millisecond})
	s := apptest.New(b, viaOpenAI(fake.URL))
	u := s.User(b, "followup@example.com", "a-long-password-1", models.PlanPro)
	st := signInStudent(b, s.URL, "followup@example.com", "a-long-password-1", nil)
	ctx := context.Background()
	felt := func(cid, question string) time.Duration {
		start := time.Now()
		mid, status, err := st.ask(ctx, cid, question)
		if err != nil || status != http.StatusOK {
			b.Fatalf("ask: %d %v", status, err)
		}
		var first time.Time
		// Read to the end: the follow-up must find the first answer stored.
		if _, err := st.stream(ctx, mid, func(ev webtest.SSEEvent, at time.Time) bool {
			if ev.Type == "chunk" && first.IsZero() {
				first = at
			}
			return true
		}); err != nil || first.IsZero() {
			b.Fatalf("no first chunk: %v", err)
		}
		return first.Sub(start)
	}
	var firsts, follows []time.Duration
	one := func() {
		conv, err := s.App.Conversations.Create(ctx, u.ID, models.ModeTutor, "", 0, "")
		if err != nil {
			b.Fatal(err)
		}
		firsts = append(firsts, felt(conv.ID, "What is a VLAN?"))
		follows = append(follows, felt(conv.ID, "and how do I configure it on Cisco?"))
	}
	for b.Loop() {
		one()
	}
	for len(firsts) < 10 {
		one()
	}
	b.StopTimer()
	first, follow := percentile(firsts, 50), percentile(follows, 50)
	b.ReportMetric(ms(first), "first-ttft-p50-ms")
	b.ReportMetric(ms(follow), "followup-ttft-p50-ms")
	b.ReportMetric(float64(follow)/float64(first), "followup/first")
}
