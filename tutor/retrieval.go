package tutor

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"gorm.io/gorm"

	"aula/models"
)

// Retrieval defaults.
const (
	DefaultTopK       = 5
	maxRetrievalTerms = 24
)

// Retriever finds the lesson or help chunks most relevant to a query with
// PostgreSQL full-text search, in both the English and the Spanish
// configuration, so a question matches whatever language a lesson is in.
type Retriever struct{ db *gorm.DB }

// NewRetriever returns a retriever over db.
func NewRetriever(db *gorm.DB) *Retriever { return &Retriever{db: db} }

// Scope says where to search.
type Scope struct {
	Mode     string // lesson and tutor search lessons; help searches help articles
	LessonID string // lesson mode: search this lesson first
	ModuleID int64  // then its module
	Lang     string // the question's language: material in it ranks first
}

// Search returns up to k chunks for query, best first. In lesson mode it
// falls back from the lesson to its module and then to every lesson when
// the narrower scope has no match.
func (r *Retriever) Search(ctx context.Context, query string, sc Scope, k int) ([]Source, error) {
	if k <= 0 {
		k = DefaultTopK
	}
	tsq := buildQueries(query)
	if tsq.any == "" {
		return nil, nil
	}
	if sc.Mode == models.ModeHelp {
		return r.search(ctx, helpSQL, sc.Lang, tsq, "", nil, k)
	}
	if sc.LessonID != "" {
		src, err := r.search(ctx, lessonSQL, sc.Lang, tsq, "AND c.lesson_id = ?", sc.LessonID, k)
		if err != nil || len(src) > 0 {
			return src, err
		}
	}
	if sc.ModuleID != 0 {
		src, err := r.search(ctx, lessonSQL, sc.Lang, tsq, "AND l.module_id = ?", sc.ModuleID, k)
		if err != nil || len(src) > 0 {
			return src, err
		}
	}
	return r.search(ctx, lessonSQL, sc.Lang, tsq, "", nil, k)
}

// LessonChunks returns every chunk of a lesson in order, for the outline
// and for filling the lesson budget.
func (r *Retriever) LessonChunks(ctx context.Context, lessonID string) ([]Source, error) {
	var rows []Source
	err := r.db.WithContext(ctx).Raw(`SELECT 'lesson' AS kind, c.id AS chunk_id, c.lesson_id, l.title, c.heading, c.anchor, c.text, c.hash
		FROM lesson_chunks c JOIN lessons l ON l.id = c.lesson_id WHERE c.lesson_id = ? ORDER BY c.position`, lessonID).
		Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("lesson chunks: %w", err)
	}
	return rows, nil
}

// A chunk matches through either configuration (a Spanish question may
// name an English term) but is ranked in its own language's, which stems
// it correctly and reads one vector instead of two.
//
// otherLangWeight discounts material in the other language: a student
// asking in Spanish gets the Spanish lesson's section before the English
// one on the same topic, but still gets the English one when it is all
// there is.
const otherLangWeight = 0.6

const lessonSQL = `SELECT 'lesson' AS kind, c.id AS chunk_id, c.lesson_id, l.title, c.heading, c.anchor, c.text, c.hash,
	CASE WHEN l.language = 'es' THEN ts_rank(c.tsv_es, q.res) ELSE ts_rank(c.tsv_en, q.ren) END
	    * CASE WHEN l.language = ? THEN 1 ELSE %g END AS score
	FROM lesson_chunks c JOIN lessons l ON l.id = c.lesson_id,
	     (SELECT to_tsquery('english', ?) AS en, to_tsquery('spanish', ?) AS es,
	             to_tsquery('english', ?) AS ren, to_tsquery('spanish', ?) AS res) q
	WHERE (c.tsv_en @@ q.en OR c.tsv_es @@ q.es) %s
	ORDER BY score DESC, c.id LIMIT ?`

const helpSQL = `SELECT 'help' AS kind, c.id AS chunk_id, c.article_id AS lesson_id, a.title, c.heading, c.anchor, c.text, c.hash,
	CASE WHEN a.language = 'es' THEN ts_rank(c.tsv_es, q.res) ELSE ts_rank(c.tsv_en, q.ren) END
	    * CASE WHEN a.language = ? THEN 1 ELSE %g END AS score
	FROM help_chunks c JOIN help_articles a ON a.id = c.article_id,
	     (SELECT to_tsquery('english', ?) AS en, to_tsquery('spanish', ?) AS es,
	             to_tsquery('english', ?) AS ren, to_tsquery('spanish', ?) AS res) q
	WHERE (c.tsv_en @@ q.en OR c.tsv_es @@ q.es) %s
	ORDER BY score DESC, c.id LIMIT ?`

