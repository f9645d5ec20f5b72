package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

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
	Seed           []tutor.Turn // a new conversation's earlier context
	Lang           string
	// Locale is the user's interface language as authentication read it
	// (nil: not read); with it, a new conversation's first answer is
	// prepared while its question is recorded.
	Locale *string
}

// Ask validates and records a question from another program through the
// same tutor.Ask as the browser, so the quota, history and ownership rules
// are the same. Refusals are *APIError.
func (a *Outside) Ask(ctx context.Context, userID string, q OutsideQuestion) (*tutor.AskResult, error) {
	// Refused before a new conversation is written for it.
	if _, err := tutor.CheckQuestion(q.Message, false); err != nil {
		return nil, APIRefusal(err)
	}
	cid := q.ConversationID
	in := tutor.AskInput{UserID: userID, Content: q.Message, Lang: q.Lang}
	if cid == "" {
		conv, err := a.NewConversation(ctx, userID, q.Mode, q.LessonID, q.ModuleID, tutor.SeedTurns(q.Seed))
		if err != nil {
			return nil, err
		}
		cid = conv.ID
		if q.Locale != nil && len(q.Seed) == 0 {
			// Its first question has no history: nothing the recording of
			// the question writes changes what the answer's request reads.
			in.Known = &tutor.Known{Conversation: *conv, Locale: *q.Locale}
		}
	}
	in.ConversationID = cid
	res, err := a.Tutor.Ask(ctx, in)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return nil, ErrAPINotFound
	case err != nil:
		if _, _, ok := Refused(err); ok {
			return nil, APIRefusal(err)
		}
		return nil, fmt.Errorf("ask from outside: %w", err)
	}
	return res, nil
}

// NewConversation starts the conversation an outside question
// opens: a lesson's when lessonId is given (its module is the lesson's),
// else of mode (tutor by default), optionally about a module, with the
// earlier context the other program brought.
func (a *Outside) NewConversation(ctx context.Context, userID, mode, lessonID string, moduleID int64, earlier []models.ContextTurn) (*models.Conversation, error) {
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
	conv, err := a.Conversations.CreateWithContext(ctx, userID, mode, lessonID, moduleID, "", earlier)
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
