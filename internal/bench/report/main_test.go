package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: aula/handlers
cpu: some CPU
BenchmarkLessonPage-2   	     300	   3912345 ns/op	        14.00 sql/op	  120345 B/op	    1200 allocs/op
BenchmarkFirstToken/aula-2        	      25	  41000000 ns/op	        12.50 ttft-ms	         0.2100 ratio
=== RUN   TestX
some log line
PASS
ok  	aula/handlers	12.3s
pkg: aula/tutor
BenchmarkProviderFirstToken/openai-2         	     100	    950000 ns/op
--- FAIL: BenchmarkBroken
FAIL	aula/tutor	1.0s
`

func TestParseEveryFigure(t *testing.T) {
	res, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := []Figure{
		{"aula/handlers", "BenchmarkLessonPage", 3912345, "ns/op"},
		{"aula/handlers", "BenchmarkLessonPage", 14, "sql/op"},
		{"aula/handlers", "BenchmarkLessonPage", 120345, "B/op"},
		{"aula/handlers", "BenchmarkLessonPage", 1200, "allocs/op"},
		{"aula/handlers", "BenchmarkFirstToken/aula", 41000000, "ns/op"},
		{"aula/handlers", "BenchmarkFirstToken/aula", 12.5, "ttft-ms"},
		{"aula/handlers", "BenchmarkFirstToken/aula", 0.21, "ratio"},
		{"aula/tutor", "BenchmarkProviderFirstToken/openai", 950000, "ns/op"},
	}
	if len(res.Figures) != len(want) {
		t.Fatalf("figures %+v", res.Figures)
	}
	for i, f := range want {
		if res.Figures[i] != f {
			t.Errorf("figure %d = %+v, want %+v", i, res.Figures[i], f)
		}
	}
	if len(res.Failures) != 2 {
		t.Errorf("failures %q", res.Failures)
	}
	var b strings.Builder
	Print(&b, res)
	for _, s := range []string{"handlers  BenchmarkLessonPage", "14 sql/op", "3912345 ns/op (3.91 ms/op)", "12.50 ttft-ms", "0.21 ratio", "2 failure line(s)"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, b.String())
		}
	}
}
