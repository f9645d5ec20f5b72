package models

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// unknownTermsSQL returns the tsquery texts of @terms (space-separated,
// each one word or several joined by |) none of whose words any lesson
// section holds (lesson_terms, in either language's stemming; a prefix
// any word it begins): the question names something the material never
// mentions. A lookup of a few words, however many lessons there are:
// each word one range of lesson_terms' index (a word alone is the range
// [s, s + chr(1)), in its C collation), read up to its first row. An OR
// of the exact and the prefix condition made PostgreSQL read the whole
// table for each word instead (2.3 ms a question on the demo content,
// 0.06 ms now).
const unknownTermsSQL = `SELECT t FROM unnest(string_to_array(@terms, ' ')) AS t
	WHERE NOT EXISTS (SELECT 1 FROM unnest(string_to_array(t, '|')) AS p
		CROSS JOIN LATERAL unnest(array_cat(tsvector_to_array(to_tsvector('english', split_part(p, '''', 2))),
			tsvector_to_array(to_tsvector('spanish', split_part(p, '''', 2))))) AS s
		CROSS JOIN LATERAL (SELECT FROM lesson_terms v WHERE v.lexeme >= s
			AND v.lexeme < s || CASE WHEN p LIKE '%:*' THEN chr(1114111) ELSE chr(1) END AND v.sections > 0 LIMIT 1) v)`

const unknownHelpTermsSQL = `SELECT t FROM unnest(string_to_array(@terms, ' ')) AS t
	WHERE NOT EXISTS (SELECT 1 FROM help_chunks c WHERE c.tsv_en @@ to_tsquery('english', t) OR c.tsv_es @@ to_tsquery('spanish', t))`

// unknownManySQL runs the lesson check for many questions in one
// statement: the unknown terms of each input i.
var unknownManySQL = `SELECT r.i, u.t FROM json_to_recordset(CAST(? AS json)) AS r(i int, terms text)
	CROSS JOIN LATERAL (` + strings.ReplaceAll(unknownTermsSQL, "@terms", "r.terms") + `) u`

// unknownKey is one question's lesson check: its terms, space-separated.
type unknownKey struct {
	I     int    `json:"i"`
	Terms string `json:"terms"`
}

// Unknown returns which of terms (tsquery texts without spaces) no lesson
// section, or no help section when help, matches: the confidence check
// behind "the lessons do not cover this". Only published lessons have
// sections, so a draft's words count as unknown. The lesson checks of
// questions asked together share one statement (every question of a
// class makes one before its answer can start); none runs in planOnce:
// its transaction's three round trips cost more than planning a lookup
// this small (0.47–0.51 ms a call with them, 0.29–0.38 without).
func (s *Chunks) Unknown(ctx context.Context, help bool, terms []string) ([]string, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	if !help {
		return s.unknown.get(ctx, unknownKey{Terms: strings.Join(terms, " ")})
	}
	var out []string
	err := conn(ctx, s.db).Raw(unknownHelpTermsSQL, sql.Named("terms", strings.Join(terms, " "))).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("unknown terms: %w", err)
	}
	return out, nil
}

// readUnknown answers lesson checks in one statement, or in the single
// check's own when alone: outs[i] is ins[i]'s.
func readUnknown(db *gorm.DB, ins []unknownKey) ([][]string, error) {
	out := make([][]string, len(ins))
	if len(ins) == 1 {
		err := db.Raw(unknownTermsSQL, sql.Named("terms", ins[0].Terms)).Scan(&out[0]).Error
		if err != nil {
			return nil, fmt.Errorf("unknown terms: %w", err)
		}
		return out, nil
	}
	for i := range ins {
		ins[i].I = i
	}
	rows, err := jsonRows[struct {
		I int
		T string
	}](db, "unknown terms", unknownManySQL, ins)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.I] = append(out[r.I], r.T)
	}
	return out, nil
}
