package models_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"aula/internal/pgtest"
	"aula/models"
)

// lesson_terms follows the sections whatever writes them: a word counts
// the sections holding it while they exist (an insert, an edit, a lesson
// deleted with its sections), and the not-covered check reads it, so a
// word only a deleted lesson used is unknown again.
func TestLessonTermsFollowTheSections(t *testing.T) {
	db := pgtest.New(t)
	seedChunks(t, db)
	ctx := context.Background()
	sections := func(lexeme string) int {
		t.Helper()
		var n int
		db.Raw(`SELECT coalesce((SELECT sections FROM lesson_terms WHERE lexeme = ?), 0)`, lexeme).Scan(&n)
		return n
	}
	s := models.NewChunks(db.DB)
	now := time.Now()
	s.UseClock(func() time.Time { return now })
	unknown := func(terms ...string) []string {
		t.Helper()
		out, err := s.Unknown(ctx, false, terms)
		if err != nil {
			t.Fatal(err)
		}
		return termsOf(out)
	}
	// "switch" is in three English sections and two Spanish ones; "troncal"
	// in one Spanish section; the empty lexeme counts the 8 sections.
	if got := []int{sections("switch"), sections("troncal"), sections("")}; !slices.Equal(got, []int{5, 1, 8}) {
		t.Fatalf("switch, troncal, sections = %v, want [5 1 8]", got)
	}
	if got := unknown("'troncal'", "'zebra'", "'rout':*", "'zebra'|'vlan'"); !slices.Equal(got, []string{"'zebra'"}) {
		t.Errorf("unknown = %v, want only zebra (a prefix and a translation count)", got)
	}

	if err := db.Exec(`UPDATE lesson_chunks SET text = 'A zebra crossing.' WHERE lesson_id = 'vlans-es' AND position = 1`).Error; err != nil {
		t.Fatal(err)
	}
	if got := []int{sections("troncal"), sections("zebra"), sections("")}; !slices.Equal(got, []int{0, 1, 8}) {
		t.Errorf("after the edit troncal, zebra, sections = %v, want [0 1 8]", got)
	}
	// An unknown word is remembered unknown for a few seconds only, then
	// asked about again: known once a section holds it.
	if got := unknown("'zebra'"); !slices.Equal(got, []string{"'zebra'"}) {
		t.Errorf("unknown = %v right after a section took zebra, want zebra still (remembered)", got)
	}
	now = now.Add(models.UnknownFor + time.Second)
	if got := unknown("'zebra'"); len(got) != 0 {
		t.Errorf("unknown = %v after a section took zebra, want none", got)
	}
	if err := db.Exec(`DELETE FROM lessons WHERE id = 'vlans-es'`).Error; err != nil {
		t.Fatal(err)
	}
	if got := []int{sections("zebra"), sections("switch"), sections("")}; !slices.Equal(got, []int{0, 3, 6}) {
		t.Errorf("after the lesson went zebra, switch, sections = %v, want [0 3 6]", got)
	}
	// A known word is taken as known for a while without asking
	// (retrieval_known.go), then asked about again.
	if got := unknown("'zebra'", "'troncal'"); len(got) != 0 {
		t.Errorf("unknown = %v right after, want none: both were found lately", got)
	}
	now = now.Add(models.KnownFor + time.Second)
	if got := unknown("'zebra'", "'troncal'"); !slices.Equal(got, []string{"'zebra'", "'troncal'"}) {
		t.Errorf("unknown = %v, want both: no section holds them any more", got)
	}
}

