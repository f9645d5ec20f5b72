package tutor

import (
	"context"
	"math"
	"testing"

	"aula/models"
)

// synonymLessons: sections saying "verify" where a student says
// "check", and two alike but for one naming both words.
var synonymLessons = []lessonFixture{
	{"trunks", "Trunks", "en", []chunkFixture{
		{"Verifying a trunk", "Verify the trunk with show interfaces trunk: it lists the allowed VLANs."},
		{"Native VLAN", "The native VLAN carries untagged frames on the trunk; verify it matches on both ends."},
	}},
	{"cables", "Cables", "en", []chunkFixture{
		{"Copper", "Check the copper cable."},
		{"Fibre", "Check and verify the fibre cable."},
	}},
}

func TestThesaurusFindsAStudentsWordForTheLessons(t *testing.T) {
	f := newFixture(t)
	f.seedLessons(synonymLessons...)
	r := NewRetriever(f.db.DB)
	tests := []struct {
		query, want string
	}{
		{"how do I check a trunk?", "Verifying a trunk"},
		{"how do I check the native VLAN?", "Native VLAN"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, err := r.Search(context.Background(), tt.query, Scope{Mode: models.ModeTutor}, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || got[0].Heading != tt.want {
				t.Fatalf("top chunk for %q: %v, want %q", tt.query, headings(got), tt.want)
			}
		})
	}
}

// TestASynonymCountsOnce: the question's word counts once in a section
// naming it and its synonym, as in one naming it alone.
func TestASynonymCountsOnce(t *testing.T) {
	f := newFixture(t)
	mod := f.seedLessons(synonymLessons...)
	got, err := NewRetriever(f.db.DB).Search(context.Background(), "how do I check a cable?",
		Scope{Mode: models.ModeLesson, LessonID: "cables", ModuleID: mod}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || math.Abs(got[0].Score-got[1].Score) > 1e-9 {
		t.Fatalf("scores %v, want two equal", scoredKeys(got))
	}
}

func TestTsQueryWritesSynonymsAsOneTerm(t *testing.T) {
	tests := []struct {
		terms []string
		want  string
	}{
		{[]string{"check", "vlan"}, "'check':*|'verify':*|'confirm':* | 'vlan':*"},
		{[]string{"compruebo"}, "'compruebo':*|'comprobar':*|'verificar':*|'verifico':*"},
		{[]string{"trunk", "10.0.0.1"}, "'trunk':* | '10.0.0.1'"},
	}
	for _, tt := range tests {
		if got := tsQuery(tt.terms); got != tt.want {
			t.Errorf("tsQuery(%q) = %q, want %q", tt.terms, got, tt.want)
		}
	}
}
