package models

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Chunk is a lesson or help section found for a question.
type Chunk struct {
	Kind     string  `json:"kind"`               // "lesson" or "help"
	ChunkID  int64   `json:"chunkId"`            // lesson_chunks.id or help_chunks.id
	LessonID string  `json:"lessonId,omitempty"` // lesson id, or help article id for help chunks
	Title    string  `json:"title,omitempty"`    // lesson or article title
	Heading  string  `json:"heading"`            // section heading
	Anchor   string  `json:"anchor"`             // fragment id of the section in the lesson page
	Text     string  `json:"-"`                  // the chunk's text
	Score    float64 `json:"score"`              // retrieval rank
	// Cover is the share of the question's own words (each weighed by
	// its rarity) the chunk holds, or their translations: how much of the
	// question it can answer.
	Cover float64 `json:"-"`
	Hash  string  `json:"hash"` // sha256 of the chunk text when retrieved
}

// ChunkSearch is one ranked full-text search over lesson or help chunks.
type ChunkSearch struct {
	Help     bool   // help articles instead of lessons
	Lang     string // the question's language: material in it ranks first
	OnlyLang bool   // only material in Lang (help: articles exist in both languages)
	Match    string // tsquery text a chunk must match, in either configuration
	// RankBy is tsquery text the matches are ranked against: the
	// question's own terms, OR-ed (" | "). A term may be a word with its
	// synonyms ("'check':*|'verify':*"): it ranks as the best of them, so
	// a section holding two of them counts the question's word once.
	RankBy string
	// RankOther ranks material in the other language instead: the
	// question's terms, each with its translations in its term (a bridge
	// across languages that leaves the ranking of the question's own
	// language alone).
	RankOther string
	// Context is tsquery text of the thread's earlier turns ("" none):
	// it adds ContextWeight times its rank, so a follow-up's own words
	// decide and the thread only breaks ties and fills in for a pronoun.
	Context       string
	ContextWeight float64
	// Prev is the section the previous answer cited first (0 none): it
	// gains PrevBonus, so "and why?" stays on it.
	Prev      int64
	PrevBonus float64
	// PrevLift multiplies the score of the sections of Prev's lesson (or
	// article) by 1 + PrevLift: a follow-up stays in the lesson the
	// thread is reading unless its own words lead elsewhere.
	PrevLift float64
	// Asked is the question's words as asked, stopwords and all, and
	// Topic its topic words, each space-separated: a question restating
	// a lesson's title asks what the lesson is about (see titleLift).
	Asked, Topic string
	LessonID     string // only this lesson ("" any)
	ModuleID     int64  // only this lesson module (0 any)
	Limit        int
}

// OtherLangWeight discounts material in the other language: a student
// asking in Spanish gets the Spanish lesson's section before the English
// one on the same topic, but still gets the English one when it is all
// there is. A section of the other language holding more of the
// question's words (its cover, each word counted once whether matched
// as itself, a synonym or a translation) than any in the question's
// language is not on the same topic, and is not discounted: "¿Qué es
// VLSM en subredes?" is the English VLSM section, not the Spanish one on
// VLANs and subnets (recall@1 0.870 → 0.876; with a margin of 0.2 it
// changed nothing).
const OtherLangWeight = 0.4

// introWeight discounts a lesson's introduction (the text before its
// first section, whose heading is the lesson's title): the title names
// what the whole lesson is about, so as a heading it made the
// introduction outrank the section a question is about (recall@1 0.819
// at 1, 0.845 at 0.8, 0.850 at 0.6, 0.855 at 0.5 and 0.4).
const introWeight = "0.5"

// titleLift is introWeight for the introduction of a lesson whose title
// the question restates: every topic word of the question is in the
// title and the question holds at least three quarters of the title's
// words, stopwords included ("What is a VLAN and why would I use one?"
// and the lesson "What a VLAN is and why it matters", "¿Qué es una
// VLAN?" and "Qué es una VLAN"). Such a question asks what the whole
// lesson is about, which its introduction says; the title's one topic
// word ("VLAN") alone ranked every section naming it in its heading
// first. Titles and questions are compared as the simple configuration
// splits and lower-cases them. Recall@1 0.870 → 0.879 at 2 (those two
// turns; no discount, 1, was not enough for either); the rule matches
// no other turn of the eval set.
const titleLift = "2"

