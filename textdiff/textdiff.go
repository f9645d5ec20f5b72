// Package textdiff compares two texts line by line: the lines both keep
// (a longest common subsequence), the ones only the old text has and the
// ones only the new text has, in reading order.
package textdiff

import "strings"

// Kind says which text a line is in.
type Kind int

// The kinds of line.
const (
	Same Kind = iota
	Removed
	Added
)

// Line is one line of the comparison.
type Line struct {
	Kind Kind
	Text string
}

// MaxCells bounds the comparison table (old lines × new lines, after the
// common start and end are set aside): past it, the differing middle is
// shown as all removed then all added, which is still a correct diff,
// only not the shortest, and costs nothing.
const MaxCells = 1 << 20

// Split cuts a text into lines without their line ends; "" has none.
func Split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Lines compares a (old) and b (new): reading the Same and Removed lines
// gives a, the Same and Added lines gives b, and as many lines as possible
// are Same.
func Lines(a, b []string) []Line {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	out := make([]Line, 0, len(a)+len(b))
	for _, s := range a[:pre] {
		out = append(out, Line{Same, s})
	}
	out = append(out, middle(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, s := range a[len(a)-suf:] {
		out = append(out, Line{Same, s})
	}
	return out
}

// middle compares the parts of a and b between their common start and end.
func middle(a, b []string) []Line {
	n, m := len(a), len(b)
	if n == 0 || m == 0 || n*m > MaxCells {
		return replaced(a, b)
	}
	// lcs[i*(m+1)+j] is the longest common subsequence of a[i:] and b[j:].
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	out := make([]Line, 0, n+m)
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, Line{Same, a[i]})
			i, j = i+1, j+1
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			out = append(out, Line{Removed, a[i]})
			i++
		default:
			out = append(out, Line{Added, b[j]})
			j++
		}
	}
	return append(out, replaced(a[i:], b[j:])...)
}

// replaced is a all removed, then b all added.
func replaced(a, b []string) []Line {
	out := make([]Line, 0, len(a)+len(b))
	for _, s := range a {
		out = append(out, Line{Removed, s})
	}
	for _, s := range b {
		out = append(out, Line{Added, s})
	}
	return out
}
