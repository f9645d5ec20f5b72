package tutor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"aula/models"
)

// Continue goes on with the user's stopped answer: the model is given the
// text written so far and asked to continue it without repeating it, and
// what it writes is appended to the same answer, which streams again
// from where it stopped (readers resume at the stopped text's length).
// It is not a new question: nothing is counted against the plan. The
// answer size cap holds for the answer as a whole: the continuation
// writes only what the cap leaves, and the model is given only the
// stopped text's last ContinueTailBytes. A *Refusal comes back for an
// answer that was not stopped with text, or that is already at the cap.
func (s *Service) Continue(ctx context.Context, userID, msgID string) (*models.Message, error) {
	st, genCtx, ok := s.streams.Open(msgID, userID)
	if !ok {
		if _, err := s.msgs.Get(ctx, userID, msgID); err != nil {
			return nil, err
		}
		return nil, refused(RefusedNotContinuable, models.ErrNotContinuable)
	}
	answer, question, err := s.msgs.BeginContinue(ctx, userID, msgID, s.cfg.MaxAnswerBytes, s.now(), s.streams.Lease())
	if err != nil {
		s.streams.Abandon(st)
		if errors.Is(err, models.ErrNotFound) || errors.Is(err, models.ErrNotContinuable) || errors.Is(err, models.ErrAnswerFull) ||
			errors.Is(err, models.ErrHelpModeOff) {
			return nil, asRefusal(err)
		}
		return nil, fmt.Errorf("continue: %w", err)
	}
	st.Append(answer.Content)
	j := &job{st: st, answer: *answer, question: question.Content, plain: question.Content, beforeSeq: question.Seq,
		passage: PassageOf(question.Metadata), partial: answer.Content}
	if err := s.launchAgain(ctx, genCtx, userID, j, question); err != nil {
		return nil, err
	}
	return answer, nil
}

// launchAgain starts the generation of an answer asked before (Retry,
// Continue): with its thread, and its question's file when it had one.
// When it cannot start, the answer is failed (a continuation stays
// stopped) and the reason returned.
func (s *Service) launchAgain(ctx, genCtx context.Context, userID string, j *job, question *models.Message) error {
	conv, err := s.convs.Get(ctx, userID, j.answer.ConversationID)
	if err == nil {
		j.conv = *conv
		if text, filename, aerr := s.msgs.AttachmentText(ctx, userID, question.ID); aerr == nil && strings.TrimSpace(text) != "" {
			j.question = withAttachment(question.Content, filename, text)
		}
	}
	if err != nil || !s.launch(genCtx, j) {
		s.finishFailed(j, CodeInterrupted)
		if err != nil {
			return fmt.Errorf("start again: %w", err)
		}
		return refused(RefusedBusy, ErrClosed)
	}
	return nil
}

// ContinueTailBytes is at most how much of a stopped answer a
// continuation sends back to the model: enough to go on from, while a
// long answer is not re-sent (and paid for) whole on every Continue.
const ContinueTailBytes = 8 << 10

// continueTail is the end of partial the model continues from: all of it
// when short, else its last ContinueTailBytes at most, starting on a
// whole character and, when one is near, at the start of a line.
func continueTail(partial string) string {
	if len(partial) <= ContinueTailBytes {
		return partial
	}
	tail := partial[len(partial)-ContinueTailBytes:]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	if nl := strings.IndexByte(tail[:len(tail)/4], '\n'); nl >= 0 {
		tail = tail[nl+1:]
	}
	return tail
}
