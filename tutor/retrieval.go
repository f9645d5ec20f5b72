package tutor

import (
	"context"
	"slices"
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
type Retriever struct {
	chunks    *models.Chunks
	content   *models.Content
	materials *models.LessonMaterials
	vectors   *vectors // the vector side, nil without (retrieval_vector.go)
}

// NewRetriever returns a retriever over db.
func NewRetriever(db *gorm.DB) *Retriever {
	return &Retriever{chunks: models.NewChunks(db), content: models.NewContent(db), materials: models.NewLessonMaterials(db)}
}

// Scope says where to search.
type Scope struct {
	Mode     string // lesson and tutor search lessons; help searches help articles
	LessonID string // lesson mode: search this lesson first
	ModuleID int64  // then its module
	Lang     string // the question's language: material in it ranks first
}

// Search returns up to k chunks for query, best first (a question
// without a thread: see ForTurn).
func (r *Retriever) Search(ctx context.Context, query string, sc Scope, k int) ([]Source, error) {
	return r.find(ctx, turnQuery{own: queryTerms(query), asked: asked(query)}, sc, k)
}

// find returns up to k chunks for tq, best first. In lesson mode it
// falls back from the lesson to its module and then to every lesson when
// the narrower scope has no match.
func (r *Retriever) find(ctx context.Context, tq turnQuery, sc Scope, k int) ([]Source, error) {
	if k <= 0 {
		k = DefaultTopK
	}
	if len(tq.own) == 0 && len(tq.context) == 0 {
		return nil, nil
	}
	q := models.ChunkSearch{Lang: sc.Lang, Limit: k}
	if sc.Mode == models.ModeHelp {
		// Help exists in both languages: an answer mixing them would
		// quote the other language's screens, so it comes from the
		// question's language, the other only when nothing there matches.
		q.Help = true
		if sc.Lang != "" {
			only := q
			only.OnlyLang = true
			src, err := r.search(ctx, only, tq)
			if err != nil || len(src) > 0 {
				return src, err
			}
		}
		return r.search(ctx, q, tq)
	}
	if sc.LessonID != "" {
		in := q
		in.LessonID = sc.LessonID
		src, err := r.search(ctx, in, tq)
		if err != nil || len(src) > 0 {
			return src, err
		}
	}
	if sc.ModuleID != 0 {
		in := q
		in.ModuleID = sc.ModuleID
		src, err := r.search(ctx, in, tq)
		if err != nil || len(src) > 0 {
			return src, err
		}
	}
	return r.search(ctx, q, tq)
}

// LessonChunks returns every chunk of a lesson in order, for the outline
// and for filling the lesson budget.
func (r *Retriever) LessonChunks(ctx context.Context, lessonID string) ([]Source, error) {
	rows, err := r.chunks.OfLesson(ctx, lessonID)
	return sources(rows), err
}

// search runs one search for tq: the question's own terms rank, the
// thread's add contextWeight of theirs, and the section the previous
// answer cited first gains prevBonus, or prevNameless when the question
// names nothing ("and why?").
func (r *Retriever) search(ctx context.Context, q models.ChunkSearch, tq turnQuery) ([]Source, error) {
	// The bridge's translations rank the other language's material as
	// the question's own words do (ranked as context, with its weight,
	// they found the right section first for 0.39 of the cross-language
	// turns, against 0.61), each in its word's term, so a section naming
	// a word and its translation counts it once; and only it: the
	// question's own language keeps its ranking.
	own := append(slices.Clone(tq.own), tq.bridge...)
	q.Match = tsQuery(append(slices.Clone(own), tq.context...))
	q.RankBy, q.RankOther = tsQuery(tq.own), bridged(tq.own)
	q.Context, q.ContextWeight = tsQuery(tq.context), contextWeight
	q.Asked, q.Topic = tq.asked, strings.Join(tq.own, " ")
	if len(own) == 0 {
		q.RankBy, q.RankOther, q.Context = q.Context, q.Context, ""
	} else if len(tq.own) == 0 {
		q.RankBy = q.Context
	}
	if kind := map[bool]string{true: "help", false: "lesson"}[q.Help]; tq.prevKind == kind {
		q.Prev, q.PrevBonus, q.PrevLift = tq.prev, prevBonus, prevLift
		if len(own) == 0 {
			q.PrevBonus = prevNameless
		}
	}
	rows, err := r.chunks.Search(ctx, q)
	return r.withVectors(ctx, q, tq, sources(rows), err)
}

func sources(rows []models.Chunk) []Source {
	out := make([]Source, len(rows))
	for i, c := range rows {
		out[i] = Source(c)
	}
	return out
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

// asked is text's words as asked, stopwords and all, space-separated:
// a search compares them with lesson titles (see models.ChunkSearch).
func asked(text string) string {
	return strings.Join(termWords(text), " ")
}

// termWords splits text into lower-cased runs of letters and digits.
func termWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// stopword reports words that carry no topic in English or Spanish; they
// are dropped before full-text search (tsquery drops them too, but only
// in its own language) and before condensation. The Spanish list holds
// the English one's counterparts ("dos" for "two", "cuántas" for "how
// many", "tengo" for "have": recall@1 in Spanish 0.862 → 0.872), but not
// "usar": "sin usar" is "unused", a topic.
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
	gracias vale bueno ejemplo ejemplos ahora entonces
	uno dos tengo tiene tienen tener cuánto cuánta cuántos cuántas cuanto cuanta cuantos cuantas mucho mucha muchos muchas
	debería deberia realmente`
	m := map[string]struct{}{}
	for _, w := range strings.Fields(list) {
		m[w] = struct{}{}
	}
	return m
}()

// Lesson reads a lesson with its sections, or models.ErrNotFound.
func (r *Retriever) Lesson(ctx context.Context, id string) (*Lesson, error) {
	m, err := r.materials.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	row := m.Lesson
	return &Lesson{ID: row.ID, ModuleID: row.ModuleID, Title: row.Title, Content: row.ContentMD, Chunks: sources(m.Chunks)}, nil
}