// A word is known to the material when its English stem is an English
// section's (English) word or its Spanish stem a Spanish section's: the
// English stem of a Spanish word ("sumar", the verb, is the English stem
// of the typo "sumarization") does not make a question's word known, so
// the typo is looked up as one and finds "summar", the English stemming's
// word for the English section's "summarization" (a near word, too, is
// one of the stem's language: "summarization", the Spanish stemming's
// word for the English section, is no language's own). The counts per
// language follow a lesson whose language changes.
func TestUnknownAsksEachLanguageItsOwnStem(t *testing.T) {
	db := pgtest.New(t)
	exec := execer(t, db)
	exec(`INSERT INTO paths (id, slug, title, language) VALUES (1, 'net', 'Networking', 'en')`)
	exec(`INSERT INTO modules (id, path_id, slug, title) VALUES (1, 1, 'm1', 'Routing')`)
	exec(`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash) VALUES
		('summary', 1, 'Summary', 'en', 'x', 'x'), ('sumas', 1, 'Sumas', 'es', 'x', 'x')`)
	exec(`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash) VALUES
		('summary', 0, 'Route summarization', 'a', 'Summarization combines many routes into one.', 'h'),
		('sumas', 0, 'Sumar', 'a', 'Para sumar dos direcciones se alinean los bits.', 'h')`)
	counts := func(lexeme string) []int {
		t.Helper()
		var c struct{ Sections, En, Es int }
		db.Raw(`SELECT sections, en, es FROM lesson_terms WHERE lexeme = ?`, lexeme).Scan(&c)
		return []int{c.Sections, c.En, c.Es}
	}
	// "sumar" is the English stemming's word for the Spanish section's
	// verb (its own, Spanish, stemming says "sum"): no language's own.
	if got := counts("sumar"); !slices.Equal(got, []int{1, 0, 0}) {
		t.Errorf("sumar sections, en, es = %v, want [1 0 0]", got)
	}
	if got := counts("sum"); !slices.Equal(got, []int{1, 0, 1}) {
		t.Errorf("sum sections, en, es = %v, want [1 0 1]", got)
	}
	if got := counts("summar"); !slices.Equal(got, []int{1, 1, 0}) {
		t.Errorf("summar sections, en, es = %v, want [1 1 0]", got)
	}
	got := nearWords(t, db, false, []string{"'sumarization':*", "'summarization':*", "'sumar':*"})
	if _, unknown := got["'summarization':*"]; unknown {
		t.Errorf("summarization unknown, want known")
	}
	if _, unknown := got["'sumar':*"]; unknown {
		t.Errorf("sumar unknown, want known (the Spanish lesson's word)")
	}
	if n, unknown := got["'sumarization':*"]; !unknown || n != "summar" {
		t.Errorf("sumarization: unknown %v, near %q; want unknown, near summar", unknown, n)
	}

	exec(`UPDATE lessons SET language = 'es' WHERE id = 'summary'`)
	if got := counts("summar"); !slices.Equal(got, []int{1, 0, 0}) {
		t.Errorf("after the lesson became Spanish: summar sections, en, es = %v, want [1 0 0]", got)
	}
	if got := counts("summarization"); !slices.Equal(got, []int{1, 0, 1}) {
		t.Errorf("after the lesson became Spanish: summarization sections, en, es = %v, want [1 0 1]", got)
	}
	// A section of no lesson is still refused by its foreign key.
	err := db.Exec(`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash) VALUES ('nope', 0, 'A', 'a', 'x', 'h')`).Error
	if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "23503" {
		t.Errorf("a section of no lesson: %v, want a foreign key violation", err)
	}
}

// TestUnknownChecksTogether has many questions check their words at the
// same moment, so the checks share batched statements: each gets its own
// unknown words, in its own order, with their near words, as when
// checked alone.
func TestUnknownChecksTogether(t *testing.T) {
	db := pgtest.New(t)
	seedChunks(t, db)
	s := models.NewChunks(db.DB)
	cases := []struct{ terms, want, near []string }{
		{[]string{"'troncal'", "'zebra'", "'rout':*", "'zebra'|'vlan'"}, []string{"'zebra'"}, []string{""}},
		{[]string{"'zebra'", "'giraffe':*"}, []string{"'zebra'", "'giraffe':*"}, []string{"", ""}},
		{[]string{"'switch'", "'vlan':*"}, nil, nil},
		{[]string{"'okapi'"}, []string{"'okapi'"}, []string{""}},
		{[]string{"'zebra'", "'broadcst':*", "'vlan'"}, []string{"'zebra'", "'broadcst':*"}, []string{"", "broadcast"}},
	}
	manyAtOnce(t, 80, func(i int) error {
		c := cases[i%len(cases)]
		got, err := s.Unknown(context.Background(), false, c.terms)
		if err != nil {
			return err
		}
		var near []string
		for _, u := range got {
			near = append(near, u.Near)
		}
		if !slices.Equal(termsOf(got), c.want) || !slices.Equal(near, c.near) {
			return fmt.Errorf("unknown of %q = %+v, want %q near %q", c.terms, got, c.want, c.near)
		}
		return nil
	})
}

// termsOf is the terms of an Unknown answer, in its order.
func termsOf(us []models.UnknownTerm) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.Term)
	}
	return out
}

