package markdown

import (
	"regexp"
	"runtime"
	"strings"
	"testing"

	"aula/internal/heaptest"
)

// TestHeadingIDPattern checks that the sanitizer keeps Slug's ids on
// headings, the longest with a dedup suffix too, and drops ids no pattern
// allows; and that the heading ids' pattern stays small (every process
// keeps it for its whole life).
func TestHeadingIDPattern(t *testing.T) {
	long := Slug(strings.Repeat("configuración ", 20)) + "-2"
	tests := []struct {
		id   string
		kept bool
	}{
		{"s-3", true},
		{"configuración-de-vlan", true},
		{long, true},
		{"ü ü", false},
		{"¡!", false},
		{"", false},
	}
	p := newPolicy()
	for _, tt := range tests {
		out := p.Sanitize(`<h2 id="` + tt.id + `">T</h2>`)
		if kept := strings.Contains(out, "id="); kept != tt.kept {
			t.Errorf("id %q: kept %v, want %v (%s)", tt.id, kept, tt.kept, out)
		}
	}
	before := heaptest.Live()
	re := regexp.MustCompile(headingID.String())
	if grown := heaptest.Live() - before; grown > 256<<10 {
		t.Errorf("the heading id pattern takes %d bytes, want at most 256 KiB", grown)
	}
	runtime.KeepAlive(re)
}