// restatesSQL says whether the question (@asked, @topic) restates the
// heading of section c, the title for an introduction (see titleLift).
const restatesSQL = `(SELECT x.t <@ x.h AND cardinality(x.t) > 0
		AND (SELECT count(*) FROM unnest(x.h) AS w WHERE w = ANY(x.s)) * 4 >= cardinality(x.h) * 3
	FROM (SELECT tsvector_to_array(to_tsvector('simple', c.heading)) AS h, tsvector_to_array(to_tsvector('simple', @asked)) AS s,
		tsvector_to_array(to_tsvector('simple', @topic)) AS t) x)`

// rankWeights are ts_rank's weights of the text (D) and the heading (A):
// the heading weighs 2.5 times the text. At ten times (PostgreSQL's
// default, 0.1 for the text) every section with "VLAN" in its heading
// outranked the one whose text held the question's rarer words
// (recall@1 0.756; 0.782 at 0.2, 0.808 at 0.3, 0.813 at 0.4, 0.819 at
// 0.5 but one uncovered turn fewer said none).
const rankWeights = "{0.4,0.2,0.4,1}"

// rankNorm is ts_rank's normalization: none. Dividing by the section's
// length (1, 2) or squashing the rank (32) ranked worse on the eval set
// (recall@1 0.50, 0.19 and 0.62 against 0.61).
const rankNorm = "0"

// The ranked search over chunks c (with their lesson or article l). A
// chunk matches through either configuration (a Spanish question may name
// an English term) but is ranked in its own language's, which stems it
// correctly. Its score is a sum over the query's terms, each of them
// ts_rank on that term alone (the heading weighs ten times the text,
// capped at 1: a prefix matching "router", "routing" and "route" in one
// heading counted thrice) times the term's rarity (idf): ts_rank on the
// whole query counts "vlan" in a VLAN lesson as much as "native", so the
// section using the common word most outranked the one the question is
// about. A term of synonyms ("a|b") ranks as the best of its words,
// with the rarity of the commonest. The question's own terms (@rank) rank
// the material in its language, the same terms with their translations
// in each (@rankx) the other language's, the thread's (@ctx) every chunk
// at @cw. The scope filters are constant in each execution, so the
// planner drops the ones not asked for.
const rankTermsSQL = `terms AS (SELECT t, w, other, ctx, to_tsquery('english', m) AS en, to_tsquery('spanish', m) AS es FROM (
		SELECT t, CAST(1 AS float8) AS w, false AS other, false AS ctx FROM unnest(string_to_array(@rank, ' | ')) AS t
		UNION ALL SELECT t, 1, true, false FROM unnest(string_to_array(@rankx, ' | ')) AS t
		UNION ALL SELECT @ctx, CAST(@cw AS float8), false, true) x
		CROSS JOIN LATERAL unnest(CASE WHEN ctx THEN ARRAY[t] ELSE string_to_array(t, '|') END) AS m WHERE t <> '')`

