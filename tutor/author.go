package tutor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"aula/models"
)

// authorTimeout bounds the whole of one author's request (three
// suggestions, or every question of a preview): a slow provider gives
// the offline result, never a page waiting for minutes.
const authorTimeout = 45 * time.Second

// ErrNoSuchSection is a preview of a section the text being edited does not have.
var ErrNoSuchSection = errors.New("the lesson text has no such section")

// Authored says who wrote what the tutor proposes to an author: the quiz
// route's model, or the offline tutor from the lesson's own text.
type Authored struct {
	// Provider and Model name the route's model ("" offline).
	Provider, Model string
	// Fallback marks offline text given because the route's model could
	// not be used, failed or answered something unusable.
	Fallback bool
}

// ByModel reports whether the model wrote it.
func (a Authored) ByModel() bool { return a.Provider != "" && !a.Fallback }

// Suggested is three suggested questions proposed for a lesson.
type Suggested struct {
	Questions [3]string
	Authored
}

// PreviewQuestion is one question a check would ask.
type PreviewQuestion struct {
	Kind, Question string
	Choices        []string
	Expected       string
}

// CheckPreview is the questions a check on one section would ask.
type CheckPreview struct {
	Anchor, Heading string
	Questions       []PreviewQuestion
	Authored
}

// LessonText is a lesson as its author is writing it, saved or not.
type LessonText struct {
	LessonID, Title, Body, Lang string
}

// sections cuts the text as publishing would, merged per section as a
// check reads it.
func (l LessonText) sections() []Source {
	var out []Source
	for i, c := range models.LessonSections(l.Title, l.Body) {
		out = append(out, Source{Kind: "lesson", ChunkID: int64(i), LessonID: l.LessonID, Title: l.Title,
			Heading: c.Heading, Anchor: c.Anchor, Text: c.Text, Hash: c.Hash})
	}
	return mergeSections(out)
}

// SuggestQuestions proposes three suggested questions for the lesson
// text: the quiz route's model is asked for exactly three; no model, a
// failure or anything but three usable questions gives three from the
// text's headings and marked terms instead, saying so. Nothing is stored
// and no one's quota is charged.
func (s *Service) SuggestQuestions(ctx context.Context, l LessonText) Suggested {
	ctx, cancel := context.WithTimeout(ctx, authorTimeout)
	defer cancel()
	prov, route, err := s.quizProvider(ctx)
	var out Suggested
	if route != nil {
		out.Provider, out.Model = route.Provider, route.Model
	}
	if prov != nil {
		var text string
		text, err = s.complete(ctx, prov, route, Request{System: suggestPrompt(l), Question: "Write the three questions.",
			Lang: l.Lang, Mode: models.ModeLesson}, nil)
		if err == nil {
			if out.Questions, err = parseSuggestions(text); err == nil {
				return out
			}
		}
	}
	if err != nil {
		s.log.Warn("author: the model's suggestions are unusable; suggesting offline", "lesson", l.LessonID, "err", err)
		out.Fallback = true
	}
	out.Questions = offlineSuggestions(l)
	return out
}

// suggestPrompt asks for the three questions a student would ask.
func suggestPrompt(l LessonText) string {
	var b strings.Builder
	b.WriteString("You help the author of a lesson. Write exactly three short questions a student reading the lesson below " +
		"would ask a tutor about it: each one sentence, under 120 characters, ending with a question mark, each about a different part.\n")
	fmt.Fprintf(&b, "Write them in %s.\n", languageName(l.Lang))
	b.WriteString(`Reply with only a JSON object and no other text: {"questions": ["...", "...", "..."]}` + "\n")
	fmt.Fprintf(&b, "\nThe lesson, %q:\n<<<\n%s\n>>>\n", l.Title, clipRunes(strings.TrimSpace(l.Body), 12000))
	return b.String()
}

// parseSuggestions reads exactly three distinct questions of 1 to
// models.MaxSuggestion characters; anything else is errNotJSON.
func parseSuggestions(text string) ([3]string, error) {
	var out [3]string
	var reply struct {
		Questions []string `json:"questions"`
	}
	if err := extractJSON(text, &reply); err != nil {
		return out, err
	}
	if len(reply.Questions) != 3 {
		return out, fmt.Errorf("%w: %d questions, not 3", errNotJSON, len(reply.Questions))
	}
	seen := map[string]bool{}
	for i, q := range reply.Questions {
		q = strings.Join(strings.Fields(q), " ")
		if q == "" || utf8.RuneCountInString(q) > models.MaxSuggestion || seen[normalizeAnswer(q)] {
			return out, fmt.Errorf("%w: question %d empty, too long or repeated", errNotJSON, i+1)
		}
		seen[normalizeAnswer(q)], out[i] = true, q
	}
	return out, nil
}

// PreviewCheck writes the questions a check on the section anchor of the
// lesson text would ask, with the generator checks use (the quiz
// route's model, else the text's own sentences), without starting a
// check or charging anyone. A model that fails gives the offline
// questions for the rest, saying so. ErrNoSuchSection when the text has
// no such section.
func (s *Service) PreviewCheck(ctx context.Context, l LessonText, anchor string) (CheckPreview, error) {
	ctx, cancel := context.WithTimeout(ctx, authorTimeout)
	defer cancel()
	secs := l.sections()
	run := &checkRun{state: &CheckState{Check: &models.Check{MaxItems: models.MaxCheckItems}, Lang: l.Lang,
		LessonTitle: l.Title, Headings: map[string]string{}}, lessonKeys: map[string]map[string]bool{l.LessonID: markedTerms(secs)}}
	for _, src := range secs {
		if src.Anchor == anchor {
			run.sections = []Source{src}
		}
	}
	if len(run.sections) == 0 {
		return CheckPreview{}, ErrNoSuchSection
	}
	out := CheckPreview{Anchor: anchor, Heading: sectionName(run.sections[0])}
	prov, route, err := s.quizProvider(ctx)
	if route != nil {
		out.Provider, out.Model = route.Provider, route.Model
	}
	for pos := 1; pos <= models.MaxCheckItems; pos++ {
		var q checkQuestion
		if prov != nil && err == nil {
			q, err = s.modelQuestion(ctx, prov, route, run, run.sections[0])
		}
		if prov == nil || err != nil {
			var ok bool
			if q, ok = offlineQuestion(run, pos); !ok {
				break
			}
		}
		q.item.Position = pos
		run.state.Check.Items = append(run.state.Check.Items, q.item)
		out.Questions = append(out.Questions, PreviewQuestion{Kind: q.item.Kind, Question: q.item.Question,
			Choices: q.item.Choices, Expected: q.item.Expected})
	}
	if err != nil {
		s.log.Warn("author: the quiz model's questions are unusable; previewing offline", "lesson", l.LessonID, "err", err)
		out.Fallback = true
	}
	return out, nil
}
