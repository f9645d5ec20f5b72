package models

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
)

// unknownTermsSQL returns the tsquery texts of terms (an SQL text
// expression: space-separated, each one word or several joined by |)
// none of whose words any section holds (words: lessonWords or
// helpWords; a prefix any word it begins): the question names something
// the material never mentions. A word's English stem is looked up among
// the English sections' English words and its Spanish stem among the
// Spanish sections' Spanish words (migration 00113): the English stem of
// the Spanish verb "sumar" made "sumarization", a typo, a known word. A
// stopword of either language ("algo") names nothing: it counts as
// known. A lookup of a few words, however many sections there are: each
// word one range of the table's index (a word alone is the range [s, s +
// chr(1)), in its C collation), read up to its first row. An OR of the
// exact and the prefix condition made PostgreSQL read the whole table for
// each word instead (2.3 ms a question on the demo content, 0.06 ms
// now). OFFSET 0 keeps the check before nearLookup's join, so only the
// unknown words look for a near one.
func unknownTermsSQL(words, terms string) string {
	return `SELECT t, o FROM unnest(string_to_array(` + terms + `, ' ')) WITH ORDINALITY AS x(t, o)
	WHERE NOT EXISTS (SELECT 1 FROM unnest(string_to_array(t, '|')) AS p
		CROSS JOIN LATERAL (SELECT to_tsvector('english', split_part(p, '''', 2)) AS en, to_tsvector('spanish', split_part(p, '''', 2)) AS es) AS w
		CROSS JOIN LATERAL (SELECT s, true FROM unnest(tsvector_to_array(w.en)) AS s
			UNION ALL SELECT s, false FROM unnest(tsvector_to_array(w.es)) AS s
			UNION ALL SELECT NULL, NULL WHERE w.en = '' OR w.es = '') AS st(s, en)
		WHERE st.s IS NULL OR EXISTS (SELECT FROM ` + words + ` WHERE v.lexeme >= st.s
			AND v.lexeme < st.s || CASE WHEN p LIKE '%:*' THEN chr(1114111) ELSE chr(1) END
			AND CASE WHEN st.en THEN v.en ELSE v.es END > 0))
	OFFSET 0`
}

// Misspellings: an unknown word of at least NearRunes letters is taken
// for the sections' word closest to one of its stems by trigram
// similarity (pg_trgm), when that similarity is at least NearSimilarity
// ("bufered" → "buffer" 0.63, "gorrutina" → "gorutina" 0.73), it
// differs in length from the word as asked by at most NearLengths
// letters or is the beginning of its stem (five letters at least:
// "conversaton" → "convers", the stem of "conversation"), and begins
// with the same letter, as a typist's slip does. Trigrams alone took
// "autoconfiguration" for "configuration" (0.6) and "misconfiguration"
// (0.52), "listening" (stem "listen") for "list" (0.5). A word one slip
// from a stem is near too, however few trigrams they share (see
// oneEditSQL). As in the check itself, an English stem looks among the
// English sections' English words and a Spanish one among the Spanish
// sections' Spanish words: "búffer" had been taken for "buff", the
// English stemming's word for "buffer" that its Spanish stem happens to
// spell, and found the English lessons' buffered channels instead of the
// Spanish "búfer" (Spanish stem "buf", one slip from "buff"). The near
// word is one of letters and digits: it goes into tsquery text.
const (
	NearRunes      = 5
	NearSimilarity = 0.45
	NearLengths    = 2
)

// oneEditSQL says whether the lexeme v.lexeme and the stem s are one
// slip apart: a letter left out, added or replaced, or two neighbours
// swapped. Such a slip costs a short word most of its trigrams: "natve"
// (stem "natv") and "native" ("nativ") are 0.375 similar, under
// NearSimilarity, "swtch" and "switch" 0.44, "swicth" 0.27, under even
// the trigram index's threshold (0.3); so nearLookup asks it of the words
// sharing a short stem's first two letters, a range of the word table's
// index (see slipRunes).
const oneEditSQL = `abs(char_length(v.lexeme) - char_length(s)) <= 1 AND EXISTS (SELECT FROM generate_series(1, char_length(v.lexeme) + 1) AS i
		WHERE overlay(v.lexeme placing '' from i for 1) = s OR overlay(s placing '' from i for 1) = v.lexeme
			OR overlay(s placing '' from i for 1) = overlay(v.lexeme placing '' from i for 1)
			OR overlay(s placing substr(s, i + 1, 1) || substr(s, i, 1) from i for 2) = v.lexeme)`

// slipRunes is the longest stem whose words one slip away are looked
// for by oneEditSQL. A slip changes at most four of a word's trigrams (a
// swap; a letter replaced or left out, three), so a stem of nine letters
// or more keeps similarity 0.45 with its slipped form and the trigram
// index finds it. Looking at every word sharing the first two letters
// of a long one cost up to 1 ms a stem among the 10,000 lessons'
// words ("co…": 2.7 ms for "conversaton", 0.9 before).
const slipRunes = 8