// A word no section holds that is a likely misspelling of one they do
// hold comes back with that word (pg_trgm over lesson_terms); a word far
// from all, short, or close only by sharing a long part does not. A
// server without pg_trgm answers the same check with no near words.
func TestUnknownFindsTheNearWord(t *testing.T) {
	db := pgtest.New(t)
	seedChunks(t, db)
	cases := []struct{ term, near string }{
		{"'broadcst':*", "broadcast"},
		{"'forwads':*", "forward"},       // the English stem of "forwards", one slip from "forwad"
		{"'swtch':*", "switch"},          // one letter left out: 0.44 similar, one slip apart
		{"'swtich':*", "switch"},         // two neighbours swapped: 0.27, not even a trigram candidate
		{"'swtchi':*", ""},               // two slips
		{"'configuraton':*", "configur"}, // a garbled ending: the stem it begins with, 4 letters shorter
		{"'zebra'", ""},
		{"'vlna'", ""},                  // under NearRunes letters
		{"'autoconfigure':*", ""},       // "configur" shares most of it, but is 4 letters shorter
		{"'broadcst':*|'difusion'", ""}, // a translation known: not unknown at all
	}
	var terms []string
	for _, c := range cases {
		terms = append(terms, c.term)
	}
	got := nearWords(t, db, false, terms)
	for _, c := range cases {
		n, unknown := got[c.term]
		if c.term == "'broadcst':*|'difusion'" {
			if unknown {
				t.Errorf("%s unknown, want known through its translation", c.term)
			}
			continue
		}
		if !unknown || n != c.near {
			t.Errorf("%s: unknown %v, near %q; want unknown, near %q", c.term, unknown, n, c.near)
		}
	}

	if err := db.Exec(`DROP EXTENSION pg_trgm CASCADE;
		CREATE OR REPLACE FUNCTION enable_term_trigrams() RETURNS boolean LANGUAGE sql AS 'SELECT false'`).Error; err != nil {
		t.Fatal(err)
	}
	got = nearWords(t, db, false, terms)
	if n, unknown := got["'broadcst':*"]; !unknown || n != "" {
		t.Errorf("without pg_trgm: broadcst unknown %v, near %q; want unknown, no near word", unknown, n)
	}
	if len(got) != 9 {
		t.Errorf("without pg_trgm: %d unknown terms, want 9: %v", len(got), got)
	}
}