func (r *Retriever) search(ctx context.Context, base, lang string, tq tsQueries, filter string, arg any, k int) ([]Source, error) {
	// Chunks sharing two of the query's words are the precise answer and
	// few; only when they are too few does the OR of single words run,
	// which on common words ranks a large part of the corpus.
	if tq.pairs != "" {
		src, err := r.rank(ctx, base, lang, tq.pairs, tq.any, filter, arg, k)
		if err != nil || len(src) >= min(k, 3) {
			return src, err
		}
	}
	return r.rank(ctx, base, lang, tq.any, tq.any, filter, arg, k)
}

// rank selects with match and orders by ts_rank against rankBy: the
// OR of single words ranks as well as the pair query and costs a fraction
// of it, since ranking's cost grows with the query's size.
func (r *Retriever) rank(ctx context.Context, base, lang, match, rankBy, filter string, arg any, k int) ([]Source, error) {
	args := []any{lang, match, match, rankBy, rankBy}
	if arg != nil {
		args = append(args, arg)
	}
	args = append(args, k)
	var rows []Source
	if err := r.db.WithContext(ctx).Raw(fmt.Sprintf(base, otherLangWeight, filter), args...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	return rows, nil
}

// tsQueries are the two tsquery texts a search tries: any two words, then any word.
type tsQueries struct{ pairs, any string }

// maxPairTerms bounds the pair query (n·(n-1)/2 conjunctions); the first
// words are the question's own, condensation appends history terms after.
const maxPairTerms = 8

func buildQueries(text string) tsQueries {
	terms := queryTerms(text)
	tq := tsQueries{any: strings.Join(terms, " | ")}
	if len(terms) >= 2 {
		terms = terms[:min(len(terms), maxPairTerms)]
		var pairs []string
		for i := range terms {
			for j := i + 1; j < len(terms); j++ {
				pairs = append(pairs, "("+terms[i]+" & "+terms[j]+")")
			}
		}
		tq.pairs = strings.Join(pairs, " | ")
	}
	return tq
}

// queryTerms are the distinct topic words of text, in order. Only letters
// and digits survive, so they cannot break tsquery syntax.
func queryTerms(text string) []string {
	seen := map[string]bool{}
	var terms []string
	for _, w := range termWords(text) {
		if seen[w] || stopword(w) {
			continue
		}
		seen[w] = true
		terms = append(terms, w)
		if len(terms) == maxRetrievalTerms {
			break
		}
	}
	return terms
}

// termWords splits text into lower-cased runs of letters and digits.
func termWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// stopword reports words that carry no topic in English or Spanish; they
// are dropped before full-text search (tsquery drops them too, but only
// in its own language) and before condensation.
func stopword(w string) bool {
	if len([]rune(w)) < 2 {
		return true
	}
	_, ok := stopwords[w]
	return ok
}

var stopwords = func() map[string]struct{} {
	list := `a an and are as at be but by can could did do does doing for from had has have how i if in into is it its
	me my no not of on or our so than that the their them then there these they this those to too very was we were what
	when where which while who why will with would you your about also any just more most other some such only own same
	should now tell explain please show give know want need like use using used get make example examples thing things
	okay ok yes hi hello thanks thank one two again else ever much many really
	el la los las un una unos unas y o u e de del al en con por para como cómo que qué cual cuál cuales cuáles quien
	quién es son ser está están estar fue era se su sus lo le les me mi mis te tu tus nos yo tú él ella ellos ellas
	este esta estos estas ese esa esos esas eso esto aquí allí pero si sí no ya muy más menos también tambien cuando
	cuándo donde dónde porque por qué hay hace hacer puedo puede pueden debo debe explica explícame explicame dime
	dame muestra mostrar quiero necesito sobre entre sin hasta desde otro otra otros otras mismo cosa cosas hola
	gracias vale bueno ejemplo ejemplos ahora entonces`
	m := map[string]struct{}{}
	for _, w := range strings.Fields(list) {
		m[w] = struct{}{}
	}
	return m
}()

// Lesson reads a lesson with its sections, or models.ErrNotFound.
func (r *Retriever) Lesson(ctx context.Context, id string) (*Lesson, error) {
	var rows []Lesson
	err := r.db.WithContext(ctx).Raw(`SELECT id, module_id, title, content_md AS content FROM lessons WHERE id = ?`, id).
		Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read lesson: %w", err)
	}
	if len(rows) == 0 {
		return nil, models.ErrNotFound
	}
	l := &rows[0]
	if l.Chunks, err = r.LessonChunks(ctx, id); err != nil {
		return nil, err
	}
	return l, nil
}
