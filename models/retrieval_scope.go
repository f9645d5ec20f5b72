package models

import (
	"strconv"
	"strings"
)

// A search within one lesson (the lesson panel's first search) or one
// module (its second) had the same statement as a search of every
// lesson, its scope a condition ("no lesson, or this one") that a generic
// plan (see planOnce) keeps as it is: PostgreSQL read every section
// matching the question among all the lessons and only then kept the
// lesson's. Among 10,000 lessons a panel question that reached its module
// or every lesson read 5,160 matches to keep 16 (10.8 of a search's 12.6
// ms), and such questions were the slowest of the eval at scale (p99 45–57
// ms). Each scope now has its own statement, whose condition the lesson
// index (lesson_chunks_lesson_anchor_idx) or the module index
// (lessons_module_idx) serves.
var scopedChunksSQL = [scopes]string{
	scopeAll:    lessonChunksWith(`(@lesson = '' OR c.lesson_id = @lesson) AND (@module = 0 OR l.module_id = @module)`, true),
	scopeLesson: lessonChunksWith(`c.lesson_id = @lesson AND (@module = 0 OR l.module_id = @module)`, false),
	scopeModule: lessonChunksWith(`l.module_id = @module AND (@lesson = '' OR c.lesson_id = @lesson)`, false),
}

// The scopes of a lesson search: every lesson, one lesson, one module.
const (
	scopeAll = iota
	scopeLesson
	scopeModule
	scopes
)

// scopeOf is the scope of a search of lesson ("" none) and module (0 none).
func scopeOf(lesson string, module int64) int {
	switch {
	case lesson != "":
		return scopeLesson
	case module != 0:
		return scopeModule
	}
	return scopeAll
}

// The statements that run many lesson searches of one scope at once:
// each input row runs the single search's query with
// its own parameters. A class's batch is mostly of one scope (a class
// reads the same screen); one statement holding the three scopes' queries
// took three times as long to plan on each of the pool's connections, so
// a batch runs one statement per scope it holds (see runSearches).
var scopedSearchesSQL = [scopes]string{
	scopeAll:    searchesOf(scopedChunksSQL[scopeAll]),
	scopeLesson: searchesOf(scopedChunksSQL[scopeLesson]),
	scopeModule: searchesOf(scopedChunksSQL[scopeModule]),
}

// searchesOf is the batch statement running query for each input.
func searchesOf(query string) string {
	return `SELECT r.i, s.* FROM json_to_recordset(CAST(@searches AS json)) AS r(i int, lang text, match text, rank text, rankx text,
	lesson text, module bigint, lim int, ctx text, cw float8, prev bigint, prevbonus float8, prevlift float8, asked text, topic text)
	CROSS JOIN LATERAL (` + strings.NewReplacer("@lang", "r.lang", "@match", "r.match", "@rankx", "r.rankx", "@rank", "r.rank",
		"@lesson", "r.lesson", "@module", "r.module", "@limit", "r.lim",
		"@ctx", "r.ctx", "@cw", "r.cw", "@prevbonus", "r.prevbonus", "@prevlift", "r.prevlift", "@prev", "r.prev",
		"@asked", "r.asked", "@topic", "r.topic").
		Replace(query) + `) s
	ORDER BY r.i, s.score DESC, s.chunk_id`
}

// A question whose rarest word more than lessonHeadings sections hold
// (among 10,000 generated lessons "vlan" is in 3,169) searched every
// lesson by ranking every one of those sections, and the best 200 by
// ts_rank, whose heading weighs ten times the text, are the sections
// naming the word in their heading whenever there are 200 of those. Such
// a search of every lesson takes the sections naming its words in their
// heading (the question's tsqueries with weight A, headingsQSQL) as its
// candidates; only when fewer than @limit do, all the matches, as before.
// A lesson's or a module's search ranks every match of its scope.
const lessonHeadings = 1000

// headingsQSQL is the search's tsqueries (see lessonChunksWith) and, when
// its rarest word is that common, the same restricted to headings (hen,
// hes; else null, which matches nothing without reading the index). The
// pattern has no question mark: gorm would take it for a parameter.
var headingsQSQL = `q AS MATERIALIZED (SELECT to_tsquery('english', m) AS en, to_tsquery('spanish', m) AS es,
		CASE WHEN rarest > ` + strconv.Itoa(lessonHeadings) + ` THEN to_tsquery('english', h) END AS hen,
		CASE WHEN rarest > ` + strconv.Itoa(lessonHeadings) + ` THEN to_tsquery('spanish', h) END AS hes,
		coalesce(rarest > ` + strconv.Itoa(lessonHeadings) + `, false) AS common,
		to_tsquery('english', @match) AS fen, to_tsquery('spanish', @match) AS fes
		FROM (SELECT coalesce(pool.match, @match) AS m, pool.rarest,
			regexp_replace(coalesce(pool.match, @match), '(''([^'']|'''')*'')(:(\*)|)', '\1:A\4', 'g') AS h FROM pool) p)`

// headingsCandSQL is candSQL for a search of every lesson: the heading
// matches when there are @limit of them, else every match. The heading
// matches are not looked for unless the word is that common (a condition
// of no row, so PostgreSQL decides it once): looking cost every other
// search about 0.5 ms on the demo content.
func headingsCandSQL(from, filter string) string {
	return `head AS MATERIALIZED (` + candQuery(from, `(SELECT common FROM q) AND (c.tsv_en @@ q.hen OR c.tsv_es @@ q.hes) AND `+filter) + `),
	cand AS MATERIALIZED (SELECT * FROM head WHERE (SELECT count(*) FROM head) >= CAST(@limit AS int)
		UNION ALL (` + candQuery(from, `(c.tsv_en @@ q.en OR c.tsv_es @@ q.es) AND `+filter+` AND (SELECT count(*) FROM head) < CAST(@limit AS int)`) + `))`
}
