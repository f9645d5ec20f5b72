package models_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// execer returns a function running a statement on db that fails t on
// an error.
func execer(t *testing.T, db *pgtest.DB) func(q string, args ...any) {
	return func(q string, args ...any) {
		t.Helper()
		if err := db.Exec(q, args...).Error; err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// seedChunks inserts two modules of lessons in both languages, sections
// sharing words, so searches differ by scope and language.
func seedChunks(t *testing.T, db *pgtest.DB) (int64, int64) {
	t.Helper()
	exec := execer(t, db)
	exec(`INSERT INTO paths (id, slug, title, language) VALUES (1, 'net', 'Networking', 'en')`)
	exec(`INSERT INTO modules (id, path_id, slug, title) VALUES (1, 1, 'm1', 'Switching'), (2, 1, 'm2', 'Routing')`)
	lessons := []struct {
		id, lang string
		module   int64
		sections []string
	}{
		{"vlans", "en", 1, []string{"A VLAN splits a switch into broadcast domains.", "A trunk port carries many VLANs between switches.", "Configure a VLAN on a Cisco switch with the vlan command."}},
		{"vlans-es", "es", 1, []string{"Una VLAN divide un switch en dominios de difusión.", "Un puerto troncal transporta muchas VLAN entre switches."}},
		{"routing", "en", 2, []string{"A router forwards packets between networks.", "Configure an IP address on a Cisco router interface.", "A static route names the next hop for a network."}},
	}
	for _, l := range lessons {
		exec(`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash) VALUES (?, ?, ?, ?, 'x', 'x')`,
			l.id, l.module, l.id, l.lang)
		for i, text := range l.sections {
			exec(`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash) VALUES (?, ?, ?, ?, ?, 'h')`,
				l.id, i, fmt.Sprintf("Section %d", i), fmt.Sprintf("s%d", i), text)
		}
	}
	return 1, 2
}

// A batch of lesson searches answers each exactly as the search run
// alone would: the same chunks, scores and order, whatever the scope,
// language or limit, and a search asked twice gets its own copy.
func TestSearchManyAnswersAsEachSearchAlone(t *testing.T) {
	db := pgtest.New(t)
	switching, routing := seedChunks(t, db)
	s := models.NewChunks(db.DB)
	qs := []models.ChunkSearch{
		{Lang: "en", Match: "vlan", RankBy: "vlan", Limit: 5},
		{Lang: "es", Match: "vlan", RankBy: "vlan", Limit: 5},
		{Lang: "en", Match: "cisco | configur", RankBy: "cisco | configur", Limit: 5},
		{Lang: "en", Match: "cisco & configur", RankBy: "cisco | configur", Limit: 5, ModuleID: routing},
		{Lang: "en", Match: "switch", RankBy: "switch", Limit: 2, LessonID: "vlans"},
		{Lang: "en", Match: "switch", RankBy: "switch", Limit: 5, ModuleID: switching},
		{Lang: "en", Match: "nothing", RankBy: "nothing", Limit: 5},
		{Lang: "en", Match: "vlan", RankBy: "vlan", Limit: 5}, // asked again
	}
	want := make([][]models.Chunk, len(qs))
	for i, q := range qs {
		rows, err := s.SearchAlone(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = rows
	}
	got, errs := s.SearchMany(context.Background(), qs)
	for i := range qs {
		if errs[i] != nil {
			t.Fatalf("search %d: %v", i, errs[i])
		}
		if len(want[i]) == 0 && len(got[i]) == 0 {
			continue
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("search %d %+v:\n batch %+v\n alone %+v", i, qs[i], got[i], want[i])
		}
	}
	if len(want[0]) == 0 || len(want[2]) < 2 {
		t.Fatalf("the fixture should match: %d and %d chunks", len(want[0]), len(want[2]))
	}
	if &got[0][0] == &got[7][0] {
		t.Error("a search asked twice shares its answer's slice")
	}
	one, errs := s.SearchMany(context.Background(), qs[:1])
	if errs[0] != nil || !reflect.DeepEqual(one[0], want[0]) {
		t.Errorf("a search alone: %+v %v, want %+v", one[0], errs[0], want[0])
	}
}
