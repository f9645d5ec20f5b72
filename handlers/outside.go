package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"aula/models"
	"aula/tutor"
)

// Outside asks the tutor for the doors of other programs (the JSON API
// and MCP), which answer refusals as *APIError rather than as pages.
type Outside struct {
	Tutor         *tutor.Service
	Content       *models.Content
	Conversations *models.Conversations
}

// OutsideQuestion is a question from another program, API or MCP.
type OutsideQuestion struct {
	ConversationID string // ask in this conversation of the user; else a new one
	Mode, LessonID string
	ModuleID       int64
	Message        string
	Seed           []tutor.Turn // a new conversation's context
	Lang           string
}

// Ask validates and records a question from another program through the
// same tutor.Ask as the browser, so the quota, history and ownership rules
// are the same. Refusals are *APIError.
func (a *Outside) Ask(ctx context.Context, userID string, q OutsideQuestion) (*tutor.AskResult, error) {
	msg := strings.TrimSpace(q.Message)
	if msg == "" {
		return nil, APIErr(http.StatusUnprocessableEntity, CodeEmptyMessage, "message must not be empty")
	}
	if n := utf8.RuneCountInString(msg); n > tutor.MaxQuestionChars {
		return nil, APIErr(http.StatusUnprocessableEntity, CodeTooLong, "message has %d characters; the limit is %d", n, tutor.MaxQuestionChars)
	}
	cid := q.ConversationID
	in := tutor.AskInput{UserID: userID, Content: q.Message, Lang: q.Lang}
	if cid == "" {
		conv, err := a.NewConversation(ctx, userID, q.Mode, q.LessonID, q.ModuleID)
		if err != nil {
			return nil, err
		}
		cid, in.Seed = conv.ID, tutor.SeedTurns(q.Seed)
	}
	in.ConversationID = cid
	res, err := a.Tutor.Ask(ctx, in)
	var qe *models.QuotaError
	switch {
	case errors.As(err, &qe):
		return nil, APIErr(http.StatusTooManyRequests, CodeQuota, "the %s plan's %d questions this month are used; they reset on %s",
			qe.Plan, qe.Limit, qe.ResetAt.Format(time.DateOnly))
	case errors.Is(err, models.ErrNotFound):
		return nil, ErrAPINotFound
	case errors.Is(err, tutor.ErrEmptyQuestion):
		return nil, APIErr(http.StatusUnprocessableEntity, CodeEmptyMessage, "message must not be empty")
	case errors.Is(err, tutor.ErrQuestionTooLong):
		return nil, APIErr(http.StatusUnprocessableEntity, CodeTooLong, "message is longer than %d characters", tutor.MaxQuestionChars)
	case errors.Is(err, tutor.ErrClosed):
		return nil, APIErr(http.StatusServiceUnavailable, CodeUnavailable, "aula is restarting; ask again in a moment")
	case err != nil:
		return nil, fmt.Errorf("ask from outside: %w", err)
	}
	return res, nil
}

// NewConversation starts the conversation an outside question
// opens: a lesson's when lessonId is given (its module is the lesson's),
// else of mode (tutor by default), optionally about a module.
func (a *Outside) NewConversation(ctx context.Context, userID, mode, lessonID string, moduleID int64) (*models.Conversation, error) {
	if mode == "" {
		mode = models.ModeTutor
		if lessonID != "" {
			mode = models.ModeLesson
		}
	}
	if lessonID != "" {
		moduleID = 0
	} else if moduleID != 0 {
		if _, err := a.Content.Module(ctx, moduleID); errors.Is(err, models.ErrNotFound) {
			return nil, APIErr(http.StatusUnprocessableEntity, CodeUnknownModule, "moduleId %d names no module", moduleID)
		} else if err != nil {
			return nil, err
		}
	}
	conv, err := a.Conversations.Create(ctx, userID, mode, lessonID, moduleID, "")
	switch {
	case errors.Is(err, models.ErrNotFound):
		return nil, APIErr(http.StatusUnprocessableEntity, CodeUnknownLesson, "lessonId %q names no lesson", lessonID)
	case errors.Is(err, models.ErrInvalidMode):
		return nil, APIErr(http.StatusUnprocessableEntity, CodeInvalidMode, "mode must be lesson, tutor or help")
	case errors.Is(err, models.ErrInvalidStyle):
		return nil, APIErr(http.StatusUnprocessableEntity, CodeInvalidStyle, "style must be explain or guide")
	case errors.Is(err, models.ErrNoLesson):
		return nil, APIErr(http.StatusUnprocessableEntity, CodeLessonRequired, "a lesson conversation needs a lessonId")
	case err != nil:
		return nil, err
	}
	return conv, nil
}
