package models_test

import (
	"context"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// seedTitled inserts a lesson in each language whose sections name
// "VLAN" in their headings more than its introduction does.
func seedTitled(t *testing.T, db *pgtest.DB) {
	t.Helper()
	exec := execer(t, db)
	exec(`INSERT INTO paths (id, slug, title, language) VALUES (1, 'net', 'Networking', 'en')`)
	exec(`INSERT INTO modules (id, path_id, slug, title) VALUES (1, 1, 'm1', 'Switching')`)
	lessons := []struct{ id, lang, title, intro, other string }{
		{"what", "en", "What a VLAN is and why it matters", "A switch keeps one broadcast domain per VLAN.", "Creating VLANs"},
		{"que", "es", "Qué es una VLAN", "Un switch separa dominios de difusión con una VLAN.", "Crear una VLAN"},
	}
	for _, l := range lessons {
		exec(`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash) VALUES (?, 1, ?, ?, 'x', 'x')`, l.id, l.title, l.lang)
		exec(`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash) VALUES (?, 0, ?, '', ?, 'h'), (?, 1, ?, 'other', ?, 'h')`,
			l.id, l.title, l.intro, l.id, l.other, l.other+": vlan 10, vlan 20, vlan 30, and each VLAN named.")
	}
}

// A question restating a lesson's title (most of its words, stopwords
// included, and no topic word the title lacks) finds the lesson's
// introduction first, alone or in a batch; one naming more than the
// title, or one word of it, finds the section naming it most.
func TestSearchRestatedTitleFindsTheIntroduction(t *testing.T) {
	db := pgtest.New(t)
	seedTitled(t, db)
	s := models.NewChunks(db.DB)
	search := func(lang, asked, topic string) models.ChunkSearch {
		return models.ChunkSearch{Lang: lang, Match: "'vlan':*", RankBy: "'vlan':*", Limit: 5, Asked: asked, Topic: topic, LessonID: map[string]string{"en": "what", "es": "que"}[lang]}
	}
	cases := []struct {
		name   string
		q      models.ChunkSearch
		anchor string
	}{
		{"the English title", search("en", "what is a vlan and why would i use one", "vlan"), ""},
		{"the Spanish title", search("es", "qué es una vlan", "vlan"), ""},
		{"a topic the title lacks", search("en", "what is a native vlan and why would i use one", "native vlan"), "other"},
		{"too few of the title's words", search("en", "vlan", "vlan"), "other"},
		{"no question words", search("en", "", ""), "other"},
	}
	qs := make([]models.ChunkSearch, len(cases))
	for i, c := range cases {
		qs[i] = c.q
	}
	batch, errs := s.SearchMany(context.Background(), qs)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows, err := s.SearchAlone(context.Background(), c.q)
			if err != nil || errs[i] != nil {
				t.Fatalf("alone: %v; batch: %v", err, errs[i])
			}
			for _, got := range [][]models.Chunk{rows, batch[i]} {
				if len(got) == 0 || got[0].Anchor != c.anchor {
					t.Errorf("first %+v, want the section %q", got, c.anchor)
				}
			}
		})
	}
}