// rankedSQL is the part every search shares once the candidates (cand:
// id, lang, tsv) and each term's rarity (idf: t, idf) are known. The
// sections' text is read for the first @limit only (top): among 10,000
// lessons a common word ranks 200, and reading every one's text cost
// about 3 ms.
func rankedSQL(cols, from, doc string) string {
	return `hits AS (SELECT cand.id, terms.t, terms.w, terms.ctx, max(least(1, ts_rank('` + rankWeights + `', cand.tsv, CASE WHEN cand.lang = 'es' THEN terms.es ELSE terms.en END, ` + rankNorm + `))) AS r
		FROM cand CROSS JOIN terms WHERE terms.ctx OR terms.other = (cand.lang <> @lang) GROUP BY cand.id, terms.t, terms.w, terms.ctx),
	scored AS (SELECT hits.id, sum(hits.w * idf.idf * hits.r) AS s,
		least(1, coalesce(sum(idf.idf) FILTER (WHERE hits.r > 0 AND NOT hits.ctx), 0)
			/ (SELECT nullif(sum(idf.idf), 0) FROM idf WHERE idf.t IN (SELECT t FROM terms WHERE NOT terms.other AND NOT terms.ctx))) AS cover
		FROM hits JOIN idf USING (t) GROUP BY hits.id),
	top AS (SELECT c.id, coalesce(scored.cover, 0) AS cover,
		(scored.s + CASE WHEN c.id = @prev THEN CAST(@prevbonus AS float8) ELSE 0 END)
		* CASE WHEN ` + doc + ` = (SELECT ` + doc + ` FROM ` + from + ` WHERE c.id = @prev) THEN 1 + CAST(@prevlift AS float8) ELSE 1 END
		* CASE WHEN c.anchor <> '' THEN 1 WHEN ` + restatesSQL + ` THEN ` + titleLift + ` ELSE ` + introWeight + ` END
		* CASE WHEN l.language = @lang THEN 1
			WHEN coalesce(scored.cover, 0) > coalesce((SELECT max(b.cover) FROM scored b JOIN cand USING (id) WHERE cand.lang = @lang), 0) THEN 1
			ELSE CAST(@weight AS float8) END AS score
		FROM scored JOIN ` + from + ` ON c.id = scored.id
		ORDER BY score DESC, c.id LIMIT @limit)
	SELECT ` + cols + `, top.cover, top.score FROM top JOIN ` + from + ` ON c.id = top.id
	ORDER BY top.score DESC, c.id`
}

// candSQL selects the chunks matching q's tsqueries en and es within
// filter: the lessonCands best by ts_rank on the whole query (q.fen,
// q.fes), the rest could not come first; ranking each term of each
// match costs ten times more.
func candSQL(from, filter string) string {
	return `cand AS MATERIALIZED (` + candQuery(from, `(c.tsv_en @@ q.en OR c.tsv_es @@ q.es) AND `+filter) + `)`
}

// candQuery is candSQL's statement, the chunks of from matching where.
func candQuery(from, where string) string {
	return `SELECT c.id, l.language AS lang, CASE WHEN l.language = 'es' THEN c.tsv_es ELSE c.tsv_en END AS tsv
		FROM ` + from + `, q WHERE ` + where + `
		ORDER BY ts_rank(CASE WHEN l.language = 'es' THEN c.tsv_es ELSE c.tsv_en END, CASE WHEN l.language = 'es' THEN q.fes ELSE q.fen END, ` + rankNorm + `) DESC, c.id
		LIMIT ` + strconv.Itoa(lessonCands)
}

// lessonCands is how many matches of a search are ranked term by term.
const lessonCands = 200

// lessonPool bounds the lesson sections ranked for a question on the
// Chat screen. A lesson search reads each term's rarity from lesson_terms
// (how many sections hold a word, migration 00106): among 10,000 lessons
// a common word ("switch", "error") matches thousands of sections, and
// ranking them all took p99 past a second. So the match is narrowed to
// the question's rarest terms, fewest sections first, while together
// they hold at most lessonPool sections (the rarest always, however
// many): a section sharing only a common word with the question would
// not rank first anyway. Within one lesson or module every match is
// ranked.
const lessonPool = 400

