package tutor_test

import (
	"testing"
	"time"

	"aula/internal/fakellm"
	"aula/tutor"
)

// BenchmarkProviderFirstToken measures aula's own overhead per answer
// through each real langchaingo client against an unpaced fake: the time
// to the first token (reported as ttft-µs) and to the whole answer (ns/op).
func BenchmarkProviderFirstToken(b *testing.B) {
	tokens := make([]string, 50)
	for i := range tokens {
		tokens[i] = " word"
	}
	kinds := append([]string{tutor.ProviderOffline}, fakellm.Kinds...)
	for _, kind := range kinds {
		b.Run(kind, func(b *testing.B) {
			var p tutor.Provider
			if kind == tutor.ProviderOffline {
				p = tutor.NewOffline(0)
			} else {
				srv := fakellm.Start(b, kind, fakellm.Options{Tokens: tokens})
				var err error
				p, err = tutor.NewProvider(b.Context(), kind, "", credsFor(kind, srv.URL))
				if err != nil {
					b.Fatal(err)
				}
			}
			req := simpleRequest()
			req.Sources = lessonSources()
			var ttft time.Duration
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				first := true
				if _, err := p.Stream(b.Context(), req, func(string) error {
					if first {
						ttft += time.Since(start)
						first = false
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(ttft.Microseconds())/float64(b.N), "ttft-µs")
		})
	}
}