// Authors publishing at once each rewrite a lesson's sections in a
// transaction (delete them, insert the new ones), and their lessons share
// words: the triggers keeping lesson_terms lock its rows in one order,
// so no two publishes deadlock, and the counts come out right.
func TestLessonTermsPublishedAtOnce(t *testing.T) {
	db := pgtest.New(t)
	seedChunks(t, db)
	const authors = 12
	words := strings.Fields("vlan switch trunk port router route network frame tagging access mask subnet host prefix")
	for a := range authors {
		if err := db.Exec(`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash) VALUES (?, 1, ?, 'en', 'x', 'x')`,
			fmt.Sprintf("l%d", a), fmt.Sprintf("Lesson %d", a)).Error; err != nil {
			t.Fatal(err)
		}
	}
	text := func(a, round, section int) string {
		var out []string
		for k := range words {
			out = append(out, words[(k*(a+1)+round+section)%len(words)])
		}
		return strings.Join(out, " ")
	}
	manyAtOnce(t, authors, func(a int) error {
		for round := range 4 {
			err := db.Transaction(func(tx *gorm.DB) error {
				if err := tx.Exec(`DELETE FROM lesson_chunks WHERE lesson_id = ?`, fmt.Sprintf("l%d", a)).Error; err != nil {
					return err
				}
				return tx.Exec(`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash)
					VALUES (?, 0, 'A', 'a', ?, 'h'), (?, 1, 'B', 'b', ?, 'h')`,
					fmt.Sprintf("l%d", a), text(a, round, 0), fmt.Sprintf("l%d", a), text(a, round, 1)).Error
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	var wrong []string
	if err := db.Raw(`SELECT t.lexeme FROM lesson_terms t FULL JOIN (
			SELECT w, count(*) AS n, count(*) FILTER (WHERE en) AS en, count(*) FILTER (WHERE es) AS es FROM (
				SELECT DISTINCT c.id, w, l.language = 'en' AND w = ANY (tsvector_to_array(c.tsv_en)) AS en,
					l.language = 'es' AND w = ANY (tsvector_to_array(c.tsv_es)) AS es
				FROM lesson_chunks c JOIN lessons l ON l.id = c.lesson_id,
					unnest(array_cat(tsvector_to_array(c.tsv_en), tsvector_to_array(c.tsv_es)) || '{""}') AS w) x GROUP BY w) c
			ON c.w = t.lexeme WHERE coalesce(t.sections, 0) <> coalesce(c.n, 0) OR coalesce(t.en, 0) <> coalesce(c.en, 0)
				OR coalesce(t.es, 0) <> coalesce(c.es, 0)`).Scan(&wrong).Error; err != nil {
		t.Fatal(err)
	}
	if len(wrong) > 0 {
		t.Errorf("lesson_terms counts differ from the sections for %q", wrong)
	}
}

// The help check finds near words among the help articles' own words
// (help_terms, which follows the help sections as lesson_terms follows the
// lessons'), and none without pg_trgm.
func TestUnknownHelpFindsTheNearWord(t *testing.T) {
	db := pgtest.New(t)
	for _, q := range []string{
		`INSERT INTO help_articles (id, title, language, content_md, content_hash) VALUES ('quotas', 'Quotas', 'en', 'x', 'x')`,
		`INSERT INTO help_chunks (article_id, position, heading, anchor, text, hash) VALUES
			('quotas', 0, 'Reaching your limit', 'limit', 'When you reach your monthly quota the tutor stops answering.', 'h')`,
	} {
		if err := db.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	check := func() map[string]string {
		t.Helper()
		return nearWords(t, db, true, []string{"'quotta':*", "'zebra'", "'reach':*"})
	}
	if got := check(); len(got) != 2 || got["'quotta':*"] != "quota" || got["'zebra'"] != "" {
		t.Errorf("help check = %v, want quotta near quota and zebra unknown", got)
	}
	if err := db.Exec(`UPDATE help_chunks SET heading = 'Limits', text = 'A zebra resets the quota.' WHERE article_id = 'quotas'`).Error; err != nil {
		t.Fatal(err)
	}
	if got := check(); len(got) != 2 || got["'quotta':*"] != "quota" || got["'reach':*"] != "" {
		t.Errorf("after the edit: help check = %v, want quotta near quota and reach unknown", got)
	}
	if err := db.Exec(`DROP EXTENSION pg_trgm CASCADE;
		CREATE OR REPLACE FUNCTION enable_term_trigrams() RETURNS boolean LANGUAGE sql AS 'SELECT false'`).Error; err != nil {
		t.Fatal(err)
	}
	if got := check(); len(got) != 2 || got["'quotta':*"] != "" {
		t.Errorf("without pg_trgm: help check = %v, want both unknown, no near word", got)
	}
}

// nearWords runs a fresh store's check of terms: each unknown term with
// its near word ("" none).
func nearWords(t *testing.T, db *pgtest.DB, help bool, terms []string) map[string]string {
	t.Helper()
	got, err := models.NewChunks(db.DB).Unknown(context.Background(), help, terms)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, u := range got {
		m[u.Term] = u.Near
	}
	return m
}

// An identifier written with its package ("sync.WaitGroup", "errors.Is")
// is one token to PostgreSQL's parser; its parts are words of the section
// too (migration 00110), so "WaitGroup" finds it, and the whole token
// still does. A number with dots stays whole.
func TestIdentifiersMatchByTheirParts(t *testing.T) {
	db := pgtest.New(t)
	for _, q := range []string{
		`INSERT INTO paths (id, slug, title, language) VALUES (1, 'go', 'Go', 'en')`,
		`INSERT INTO modules (id, path_id, slug, title) VALUES (1, 1, 'm1', 'Concurrency')`,
		`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash) VALUES ('conc', 1, 'Concurrency', 'en', 'x', 'x')`,
		`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash) VALUES
			('conc', 0, 'Waiting with sync.WaitGroup', 'wg', 'Call wg.Done() when a goroutine ends.', 'h'),
			('conc', 1, 'Addresses', 'addr', 'The host 10.20.30.40 is up.', 'h')`,
	} {
		if err := db.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	s := models.NewChunks(db.DB)
	for _, match := range []string{"'waitgroup':*", "'sync.waitgroup'", "'done':*"} {
		rows, err := s.Search(context.Background(), models.ChunkSearch{Lang: "en", Match: match, RankBy: match, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Anchor != "wg" {
			t.Errorf("search %s = %v, want the WaitGroup section", match, rows)
		}
	}
	var n int
	if err := db.Raw(`SELECT count(*) FROM lesson_terms WHERE lexeme IN ('10', '20', '30', '40') AND sections > 0`).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d parts of an address counted as words, want none", n)
	}
}
