package models_test

import (
	"context"
	"strings"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// A search of every lesson for a word more than lessonHeadings sections
// hold ranks the sections naming it in their heading (the best by
// ts_rank whenever there are enough of them), and every match when fewer
// than the search's limit do: a common word no heading names still
// finds its sections.
func TestCommonWordSearchesHeadingsFirst(t *testing.T) {
	db := pgtest.New(t)
	seedChunks(t, db)
	exec := func(q string, args ...any) {
		t.Helper()
		if err := db.Exec(q, args...).Error; err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash) VALUES ('bulk', 1, 'Bulk', 'en', 'x', 'x')`)
	// 1,100 sections name both words in their text; six name the VLAN in
	// their heading and two the widget.
	exec(`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash)
		SELECT 'bulk', i, CASE WHEN i <= 6 THEN 'VLAN part ' || i WHEN i <= 8 THEN 'Widget part ' || i ELSE 'Part ' || i END,
			'p' || i, 'This part mentions a vlan and a widget, number ' || i || '.', 'h'
		FROM generate_series(1, 1100) i`)
	exec(`ANALYZE`)
	s := models.NewChunks(db.DB)
	cases := []struct {
		word, heading string
		headed        int // results naming the word in their heading
	}{
		{"'vlan':*", "VLAN part", 5},
		{"'widget':*", "Widget part", 2},
	}
	for _, c := range cases {
		q := models.ChunkSearch{Lang: "en", Match: c.word, RankBy: c.word, Limit: 5}
		got, err := s.SearchAlone(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 5 {
			t.Fatalf("%s: %d results, want 5", c.word, len(got))
		}
		headed := 0
		for i, ch := range got {
			if strings.HasPrefix(ch.Heading, c.heading) {
				headed++
				if i >= c.headed {
					t.Errorf("%s: result %d %q names the word in its heading after one that does not", c.word, i, ch.Heading)
				}
			}
		}
		if headed != c.headed {
			t.Errorf("%s: %d results name the word in their heading, want %d: %v", c.word, headed, c.headed, got)
		}
		// Enough headings: the other matches are never read.
		plan, err := s.ExplainSearch(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		skipped := false
		for _, line := range plan {
			skipped = skipped || strings.Contains(line, "on lesson_chunks") && strings.Contains(line, "(never executed)")
		}
		if skipped != (c.headed == 5) {
			t.Errorf("%s: the other matches skipped %v, want %v:\n%s", c.word, skipped, c.headed == 5, strings.Join(plan, "\n"))
		}
	}
}