// nearLookup joins each unknown term (d.t) to the known word nearest
// its first word among words (a relation v of lexeme and its counts):
// lessonWords, read through lesson_terms' trigram index (migration
// 00108), or helpWords. Only used where pg_trgm is there. The first
// letters are compared with starts_with, not =: as an equality
// PostgreSQL hash-joined on it and read the whole table instead of the
// index (2 ms a word among the 10,000 lessons' 20,000 words, 0.05 ms on
// the index).
func nearLookup(words string) string {
	return `LEFT JOIN LATERAL (SELECT v.lexeme FROM (SELECT s, true AS en FROM unnest(tsvector_to_array(to_tsvector('english', split_part(d.t, '''', 2)))) AS s
			UNION ALL SELECT s, false FROM unnest(tsvector_to_array(to_tsvector('spanish', split_part(d.t, '''', 2)))) AS s) AS st(s, en)
		CROSS JOIN LATERAL (SELECT v.lexeme, v.en, v.es FROM ` + words + ` WHERE v.lexeme % s
				AND similarity(v.lexeme, s) >= ` + fmt.Sprint(NearSimilarity) + `
				AND (abs(char_length(v.lexeme) - char_length(split_part(d.t, '''', 2))) <= ` + fmt.Sprint(NearLengths) + `
					OR char_length(v.lexeme) >= 5 AND starts_with(s, v.lexeme))
			UNION SELECT v.lexeme, v.en, v.es FROM ` + words + ` WHERE char_length(s) <= ` + fmt.Sprint(slipRunes) + `
				AND v.lexeme >= left(s, 2) AND v.lexeme < left(s, 2) || chr(1114111) AND ` + oneEditSQL + `) v
		WHERE CASE WHEN st.en THEN v.en ELSE v.es END > 0 AND starts_with(v.lexeme, left(s, 1)) AND v.lexeme !~ '[^[:alnum:]]'
			AND char_length(split_part(d.t, '''', 2)) >= ` + fmt.Sprint(NearRunes) + `
		ORDER BY similarity(v.lexeme, s) DESC, CASE WHEN st.en THEN v.en ELSE v.es END DESC, v.lexeme LIMIT 1) n ON true`
}

// The words of the sections with how many sections hold each, kept by
// triggers and indexed (migrations 00106 and 00111): the lessons' and the
// help articles'. The help's were read from every help section's vectors
// until 00111, 3–5 ms a help question with an unknown word.
const (
	lessonWords = `lesson_terms v`
	helpWords   = `help_terms v`
)

// oneCheckTerms is a check's terms, hidden from the planner (see hidden).
var oneCheckTerms = hidden("terms")

// checkSQL is one question's check: its terms no section of words
// (lessonWords or helpWords) holds, in the question's order, each with
// its near word among them when near (pg_trgm is there), else "".
func checkSQL(words string, near bool) string {
	if !near {
		return `SELECT d.t, '' AS near FROM (` + unknownTermsSQL(words, oneCheckTerms) + `) d ORDER BY d.o`
	}
	return `SELECT d.t, coalesce(n.lexeme, '') AS near FROM (` + unknownTermsSQL(words, oneCheckTerms) + `) d ` + nearLookup(words) + ` ORDER BY d.o`
}

// unknownManySQL runs the lesson check for many questions in one
// statement: the unknown terms of each input i, and with near each
// distinct unknown word's near one. A term is looked up once however
// many of the questions hold it (a class asks about the same things: the
// benchmark's 200 questions hold about 30 distinct terms, which were
// looked up 600 times a burst; "relate", unknown, took 200 trigram
// lookups, 0.1–0.2 ms of PostgreSQL's CPU per answer).
func unknownManySQL(near bool) string {
	u := `WITH asked AS MATERIALIZED (SELECT r.i, a.t, a.o FROM json_to_recordset(CAST(? AS json)) AS r(i int, terms text)
		CROSS JOIN LATERAL unnest(string_to_array(r.terms, ' ')) WITH ORDINALITY AS a(t, o)),
	unknown AS MATERIALIZED (` + unknownTermsSQL(lessonWords, `(SELECT string_agg(DISTINCT t, ' ') FROM asked)`) + `),
	u AS (SELECT asked.i, asked.t, asked.o FROM asked JOIN unknown USING (t))`
	if !near {
		return u + ` SELECT u.i, u.t, '' AS near FROM u ORDER BY u.i, u.o`
	}
	return u + `, near AS MATERIALIZED (SELECT d.t, coalesce(n.lexeme, '') AS near FROM unknown d ` + nearLookup(lessonWords) + `)
	SELECT u.i, u.t, near.near FROM u JOIN near USING (t) ORDER BY u.i, u.o`
}

