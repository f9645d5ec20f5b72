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
	// Orgs serve the organization endpoints to their admins, give a
	// member's new threads their organization's teaching style and refuse
	// them help threads when it turned help mode off.
	Orgs *models.Organizations
}

// OutsideQuestion is a question from another program, API or MCP.
type OutsideQuestion struct {
	ConversationID string // ask in this conversation of the user; else a new one
	Mode, LessonID string
	ModuleID       int64
	Message        string
	Seed           []tutor.Turn // a new conversation's earlier context
	Lang           string
	// Plan is the user's plan as authentication read it ("": not read);
	// only a CORPORATE_USER's new thread needs their organization's policy.
	Plan string
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
	in := tutor.AskInput{UserID: userID, ConversationID: q.ConversationID, Content: q.Message, Lang: q.Lang}
	if in.ConversationID == "" {
		if err := a.open(ctx, userID, q, &in); err != nil {
			return nil, err
		}
	} else if conv := a.Conversations.Remembered(userID, in.ConversationID); conv != nil && q.Locale != nil {
		// A thread this process saw: its answer is prepared beside the
		// question too, the recorded turn checking the guess.
		in.Known = &tutor.Known{Conversation: *conv, Locale: *q.Locale}
	}
	res, err := a.Tutor.Ask(ctx, in)
	switch {
	case errors.Is(err, models.ErrNotFound) && in.Opens != nil && in.Opens.LessonID != nil:
		// The statement recording the question found no such lesson.
		return nil, unknownLesson(q.LessonID)
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

// open makes in ask in the new conversation q opens. Without earlier
// context the conversation is stored by the statement recording the
// question, only when the quota admits it (a refused question leaves
// no empty thread), and its first answer is prepared beside that
// statement: the thread is known before it is stored, and its first
// question has no history. Earlier context is stored first, with the
// conversation, as before.
func (a *Outside) open(ctx context.Context, userID string, q OutsideQuestion, in *tutor.AskInput) error {
	if len(q.Seed) > 0 {
		conv, err := a.NewConversation(ctx, userID, q.Plan, q.Mode, q.LessonID, q.ModuleID, tutor.SeedTurns(q.Seed))
		if err != nil {
			return err
		}
		in.ConversationID = conv.ID
		return nil
	}
	conv, err := a.thread(ctx, userID, q.Plan, q.Mode, q.LessonID, q.ModuleID)
	if err != nil {
		return err
	}
	in.ConversationID, in.Opens = conv.ID, conv
	if q.Locale != nil {
		in.Known = &tutor.Known{Conversation: *conv, Locale: *q.Locale}
	}
	return nil
}

// NewConversation starts the conversation an outside question
// opens: a lesson's when lessonId is given (its module is the lesson's),
// else of mode (tutor by default), optionally about a module, with the
// earlier context the other program brought. plan is the user's as
// authentication read it ("" not read).
func (a *Outside) NewConversation(ctx context.Context, userID, plan, mode, lessonID string, moduleID int64, earlier []models.ContextTurn) (*models.Conversation, error) {
	c, err := a.thread(ctx, userID, plan, mode, lessonID, moduleID)
	if err != nil {
		return nil, err
	}
	var module int64
	if c.ModuleID != nil {
		module = *c.ModuleID
	}
	conv, err := a.Conversations.CreateWithContext(ctx, userID, c.Mode, lessonID, module, c.Style, earlier)
	if err != nil {
		return nil, conversationRefusal(err, lessonID)
	}
	return conv, nil
}

// thread checks an outside conversation's input and returns it, not
// stored (models.NewThread): of mode, tutor by default or lesson when
// lessonId is given; a module given must exist (read now) and is
// dropped for a lesson's thread, whose module is its lesson's. Whether
// the lesson exists is checked where the thread is stored. A member's
// thread starts in their organization's teaching style, and a help
// thread is refused when it turned help mode off.
func (a *Outside) thread(ctx context.Context, userID, plan, mode, lessonID string, moduleID int64) (*models.Conversation, error) {
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
	pol := models.DefaultPolicy()
	if a.Orgs != nil {
		var err error
		if pol, err = a.Orgs.PolicyFor(ctx, userID, plan); err != nil {
			return nil, err
		}
	}
	if mode == models.ModeHelp && !pol.HelpMode {
		return nil, APIRefusal(tutor.Refuse(models.ErrHelpModeOff))
	}
	c, err := models.NewThread(userID, mode, lessonID, moduleID, pol.TeachingStyle)
	if err != nil {
		return nil, conversationRefusal(err, lessonID)
	}
	return c, nil
}

// conversationRefusal is the API's answer to a conversation that cannot
// be created: a 422 naming what is wrong, else err.
func conversationRefusal(err error, lessonID string) error {
	switch {
	case errors.Is(err, models.ErrNotFound):
		return unknownLesson(lessonID)
	case errors.Is(err, models.ErrInvalidMode):
		return APIErr(http.StatusUnprocessableEntity, CodeInvalidMode, "mode must be lesson, tutor or help")
	case errors.Is(err, models.ErrInvalidStyle):
		return APIErr(http.StatusUnprocessableEntity, CodeInvalidStyle, "style must be explain or guide")
	case errors.Is(err, models.ErrNoLesson):
		return APIErr(http.StatusUnprocessableEntity, CodeLessonRequired, "a lesson conversation needs a lessonId")
	}
	return err
}

// unknownLesson is the API's answer to a lessonId naming no lesson.
func unknownLesson(lessonID string) error {
	return APIErr(http.StatusUnprocessableEntity, CodeUnknownLesson, "lessonId %q names no lesson", lessonID)
}
