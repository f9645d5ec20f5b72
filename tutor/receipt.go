package tutor

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Citation is a chunk an answer was given, as recorded in its receipt.
// Cited says the answer links or quotes it; the others were only given
// to the tutor.
type Citation struct {
	Kind     string  `json:"kind"`
	ChunkID  int64   `json:"chunkId"`
	LessonID string  `json:"lessonId,omitempty"`
	Heading  string  `json:"heading"`
	Anchor   string  `json:"anchor"`
	Score    float64 `json:"score"`
	Hash     string  `json:"hash"`
	Cited    bool    `json:"cited"`
}

// Receipt records what the tutor saw for one answer (messages.metadata).
type Receipt struct {
	Citations      []Citation `json:"citations"`
	RetrievalQuery string     `json:"retrievalQuery"`
	CondenseMethod string     `json:"condenseMethod,omitempty"` // none, keyword or model
	TurnsSent      int        `json:"turnsSent"`
	TurnsOmitted   int        `json:"turnsOmitted"` // eligible earlier turns left out
	// Clipped are the turns sent shortened to fit the memory's budget.
	Clipped     []ClippedTurn `json:"clipped,omitempty"`
	Lang        string        `json:"lang"`
	Style       string        `json:"style"`
	HintLevel   int           `json:"hintLevel,omitempty"`
	FullAnswer  bool          `json:"fullAnswer,omitempty"`
	Mode        string        `json:"mode"`
	LessonID    string        `json:"lessonId,omitempty"`
	LessonWhole bool          `json:"lessonWhole,omitempty"`
	// Passage is the section of the passage the question was about (it is
	// also among Citations, cited): nil for a question about no passage.
	Passage   *Citation `json:"passage,omitempty"`
	Truncated bool      `json:"truncated,omitempty"`
	// CheckOpen says the answer only guided: a knowledge check on the
	// lesson was open and the student's organization guides only then.
	CheckOpen bool   `json:"checkOpen,omitempty"`
	Error     string `json:"error,omitempty"`
}

// ParseReceipt decodes an answer's metadata; an empty or foreign value gives a zero Receipt.
func ParseReceipt(meta []byte) Receipt {
	var r Receipt
	_ = json.Unmarshal(meta, &r)
	return r
}

func citations(src []Source) []Citation {
	out := make([]Citation, 0, len(src))
	for _, s := range src {
		out = append(out, Citation{Kind: s.Kind, ChunkID: s.ChunkID, LessonID: s.LessonID, Heading: s.Heading,
			Anchor: s.Anchor, Score: s.Score, Hash: s.Hash})
	}
	return out
}

// minQuoteChars is the shortest run of a section's text that, found in an
// answer, counts as quoting it (shorter ones match by chance).
const minQuoteChars = 40

// markCited marks the citations (parallel to the sources given) that the
// answer links by anchor or quotes a clause of (a run between punctuation).
func markCited(cits []Citation, src []Source, answer string) {
	lower := strings.ToLower(answer)
	for i := range cits {
		c := &cits[i]
		// Already cited: the section of the passage the question was about.
		c.Cited = c.Cited || c.Anchor != "" && strings.Contains(answer, "#"+c.Anchor+")")
		if c.Cited || i >= len(src) {
			continue
		}
		for _, sentence := range strings.FieldsFunc(src[i].Text, func(r rune) bool { return r == '.' || r == ';' || r == ',' || r == '\n' }) {
			sentence = strings.ToLower(strings.TrimSpace(sentence))
			if utf8.RuneCountInString(sentence) >= minQuoteChars && strings.Contains(lower, sentence) {
				c.Cited = true
				break
			}
		}
	}
}