// The check statements, built once (every question makes a check), each
// without and with the near-word lookup.
var (
	lessonCheckSQL = [2]string{checkSQL(lessonWords, false), checkSQL(lessonWords, true)}
	helpCheckSQL   = [2]string{checkSQL(helpWords, false), checkSQL(helpWords, true)}
	manyCheckSQL   = [2]string{unknownManySQL(false), unknownManySQL(true)}
)

// withNear indexes the check statements: 1 with the near-word lookup.
func withNear(on bool) int {
	if on {
		return 1
	}
	return 0
}

// UnknownTerm is a question's term no section holds, with Near, the
// sections' word (a lexeme) it is most likely a misspelling of, or "".
type UnknownTerm struct {
	Term string `gorm:"column:t"`
	Near string
}

// unknownKey is one question's lesson check: its terms, space-separated.
type unknownKey struct {
	I     int    `json:"i"`
	Terms string `json:"terms"`
}

// trigrams says, once found out, whether lesson_terms has its trigram
// index: enable_term_trigrams() creates it when pg_trgm was installed
// after the migration ran.
type trigrams struct {
	mu        sync.Mutex
	known, on bool
}

// enabled finds out on the first call that succeeds.
func (g *trigrams) enabled(db *gorm.DB) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.known {
		if err := db.Raw(`SELECT enable_term_trigrams()`).Row().Scan(&g.on); err != nil {
			return false, fmt.Errorf("enable term trigrams: %w", err)
		}
		g.known = true
	}
	return g.on, nil
}

// Unknown returns which of terms (tsquery texts without spaces) no lesson
// section, or no help section when help, matches: the confidence check
// behind "the lessons do not cover this", and for a lesson's word the
// word it is likely a misspelling of. Only published lessons have
// sections, so a draft's words count as unknown. The lesson checks of
// questions asked together share one statement (every question of a
// class makes one before its answer can start); none runs in planOnce:
// its transaction's three round trips cost more than planning a lookup
// this small (0.47–0.51 ms a call with them, 0.29–0.38 without).
func (s *Chunks) Unknown(ctx context.Context, help bool, terms []string) ([]UnknownTerm, error) {
	mem := &s.checkedLesson
	if help {
		mem = &s.checkedHelp
	}
	recalled, ask := mem.recall(terms, s.now())
	if len(ask) == 0 {
		return recalled, nil
	}
	asked, err := s.unknownOf(ctx, help, ask)
	if err != nil {
		return nil, err
	}
	mem.learn(ask, asked, s.now())
	return inOrder(terms, recalled, asked), nil
}

// ContentChanged forgets the terms checked lately, lesson and help: the
// sections changed, in this process (Content.Changed) or in any
// (ContentChannel).
func (s *Chunks) ContentChanged() {
	s.checkedLesson.forget()
	s.checkedHelp.forget()
}

// UseClock makes the store read the time from now, which decides when a
// checked term is checked again (the tutor's tests freeze it).
func (s *Chunks) UseClock(now func() time.Time) { s.now = now }

// unknownOf is Unknown asking PostgreSQL about every one of terms.
func (s *Chunks) unknownOf(ctx context.Context, help bool, terms []string) ([]UnknownTerm, error) {
	if !help {
		return s.unknown.get(ctx, unknownKey{Terms: strings.Join(terms, " ")})
	}
	db := conn(ctx, s.db)
	on, err := s.trigrams.enabled(db)
	if err != nil {
		return nil, err
	}
	var out []UnknownTerm
	if err := db.Raw(helpCheckSQL[withNear(on)], sql.Named("terms", strings.Join(terms, " "))).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("unknown help terms: %w", err)
	}
	return out, nil
}

// readUnknown answers lesson checks in one statement, or in the single
// check's own when alone: outs[i] is ins[i]'s.
func (s *Chunks) readUnknown(db *gorm.DB, ins []unknownKey) ([][]UnknownTerm, error) {
	on, err := s.trigrams.enabled(db)
	if err != nil {
		return nil, err
	}
	out := make([][]UnknownTerm, len(ins))
	if len(ins) == 1 {
		err := db.Raw(lessonCheckSQL[withNear(on)], sql.Named("terms", ins[0].Terms)).Scan(&out[0]).Error
		if err != nil {
			return nil, fmt.Errorf("unknown terms: %w", err)
		}
		return out, nil
	}
	for i := range ins {
		ins[i].I = i
	}
	rows, err := jsonRows[struct {
		I    int
		T    string
		Near string
	}](db, "unknown terms", manyCheckSQL[withNear(on)], ins)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.I] = append(out[r.I], UnknownTerm{Term: r.T, Near: r.Near})
	}
	return out, nil
}
