package tutor

import (
	"context"
	"errors"
	"fmt"

	"aula/models"
)

// Edited is an edited question and its answer, being written again.
type Edited struct {
	Question models.Message
	Answer   models.Message
}

// Edit replaces the thread's last question with content and has its
// answer written again in place; the earlier question and answer stay as
// a version. It is a new question: it is checked like one and counted.
// A *Refusal comes back for an empty or too long text, the plan's limit,
// or a question that is not the last one answered.
func (s *Service) Edit(ctx context.Context, userID, questionID, content string) (*Edited, error) {
	content, err := CheckQuestion(content, false)
	if err != nil {
		return nil, err
	}
	prev, err := s.msgs.AnswerOf(ctx, userID, questionID)
	if err != nil {
		return nil, err
	}
	st, genCtx, ok := s.streams.Open(prev.ID, userID)
	if !ok {
		return nil, refused(RefusedNotEditable, models.ErrNotEditable)
	}
	answer, question, err := s.msgs.BeginEdit(ctx, userID, prev.ID, content, s.now(), s.streams.Lease())
	if err != nil {
		s.streams.Abandon(st)
		var qe *models.QuotaError
		if errors.Is(err, models.ErrNotFound) || errors.Is(err, models.ErrNotEditable) || errors.As(err, &qe) ||
			errors.Is(err, models.ErrHelpModeOff) {
			return nil, asRefusal(err)
		}
		return nil, fmt.Errorf("edit: %w", err)
	}
	j := &job{st: st, answer: *answer, question: question.Content, plain: question.Content, beforeSeq: question.Seq,
		passage: PassageOf(question.Metadata)}
	if err := s.launchAgain(ctx, genCtx, userID, j, question); err != nil {
		return nil, fmt.Errorf("edit: %w", err)
	}
	return &Edited{Question: *question, Answer: *answer}, nil
}
