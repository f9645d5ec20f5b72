package handlers

import (
	"errors"
	"net/http"
	"time"

	"aula/i18n"
	"aula/tutor"
)

// RefusalAnswer is how every door answers one reason the tutor refuses a
// question: the HTTP status, the message's i18n key (its arguments are
// the refusal's, see RefusalMessage) and the API's error code.
type RefusalAnswer struct {
	Status int
	Key    string
	Code   string
}

// Refusals is the one table from the engine's reasons to the doors' answers.
var Refusals = map[tutor.Reason]RefusalAnswer{
	tutor.RefusedEmpty:        {http.StatusUnprocessableEntity, "ask.err.empty", CodeEmptyMessage},
	tutor.RefusedTooLong:      {http.StatusUnprocessableEntity, "ask.err.too_long", CodeTooLong},
	tutor.RefusedQuota:        {http.StatusTooManyRequests, "ask.err.quota", CodeQuota},
	tutor.RefusedNotRetryable: {http.StatusConflict, "ask.err.not_retry", CodeNotRetryable},
	tutor.RefusedBusy:         {http.StatusServiceUnavailable, "ask.err.busy", CodeUnavailable},

	tutor.RefusedEmptyAnswer:   {http.StatusUnprocessableEntity, "check.err.empty", CodeEmptyMessage},
	tutor.RefusedAnswerTooLong: {http.StatusUnprocessableEntity, "check.err.too_long", CodeTooLong},
	tutor.RefusedCheckFinished: {http.StatusConflict, "check.err.finished", CodeCheckFinished},
	tutor.RefusedUngraded:      {http.StatusServiceUnavailable, "check.err.ungraded", CodeUngraded},
	tutor.RefusedNothingToAsk:  {http.StatusUnprocessableEntity, "check.err.no_question", CodeNothingToAsk},

	tutor.RefusedPassage:        {http.StatusUnprocessableEntity, "ask.err.passage", CodeInvalidPassage},
	tutor.RefusedPassageTooLong: {http.StatusUnprocessableEntity, "ask.err.passage_long", CodePassageTooLong},
	// Only the site continues answers; the API's nearest code is "not retryable".
	tutor.RefusedNotContinuable: {http.StatusConflict, "ask.err.not_continue", CodeNotRetryable},
	tutor.RefusedAnswerFull:     {http.StatusUnprocessableEntity, "ask.err.answer_full", CodeTooLong},
	tutor.RefusedNotEditable:    {http.StatusConflict, "ask.err.not_edit", CodeNotRetryable},
	// A conflict with the organization's policy: 409, whose page shows the
	// message (the site's 403 page is the expired form's).
	tutor.RefusedHelpOff: {http.StatusConflict, "ask.err.help_off", CodeHelpOff},
}

// Refused reports whether err is the tutor refusing a question, with the
// refusal and its answer.
func Refused(err error) (*tutor.Refusal, RefusalAnswer, bool) {
	var r *tutor.Refusal
	if !errors.As(err, &r) {
		return nil, RefusalAnswer{}, false
	}
	ans, ok := Refusals[r.Reason]
	return r, ans, ok
}

// RefusalMessage is the refusal's message in lang, dates written by date.
func RefusalMessage(lang string, r *tutor.Refusal, date func(time.Time) string) string {
	key := Refusals[r.Reason].Key
	switch r.Reason {
	case tutor.RefusedTooLong, tutor.RefusedAnswerTooLong, tutor.RefusedPassageTooLong:
		return i18n.In(lang, key, r.Chars)
	case tutor.RefusedQuota:
		return i18n.InN(lang, key, r.Quota.Limit, r.Quota.Limit, date(r.Quota.ResetAt))
	}
	return i18n.In(lang, key)
}

// APIRefusal is err as the API's error when it is a refusal (in English,
// dates as YYYY-MM-DD); any other error comes back as it is.
func APIRefusal(err error) error {
	r, ans, ok := Refused(err)
	if !ok {
		return err
	}
	msg := RefusalMessage("en", r, func(t time.Time) string { return t.Format(time.DateOnly) })
	return &APIError{Status: ans.Status, Code: ans.Code, Message: msg}
}
