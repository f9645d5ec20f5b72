package models_test

import (
	"testing"

	"aula/models"
	"aula/textdiff"
)

// Sections are matched by anchor: an edited one is changed with its line
// diff, a new one added, a dropped one removed where it stood, the rest
// unchanged; front-matter fields that differ are listed.
func TestDiffVersions(t *testing.T) {
	from := &models.LessonVersion{Title: "VLANs", Language: "en", Suggestions: models.TextList{"a?"},
		ContentMD: "Intro.\n\n## Tags\n\nOne.\nTwo.\n\n## Gone\n\nOld.\n\n## Trunks\n\nA trunk.\n"}
	to := &models.LessonVersion{Title: "VLANs!", Language: "en", Suggestions: models.TextList{"a?"},
		ContentMD: "Intro.\n\n## Tags\n\nOne.\nTwo, edited.\n\n## Trunks\n\nA trunk.\n\n## New\n\nFresh.\n"}
	d := models.DiffVersions(from, to)
	if len(d.Fields) != 1 || d.Fields[0] != (models.FieldDiff{"title", "VLANs", "VLANs!"}) {
		t.Errorf("fields: %+v", d.Fields)
	}
	want := []struct{ anchor, change string }{{"", "unchanged"}, {"tags", "changed"}, {"gone", "removed"}, {"trunks", "unchanged"}, {"new", "added"}}
	if len(d.Sections) != len(want) {
		t.Fatalf("sections: %+v", d.Sections)
	}
	for i, w := range want {
		if s := d.Sections[i]; s.Anchor != w.anchor || s.Change != w.change {
			t.Errorf("section %d = %s %s, want %s %s", i, s.Anchor, s.Change, w.anchor, w.change)
		}
	}
	tags := d.Sections[1].Lines
	wantLines := []textdiff.Line{{Kind: textdiff.Same, Text: "One."}, {Kind: textdiff.Removed, Text: "Two."}, {Kind: textdiff.Added, Text: "Two, edited."}}
	if len(tags) != len(wantLines) {
		t.Fatalf("tags lines: %+v", tags)
	}
	for i := range tags {
		if tags[i] != wantLines[i] {
			t.Errorf("tags line %d = %+v, want %+v", i, tags[i], wantLines[i])
		}
	}
}