// lessonChunksWith is the lesson search whose candidates are the matches
// filter keeps (see retrieval_scope.go): df is, for each term, how many
// sections hold a word it matches (for a prefix, every word it begins),
// in either language's stemming, whichever is more.
func lessonChunksWith(filter string, headings bool) string {
	from := `lesson_chunks c JOIN lessons l ON l.id = c.lesson_id`
	q, cand := `q AS MATERIALIZED (SELECT to_tsquery('english', coalesce(pool.match, @match)) AS en, to_tsquery('spanish', coalesce(pool.match, @match)) AS es,
		to_tsquery('english', @match) AS fen, to_tsquery('spanish', @match) AS fes FROM pool)`, candSQL(from, filter)
	if headings {
		q, cand = headingsQSQL, headingsCandSQL(from, filter)
	}
	return `WITH ` + rankTermsSQL + `,
	words AS (SELECT x.t, split_part(m, '''', 2) AS word, m LIKE '%:*' AS prefix FROM (
		SELECT unnest(string_to_array(@match, ' | ')) AS t UNION SELECT t FROM terms WHERE NOT ctx) x
		CROSS JOIN LATERAL unnest(string_to_array(x.t, '|')) AS m),
	df AS (SELECT words.t, max(greatest(1, (SELECT coalesce(max(n), 0) FROM (SELECT sum(v.sections) AS n
			FROM unnest(array_cat(tsvector_to_array(to_tsvector('english', words.word)), tsvector_to_array(to_tsvector('spanish', words.word)))) AS s
			JOIN lesson_terms v ON v.lexeme >= s AND v.lexeme < s || CASE WHEN words.prefix THEN chr(1114111) ELSE chr(1) END
			GROUP BY s) y))) AS n FROM words GROUP BY words.t),
	pool AS (SELECT string_agg(t, ' | ') AS match, min(n) AS rarest FROM (
		SELECT m.t, df.n, sum(df.n) OVER (ORDER BY df.n, m.t ROWS UNBOUNDED PRECEDING) - df.n AS before
		FROM (SELECT DISTINCT unnest(string_to_array(@match, ' | '))) AS m(t) JOIN df USING (t)) p
		WHERE before = 0 OR before + n <= ` + strconv.Itoa(lessonPool) + ` OR @lesson <> '' OR @module <> 0),
	` + q + `,
	` + cand + `,
	idf AS (SELECT df.t, ln(1 + (SELECT sections FROM lesson_terms WHERE lexeme = '') / (df.n + 0.5)) AS idf FROM df
		UNION ALL SELECT t, 1 FROM terms WHERE ctx),
	` + rankedSQL(`'lesson' AS kind, c.id AS chunk_id, c.lesson_id, l.title, c.heading, c.anchor, c.text, c.hash`,
		`lesson_chunks c JOIN lessons l ON l.id = c.lesson_id`, `c.lesson_id`)
}

// helpChunksSQL: help articles are few, so every match is ranked and a
// term's rarity is counted among the matches.
var helpChunksSQL = `WITH ` + rankTermsSQL + `,
	q AS MATERIALIZED (SELECT to_tsquery('english', @match) AS en, to_tsquery('spanish', @match) AS es,
		to_tsquery('english', @match) AS fen, to_tsquery('spanish', @match) AS fes),
	` + candSQL(`help_chunks c JOIN help_articles l ON l.id = c.article_id`, `(NOT @only OR l.language = @lang)`) + `,
	idf AS (SELECT terms.t, CASE WHEN terms.ctx THEN 1 ELSE ln(1 + (SELECT count(*) FROM cand) / (count(DISTINCT cand.id) + 0.5)) END AS idf
		FROM terms LEFT JOIN cand ON cand.tsv @@ CASE WHEN cand.lang = 'es' THEN terms.es ELSE terms.en END GROUP BY terms.t, terms.ctx),
	` + rankedSQL(`'help' AS kind, c.id AS chunk_id, c.article_id AS lesson_id, l.title, c.heading, c.anchor, c.text, c.hash`,
	`help_chunks c JOIN help_articles l ON l.id = c.article_id`, `c.article_id`)

// Chunks finds the lesson and help sections a question draws on.
type Chunks struct {
	db *gorm.DB
	// batch runs the lesson searches of questions asked together in one
	// statement, each distinct search once.
	batch *batcher[ChunkSearch, []Chunk]
	// unknown runs the lesson "not covered" checks of questions asked
	// together in one statement.
	unknown  *reader[unknownKey, []UnknownTerm]
	trigrams trigrams
	// checkedLesson and checkedHelp are the terms checked lately
	// (retrieval_known.go).
	checkedLesson, checkedHelp checkMemory
	now                        func() time.Time
}

// NewChunks returns the store on db.
func NewChunks(db *gorm.DB) *Chunks {
	s := &Chunks{db: db, now: time.Now}
	s.unknown = newReader(db, s.readUnknown)
	s.batch = newBatcher(batchWorkers, batchMax, s.searchMany)
	return s
}

