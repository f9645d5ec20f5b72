package tutor

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"aula/models"
)

// Reason names why the engine will not take a question; the fronts map
// each to their HTTP status, message and API code in one table.
type Reason string

// The reasons a question is refused.
const (
	RefusedEmpty        Reason = "empty"         // no text and no attachment
	RefusedTooLong      Reason = "too_long"      // Chars over Max characters
	RefusedQuota        Reason = "quota"         // the plan's month is used up (Quota)
	RefusedNotRetryable Reason = "not_retryable" // a retry of an answer still being written
	RefusedBusy         Reason = "busy"          // the server is shutting down

	RefusedEmptyAnswer   Reason = "empty_answer"    // a check answer with no text
	RefusedAnswerTooLong Reason = "answer_too_long" // a check answer over Max characters
	RefusedCheckFinished Reason = "check_finished"  // an answer to a check that has ended
	RefusedUngraded      Reason = "ungraded"        // the quiz model gave no usable verdict
	RefusedNothingToAsk  Reason = "nothing_to_ask"  // a check whose sections give no question

	// RefusedPassage: the selected passage is not text of the thread's lesson.
	RefusedPassage Reason = "passage"
	// RefusedPassageTooLong: the passage has Chars over Max characters.
	RefusedPassageTooLong Reason = "passage_too_long"
	// RefusedNotContinuable is a Continue of an answer not stopped with text.
	RefusedNotContinuable Reason = "not_continuable"
	// RefusedAnswerFull is a Continue of an answer already at the size cap.
	RefusedAnswerFull Reason = "answer_full"
	// RefusedNotEditable is an edit of a question not the last answered one.
	RefusedNotEditable Reason = "not_editable"
	// RefusedHelpOff is a help question from a member whose organization
	// turned help mode off.
	RefusedHelpOff Reason = "help_off"
)

// Refusal is a question the engine will not take, with what the student
// needs to hear about it.
type Refusal struct {
	Reason Reason
	Chars  int                // RefusedTooLong, RefusedAnswerTooLong: the text's characters
	Max    int                // RefusedTooLong, RefusedAnswerTooLong: the limit
	Quota  *models.QuotaError // RefusedQuota: used, limit and reset date
	err    error              // the cause, for errors.Is and errors.As
}

// Error says why in English, for logs and the API's message.
func (r *Refusal) Error() string {
	switch r.Reason {
	case RefusedTooLong:
		return fmt.Sprintf("the question has %d characters; the limit is %d", r.Chars, r.Max)
	case RefusedAnswerTooLong:
		return fmt.Sprintf("the answer has %d characters; the limit is %d", r.Chars, r.Max)
	case RefusedPassageTooLong:
		return fmt.Sprintf("the passage has %d characters; the limit is %d", r.Chars, r.Max)
	case RefusedQuota:
		return r.Quota.Error()
	}
	return r.err.Error()
}

// Unwrap is the cause: ErrEmptyQuestion, ErrQuestionTooLong, the
// *QuotaError, ErrNotRetryable, ErrClosed, models.ErrNotFound or a
// passage's error (ErrPassageTooLong, ErrPassageInvalid, ErrPassageNotInLesson).
func (r *Refusal) Unwrap() error { return r.err }

// refused builds the refusal of reason caused by err.
func refused(reason Reason, err error) *Refusal { return &Refusal{Reason: reason, err: err} }

// asRefusal turns the store's refusals (quota, not retryable) into a
// Refusal; other errors come back as they are.
func asRefusal(err error) error {
	var qe *models.QuotaError
	switch {
	case errors.As(err, &qe):
		return &Refusal{Reason: RefusedQuota, Quota: qe, err: err}
	case errors.Is(err, ErrNotRetryable):
		return refused(RefusedNotRetryable, err)
	case errors.Is(err, models.ErrNotContinuable):
		return refused(RefusedNotContinuable, err)
	case errors.Is(err, models.ErrAnswerFull):
		return refused(RefusedAnswerFull, err)
	case errors.Is(err, models.ErrNotEditable):
		return refused(RefusedNotEditable, err)
	case errors.Is(err, models.ErrHelpModeOff):
		return refused(RefusedHelpOff, err)
	}
	return err
}

// Refuse is the refusal a door answers for a store's refusal err (the
// quota, help mode off, …); other errors come back as they are.
func Refuse(err error) error { return asRefusal(err) }

// CheckQuestion trims a question and refuses it when it is empty (and
// has no attachment) or too long; the fronts that must refuse before
// anything is written (a new conversation) call it first.
func CheckQuestion(content string, hasAttachment bool) (string, error) {
	content = strings.TrimSpace(strings.ToValidUTF8(content, ""))
	if content == "" && !hasAttachment {
		return "", refused(RefusedEmpty, ErrEmptyQuestion)
	}
	if n := utf8.RuneCountInString(content); n > MaxQuestionChars {
		return "", &Refusal{Reason: RefusedTooLong, Chars: n, Max: MaxQuestionChars, err: ErrQuestionTooLong}
	}
	return content, nil
}
