package tutor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"aula/models"
)

// lessonRead is a lesson thread's lesson as read, or why it could not be.
type lessonRead struct {
	l   *Lesson
	err error
}

// buildRequest assembles what the provider sees and the receipt saying
// so. early reads the lesson beside the history and the retrieval
// instead of after them.
func (s *Service) buildRequest(ctx context.Context, j *job, early bool) (Request, Receipt, error) {
	conv := j.conv
	lesson := soon(early && lessonThread(conv), func() lessonRead {
		l, err := s.retr.Lesson(ctx, *conv.LessonID)
		return lessonRead{l, err}
	})
	guard := soon(early && lessonThread(conv), func() guardRead { return s.guardOf(ctx, j) })
	hist, err := s.history(ctx, j)
	if err != nil {
		return Request{}, Receipt{}, err
	}
	lang := s.answerLang(ctx, j)
	g := guard()
	if g.err != nil {
		return Request{}, Receipt{}, g.err
	}
	style, guide := guided(conv.Style, j.plain, hist.Recent, g.guard)

	scope := Scope{Mode: conv.Mode, Lang: lang}
	if lessonThread(conv) {
		scope.LessonID = *conv.LessonID
	}
	if conv.Mode == models.ModeLesson {
		scope.ModuleID = lessonModule(conv, lesson)
	}
	found, err := s.retr.ForTurn(ctx, retrievalText(j), hist.Recent, scope, s.cfg.TopK)
	if err != nil {
		return Request{}, Receipt{}, err
	}
	in := PromptInput{Mode: conv.Mode, Style: style, Lang: lang, Sources: found.Sources, Guide: guide, Budget: s.cfg.LessonBudget,
		Guard: g.guard}
	if scope.LessonID != "" {
		r := lesson()
		if r.err != nil && !errors.Is(r.err, models.ErrNotFound) {
			return Request{}, Receipt{}, r.err
		}
		in.Lesson = r.l
		if j.passage != nil && j.passage.LessonID == scope.LessonID {
			in.Passage = j.passage
		}
	}
	p := BuildPrompt(in)
	r := Receipt{RetrievalQuery: found.Query, CondenseMethod: found.Method, TurnsSent: len(hist.Turns), TurnsOmitted: hist.Omitted, Clipped: hist.Clipped,
		Lang: lang, Style: style, Mode: conv.Mode, HintLevel: guide.HintLevel, FullAnswer: guide.FullAnswer,
		Citations: citations(p.Sources), CheckOpen: g.guard != nil}
	if in.Lesson != nil {
		r.LessonID = in.Lesson.ID
		r.LessonWhole = p.LessonWhole
	}
	r.Passage = passageCitation(r.Citations, in.Passage)
	req := Request{System: p.System, History: hist.Turns, Question: j.question, Lang: lang, Mode: conv.Mode, Sources: p.Sources,
		Partial: continueTail(j.partial)}
	if g.guard != nil {
		req.Style = style // the offline tutor reads it from the request: it hints too
	}
	return req, r, nil
}

// guardRead is the open check guarding a lesson thread's answer (nil:
// none), or why it could not be read.
type guardRead struct {
	guard *models.CheckGuard
	err   error
}

// guardOf reads whether the student's organization holds the answer of
// j's lesson thread to guiding only, a check on the lesson being open
// (models.Policy.GuideDuringChecks); other threads have no guard.
func (s *Service) guardOf(ctx context.Context, j *job) guardRead {
	if !lessonThread(j.conv) {
		return guardRead{}
	}
	g, err := s.checks.GuardOf(ctx, j.answer.UserID, *j.conv.LessonID)
	return guardRead{g, err}
}

// guided is the style and the guide step of an answer in a thread of
// style, after the recent messages: while a check guards the lesson
// (g), the guide style whatever the thread's, and hints only (the
// worked answer waits for the check to end).
func guided(style, question string, recent []models.Message, g *models.CheckGuard) (string, Guide) {
	if g == nil {
		return style, NextGuide(style, question, lastReceipt(recent))
	}
	guide := NextGuide(models.StyleGuide, question, lastReceipt(recent))
	guide.FullAnswer = false
	return models.StyleGuide, guide
}

// history is the job's window of earlier turns.
func (s *Service) history(ctx context.Context, j *job) (History, error) {
	if j.noHistory {
		// A first question without earlier context has nothing to read:
		// skipping it spares two round trips in front of the first token.
		return History{}, nil
	}
	return LoadHistory(ctx, s.msgs, j.answer.UserID, j.conv.ID, j.beforeSeq, s.cfg.HistoryMessages, s.cfg.HistoryTokens)
}

// lessonModule is the module a lesson thread's retrieval falls back
// to: the thread's, or when it names none (a thread its first question
// opens, not stored yet: see models.NewThread) its lesson's, as the
// thread is stored with; 0 when neither is known.
func lessonModule(conv models.Conversation, lesson func() lessonRead) int64 {
	switch {
	case conv.ModuleID != nil:
		return *conv.ModuleID
	case lessonThread(conv):
		if r := lesson(); r.l != nil {
			return r.l.ModuleID
		}
	}
	return 0
}

// lessonThread says whether conv is a lesson's thread, whose lesson the
// prompt carries.
func lessonThread(conv models.Conversation) bool {
	return conv.LessonID != nil && conv.Mode == models.ModeLesson
}

// retrievalText is what retrieval looks for: the question, and the
// passage it asks about ("what does this mean?" names nothing itself).
func retrievalText(j *job) string {
	if j.passage == nil {
		return j.plain
	}
	return j.plain + "\n" + j.passage.Text
}

func withAttachment(content, filename, text string) string {
	return fmt.Sprintf("%s\n\n[Attached file %q]\n%s", content, filename, clipRunes(text, maxAttachmentChars))
}

// answerLang is the language the answer is asked in, or the one detected
// from the question and the student's locale.
func (s *Service) answerLang(ctx context.Context, j *job) string {
	if j.lang == "en" || j.lang == "es" {
		return j.lang
	}
	locale := ""
	if j.locale != nil {
		locale = *j.locale
	} else if u, err := s.users.Get(ctx, j.answer.UserID); err == nil {
		locale = u.Locale
	}
	return detectLang(j.plain, locale)
}

// lastReceipt is the receipt of the newest answer among recent (newest
// first), nil if there is none or it cannot be read.
func lastReceipt(recent []models.Message) *Receipt {
	for _, m := range recent {
		if m.Role == models.RoleAssistant {
			var r Receipt
			if json.Unmarshal(m.Metadata, &r) == nil {
				return &r
			}
			return nil
		}
	}
	return nil
}
