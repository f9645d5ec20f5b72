package tutor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"aula/markdown"
	"aula/models"
)

// MaxPassageChars bounds the passage a student selects to ask about: a
// few paragraphs; a whole lesson is not a passage.
const MaxPassageChars = 2000

// Errors of a passage; a *Refusal carries them to the fronts.
var (
	ErrPassageTooLong     = errors.New("the passage is too long")
	ErrPassageInvalid     = errors.New("the passage contains a NUL character or bytes that are not UTF-8")
	ErrPassageNotInLesson = errors.New("the passage is not part of this conversation's lesson")
)

// Passage is a run of a lesson's text the student selected and asks
// about, with the section it lies in as the server found it. It is kept
// in the question's metadata, so a regenerated answer sees it too.
type Passage struct {
	Text     string `json:"text"`
	LessonID string `json:"lessonId"`
	ChunkID  int64  `json:"chunkId"`
	Heading  string `json:"heading"`
	Anchor   string `json:"anchor"`
	Hash     string `json:"hash"`
}

// questionMeta is a question's metadata.
type questionMeta struct {
	Passage *Passage `json:"passage,omitempty"`
}

// PassageOf is the passage a question (a user message) asked about, nil if none.
func PassageOf(meta []byte) *Passage {
	var m questionMeta
	if json.Unmarshal(meta, &m) != nil {
		return nil
	}
	return m.Passage
}

// questionMetadata is the metadata of a question asking about p (nil: none).
func questionMetadata(p *Passage) models.JSON {
	if p == nil {
		return nil
	}
	b, _ := json.Marshal(questionMeta{Passage: p})
	return b
}

// checkPassage cleans a selected passage (line endings, surrounding
// space) and refuses one that is not text or too long; "" is no passage.
func checkPassage(text string) (string, error) {
	if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
		return "", refused(RefusedPassage, ErrPassageInvalid)
	}
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	if n := utf8.RuneCountInString(text); n > MaxPassageChars {
		return "", &Refusal{Reason: RefusedPassageTooLong, Chars: n, Max: MaxPassageChars, err: ErrPassageTooLong}
	}
	return text, nil
}

// passageFor checks the passage of a question in conversation convID and
// finds its section; nil when the question has none. The thread is read
// unless the front already knew it (known, nil if not). The passage must be
// text of the conversation's own lesson, as the page shows it: the client
// says nothing about where it lies, the server finds the section.
func (s *Service) passageFor(ctx context.Context, userID, convID string, known *Known, text string) (*Passage, error) {
	text, err := checkPassage(text)
	if err != nil || text == "" {
		return nil, err
	}
	var conv *models.Conversation
	if known != nil {
		conv = &known.Conversation
	} else if conv, err = s.convs.Get(ctx, userID, convID); err != nil {
		return nil, err
	}
	if conv.Mode != models.ModeLesson || conv.LessonID == nil {
		return nil, refused(RefusedPassage, ErrPassageNotInLesson)
	}
	chunks, err := s.retr.LessonChunks(ctx, *conv.LessonID)
	if err != nil {
		return nil, fmt.Errorf("passage: %w", err)
	}
	c, ok := LocatePassage(text, chunks)
	if !ok {
		return nil, refused(RefusedPassage, ErrPassageNotInLesson)
	}
	return &Passage{Text: text, LessonID: c.LessonID, ChunkID: c.ChunkID, Heading: c.Heading, Anchor: c.Anchor, Hash: c.Hash}, nil
}

// LocatePassage finds the chunk a passage starts in. Both sides are
// compared as their words (letters and digits, lower-cased), the lesson's
// as the page renders it, so Markdown punctuation, link targets and the
// line breaks of a selection do not matter; the first and last word may
// be cut, as a mouse selection often cuts them. A selection running over
// a heading matches too: each section's words start with its heading's.
func LocatePassage(text string, chunks []Source) (Source, bool) {
	needle := strings.Join(passageWords(text), " ")
	if utf8.RuneCountInString(needle) < 2 {
		return Source{}, false
	}
	var hay strings.Builder
	starts := make([]int, len(chunks))
	for i, c := range chunks {
		starts[i] = hay.Len()
		hay.WriteByte(' ')
		if i == 0 || chunks[i-1].Anchor != c.Anchor {
			hay.WriteString(strings.Join(passageWords(c.Heading), " "))
			hay.WriteByte(' ')
		}
		hay.WriteString(strings.Join(passageWords(markdown.LessonText(c.Text)), " "))
	}
	at := strings.Index(hay.String(), needle)
	if at < 0 {
		return Source{}, false
	}
	found := 0
	for i, st := range starts {
		if st <= at {
			found = i
		}
	}
	return chunks[found], true
}

// passageWords splits text into lower-cased runs of letters and digits.
func passageWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// withPassages quotes above each earlier question of the history the
// passage it asked about, so a follow-up ("and the second part?") keeps
// what "this" was.
func withPassages(msgs []models.Message) {
	for i, m := range msgs {
		if p := PassageOf(m.Metadata); m.Role == models.RoleUser && p != nil {
			msgs[i].Content = blockQuote(p.Text) + "\n" + m.Content
		}
	}
}

// blockQuote is text as a Markdown quote, line by line.
func blockQuote(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		b.WriteString("> ")
		b.WriteString(line)
		b.WriteString("\n")
	}
	return b.String()
}

// writePassage puts the passage first in the prompt's material: the
// question is about it before anything else in the lesson.
func writePassage(b *strings.Builder, p *Passage) {
	fmt.Fprintf(b, "\n## The passage the student asks about (from [§ %s](#%s))\n", p.Heading, p.Anchor)
	b.WriteString("The student selected this passage of the lesson and asks about it. Answer about this passage first, " +
		"using the rest of the lesson only to explain it, and cite its section.\n")
	b.WriteString(blockQuote(p.Text))
}

// withPassageSection puts the passage's section first among the hits (the
// chunk as the lesson has it now), once.
func withPassageSection(l *Lesson, p *Passage, hits []Source) []Source {
	out := make([]Source, 0, len(hits)+1)
	for _, c := range l.Chunks {
		if c.ChunkID == p.ChunkID {
			out = append(out, c)
		}
	}
	for _, h := range hits {
		if h.ChunkID != p.ChunkID || h.Kind != "lesson" {
			out = append(out, h)
		}
	}
	return out
}

// passageCitation marks the citation of the passage's section cited (the
// question was about it, whatever the answer links) and returns a copy
// for the receipt; nil when there is no passage.
func passageCitation(cits []Citation, p *Passage) *Citation {
	if p == nil {
		return nil
	}
	for i := range cits {
		if cits[i].Kind == "lesson" && cits[i].ChunkID == p.ChunkID {
			cits[i].Cited = true
			c := cits[i]
			return &c
		}
	}
	return &Citation{Kind: "lesson", ChunkID: p.ChunkID, LessonID: p.LessonID, Heading: p.Heading, Anchor: p.Anchor, Hash: p.Hash, Cited: true}
}
