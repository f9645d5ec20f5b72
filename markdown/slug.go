package markdown

import (
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Slug turns heading text into a fragment id: lower case, accents folded to
// ASCII ("Configuración de VLAN" → "configuracion-de-vlan"), letters and
// digits of other scripts kept, runs of spaces, '-' and '_' joined by one
// '-', everything else dropped; "heading" when nothing is left. It does not
// deduplicate; Render and Chunks do.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	// NFD splits "ó" into "o" + combining accent, so dropping marks folds it.
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsSpace(r) || r == '-' || r == '_':
			dash = true
		}
	}
	// Letters with no decomposition (ß, ø, ł) stay as they are; the id
	// pattern accepts them and browsers match fragments literally.
	out := b.String()
	if out == "" {
		return "heading"
	}
	if len(out) > 100 {
		out = strings.TrimRight(truncateRunes(out, 100), "-")
	}
	return out
}

func truncateRunes(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}

// idSet hands out unique ids the way goldmark does: the first "x" is "x",
// later ones are "x-1", "x-2", … skipping any already taken.
type idSet map[string]bool

func newIDSet() idSet { return idSet{} }

func (s idSet) next(headingText string) string {
	base := Slug(headingText)
	id := base
	for i := 1; s[id]; i++ {
		id = base + "-" + strconv.Itoa(i)
	}
	s[id] = true
	return id
}