// Search returns up to q.Limit chunks matching q.Match, best first.
// Lesson searches arriving together share one statement (see batcher):
// every question of a class searches before its answer can start.
func (s *Chunks) Search(ctx context.Context, q ChunkSearch) ([]Chunk, error) {
	if !q.Help && !inTx(ctx) {
		return s.batch.do(ctx, q)
	}
	return s.search(conn(ctx, s.db), q)
}

// planOnce runs fn's statements in a transaction in which PostgreSQL
// plans a statement once per connection (its generic plan) instead of
// for each execution: a batch of searches (see searchMany) is planned
// in about the time it takes to run on the demo content. A search run
// alone keeps its generic plan without it (see hideTexts). Other
// statements keep PostgreSQL's choice (every statement of aula with
// generic plans would lose the partial indexes that a status passed as a
// parameter selects), and so does a search in a caller's transaction
// (see WithTx): a setting there would outlive it.
func planOnce(ctx context.Context, db *gorm.DB, fn func(tx *gorm.DB) error) error {
	if inTx(ctx) {
		return fn(conn(ctx, db))
	}
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`SET LOCAL plan_cache_mode = force_generic_plan`).Error; err != nil {
			return fmt.Errorf("retrieve: %w", err)
		}
		return fn(tx)
	})
}

// search runs one search in its own statement.
func (s *Chunks) search(db *gorm.DB, q ChunkSearch) ([]Chunk, error) {
	query, args := searchStatement(q)
	var rows []Chunk
	err := db.Raw(query, args...).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	return rows, nil
}

// searchStatement is q's statement and its arguments.
func searchStatement(q ChunkSearch) (string, []any) {
	query := singleSQL[scopeOf(q.LessonID, q.ModuleID)]
	args := []any{sql.Named("lang", q.Lang), sql.Named("weight", OtherLangWeight), sql.Named("match", q.Match),
		sql.Named("rank", q.RankBy), sql.Named("rankx", cmp.Or(q.RankOther, q.RankBy)), sql.Named("limit", q.Limit), sql.Named("ctx", q.Context), sql.Named("cw", q.ContextWeight),
		sql.Named("prev", q.Prev), sql.Named("prevbonus", q.PrevBonus), sql.Named("prevlift", q.PrevLift),
		sql.Named("asked", q.Asked), sql.Named("topic", q.Topic)}
	if q.Help {
		query = helpSQL
		args = append(args, sql.Named("only", q.OnlyLang))
	} else {
		args = append(args, sql.Named("lesson", q.LessonID), sql.Named("module", q.ModuleID))
	}
	return query, args
}

// hidden is parameter name as a statement reads it so that PostgreSQL
// plans the statement once per connection and keeps that plan: behind a
// subquery the planner does not look into. A prepared statement is
// planned for its parameters' values (a custom plan) until the plan made
// for any value (a generic one) looks no costlier; with a question's
// terms in view the custom plan knew how many there were and always
// looked cheaper, so every search and every words' check was planned
// again, which cost about as much as running it on the demo content
// (a check 0.8–1.0 ms, 0.35–0.45 with its generic plan; README, "Planned
// once, without asking"). models TestSearchAndCheckKeepTheirGenericPlans.
func hidden(name string) string { return "(SELECT CAST(@" + name + " AS text))" }

// A search run alone hides its texts. Until 7 December a search forced
// the generic plan in a transaction of its own (planOnce), three more
// round trips: without them a heavy follow-up's search took 3.9–4.5 ms
// instead of 5.5–5.7 (same results).
var (
	hideTexts = strings.NewReplacer("@match", hidden("match"), "@rankx", hidden("rankx"),
		"@rank", hidden("rank"), "@ctx", hidden("ctx"), "@asked", hidden("asked"), "@topic", hidden("topic"))
	singleSQL = [scopes]string{hideTexts.Replace(scopedChunksSQL[scopeAll]), hideTexts.Replace(scopedChunksSQL[scopeLesson]),
		hideTexts.Replace(scopedChunksSQL[scopeModule])}
	helpSQL = hideTexts.Replace(helpChunksSQL)
)

