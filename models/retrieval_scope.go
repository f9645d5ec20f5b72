package models

import "strings"

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
var (
	lessonChunksSQL = lessonChunksWith(`(@lesson = '' OR c.lesson_id = @lesson) AND (@module = 0 OR l.module_id = @module)`)
	inLessonSQL     = lessonChunksWith(`c.lesson_id = @lesson AND (@module = 0 OR l.module_id = @module)`)
	inModuleSQL     = lessonChunksWith(`l.module_id = @module AND (@lesson = '' OR c.lesson_id = @lesson)`)
)

// lessonChunksFor is the lesson search statement of a scope: a lesson
// ("" none) and a module (0 none).
func lessonChunksFor(lesson string, module int64) string {
	switch {
	case lesson != "":
		return inLessonSQL
	case module != 0:
		return inModuleSQL
	}
	return lessonChunksSQL
}

// lessonSearchesSQL runs many lesson searches in one statement: each
// input row runs the single search's query of its scope (fallback
// included) with its own parameters; a row's scope picks its branch
// before the branch runs.
var lessonSearchesSQL = `SELECT * FROM (` +
	searchesOf(inLessonSQL, `r.lesson <> ''`) + ` UNION ALL ` +
	searchesOf(inModuleSQL, `r.lesson = '' AND r.module <> 0`) + ` UNION ALL ` +
	searchesOf(lessonChunksSQL, `r.lesson = '' AND r.module = 0`) + `) x
	ORDER BY x.i, x.score DESC, x.chunk_id`

// searchesOf is one scope's branch of lessonSearchesSQL: the searches of
// the batch that where keeps, each running query.
func searchesOf(query, where string) string {
	return `SELECT r.i, s.* FROM json_to_recordset(CAST(@searches AS json)) AS r(i int, lang text, match text, rank text, rankx text,
	lesson text, module bigint, lim int, fallback text, enough int,
	ctx text, cw float8, prev bigint, prevbonus float8, prevlift float8)
	CROSS JOIN LATERAL (` + strings.NewReplacer("@lang", "r.lang", "@match", "r.match", "@rankx", "r.rankx", "@rank", "r.rank",
		"@lesson", "r.lesson", "@module", "r.module", "@limit", "r.lim", "@fallback", "r.fallback", "@enough", "r.enough",
		"@ctx", "r.ctx", "@cw", "r.cw", "@prevbonus", "r.prevbonus", "@prevlift", "r.prevlift", "@prev", "r.prev").
		Replace(withFallback(query)) + `) s
	WHERE ` + where
}
