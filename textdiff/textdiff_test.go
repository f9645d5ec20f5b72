package textdiff

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sides rebuilds the old and new texts from a comparison.
func sides(d []Line) (a, b []string) {
	for _, l := range d {
		if l.Kind != Added {
			a = append(a, l.Text)
		}
		if l.Kind != Removed {
			b = append(b, l.Text)
		}
	}
	return a, b
}

func same(d []Line) int {
	n := 0
	for _, l := range d {
		if l.Kind == Same {
			n++
		}
	}
	return n
}

// lcsLen is the longest common subsequence's length, by plain recursion
// over a memo: the reference the table must agree with.
func lcsLen(a, b []string) int {
	memo := map[[2]int]int{}
	var f func(i, j int) int
	f = func(i, j int) int {
		if i == len(a) || j == len(b) {
			return 0
		}
		k := [2]int{i, j}
		if v, ok := memo[k]; ok {
			return v
		}
		v := max(f(i+1, j), f(i, j+1))
		if a[i] == b[j] {
			v = f(i+1, j+1) + 1
		}
		memo[k] = v
		return v
	}
	return f(0, 0)
}

func TestLinesExamples(t *testing.T) {
	cases := []struct {
		a, b, want string
	}{
		{"", "", ""},
		{"x\ny", "x\ny", " x  y"},
		{"", "x", "+x"},
		{"x", "", "-x"},
		{"a\nb\nc", "a\nB\nc", " a -b +B  c"},
		{"a\nb\nc\nd", "a\nc\nd\ne", " a -b  c  d +e"},
	}
	for _, tc := range cases {
		var got []string
		for _, l := range Lines(Split(tc.a), Split(tc.b)) {
			got = append(got, []string{" ", "-", "+"}[l.Kind]+l.Text)
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("Lines(%q, %q) = %q, want %q", tc.a, tc.b, s, tc.want)
		}
	}
}

// Random texts over a small alphabet: the comparison always rebuilds both
// sides and keeps a longest common subsequence.
func TestLinesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() []string {
		out := make([]string, r.IntN(12))
		for i := range out {
			out[i] = string(rune('a' + r.IntN(4)))
		}
		return out
	}
	for range 2000 {
		a, b := gen(), gen()
		d := Lines(a, b)
		ga, gb := sides(d)
		if !slices.Equal(ga, a) && len(a)+len(ga) > 0 || !slices.Equal(gb, b) && len(b)+len(gb) > 0 {
			t.Fatalf("Lines(%q, %q) rebuilds %q, %q", a, b, ga, gb)
		}
		if same(d) != lcsLen(a, b) {
			t.Fatalf("Lines(%q, %q) keeps %d lines, the longest common subsequence has %d", a, b, same(d), lcsLen(a, b))
		}
	}
}

// Past MaxCells the middle is replaced whole: still both sides, at once.
func TestLinesTooLarge(t *testing.T) {
	a, b := make([]string, 1500), make([]string, 1500)
	for i := range a {
		a[i], b[i] = "a"+strings.Repeat("x", i%7), "b"+strings.Repeat("y", i%5)
	}
	a[0], b[0] = "same", "same"
	d := Lines(a, b)
	ga, gb := sides(d)
	if !slices.Equal(ga, a) || !slices.Equal(gb, b) || d[0] != (Line{Same, "same"}) {
		t.Fatal("a large comparison does not rebuild both sides")
	}
}