// lessonSectionsSQL reads lesson sections as chunks; the caller adds
// which lessons and the order.
const lessonSectionsSQL = `SELECT 'lesson' AS kind, c.id AS chunk_id, c.lesson_id, l.title, c.heading, c.anchor, c.text, c.hash
	FROM lesson_chunks c JOIN lessons l ON l.id = c.lesson_id`

// OfLesson returns every chunk of a lesson in order, for the outline
// and for filling the lesson budget.
func (s *Chunks) OfLesson(ctx context.Context, lessonID string) ([]Chunk, error) {
	var rows []Chunk
	err := conn(ctx, s.db).Raw(lessonSectionsSQL+` WHERE c.lesson_id = ? ORDER BY c.position`, lessonID).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("lesson chunks: %w", err)
	}
	return rows, nil
}

// lessonSearch is one distinct lesson search of a batch, as the batch
// statement reads it.
type lessonSearch struct {
	I      int     `json:"i"`
	Lang   string  `json:"lang"`
	Match  string  `json:"match"`
	Rank   string  `json:"rank"`
	RankX  string  `json:"rankx"`
	Lesson string  `json:"lesson"`
	Module int64   `json:"module"`
	Limit  int     `json:"lim"`
	Ctx    string  `json:"ctx"`
	CW     float64 `json:"cw"`
	Prev   int64   `json:"prev"`
	PrevB  float64 `json:"prevbonus"`
	PrevL  float64 `json:"prevlift"`
	Asked  string  `json:"asked"`
	Topic  string  `json:"topic"`
}

// searchMany answers a batch of lesson searches: a search asked more
// than once (a class asking the same question) runs once, and one alone
// runs as its own statement; several run in planOnce. Every caller gets
// its own copy.
func (s *Chunks) searchMany(ctx context.Context, qs []ChunkSearch) ([][]Chunk, []error) {
	distinct := map[ChunkSearch]int{}
	var ins []lessonSearch
	for _, q := range qs {
		if _, ok := distinct[q]; !ok {
			distinct[q] = len(ins)
			ins = append(ins, lessonSearch{I: len(ins), Lang: q.Lang, Match: q.Match, Rank: q.RankBy, RankX: cmp.Or(q.RankOther, q.RankBy), Lesson: q.LessonID,
				Module: q.ModuleID, Limit: q.Limit, Ctx: q.Context, CW: q.ContextWeight, Prev: q.Prev, PrevB: q.PrevBonus, PrevL: q.PrevLift,
				Asked: q.Asked, Topic: q.Topic})
		}
	}
	found := make([][]Chunk, len(ins))
	var err error
	if len(ins) == 1 {
		found[0], err = s.search(s.db.WithContext(ctx), qs[0])
	} else {
		err = planOnce(ctx, s.db, func(tx *gorm.DB) error { return s.runSearches(tx, ins, found) })
	}
	if err != nil {
		return eachErr[[]Chunk](len(qs), err)
	}
	outs := make([][]Chunk, len(qs))
	for i, q := range qs {
		outs[i] = slices.Clone(found[distinct[q]])
	}
	return outs, make([]error, len(qs))
}

// runSearches runs the distinct searches ins, one statement per scope
// among them, and puts the matches of ins[i] in found[i], best first.
func (s *Chunks) runSearches(db *gorm.DB, ins []lessonSearch, found [][]Chunk) error {
	var byScope [scopes][]lessonSearch
	for _, in := range ins {
		sc := scopeOf(in.Lesson, in.Module)
		byScope[sc] = append(byScope[sc], in)
	}
	for sc, scoped := range byScope {
		if len(scoped) == 0 {
			continue
		}
		arg, err := json.Marshal(scoped)
		if err != nil {
			return fmt.Errorf("retrieve: %w", err)
		}
		var rows []searchRow
		if err := db.Raw(scopedSearchesSQL[sc], sql.Named("searches", string(arg)), sql.Named("weight", OtherLangWeight)).Scan(&rows).Error; err != nil {
			return fmt.Errorf("retrieve: %w", err)
		}
		for _, r := range rows {
			found[r.I] = append(found[r.I], r.Chunk)
		}
	}
	return nil
}

// searchRow is a match of a batch's search I.
type searchRow struct {
	I int
	Chunk
}
