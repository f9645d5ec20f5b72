package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"aula/models"
	"aula/tutor"
)

// askBody is a question sent to /tutor/stream or /tutor/chat.
type askBody struct {
	ModuleID            *int64        `json:"moduleId"`
	LessonID            string        `json:"lessonId"`
	ConversationID      string        `json:"conversationId"`
	Message             string        `json:"message"`
	ConversationHistory []historyTurn `json:"conversationHistory"`
}

// historyTurn is one turn of conversationHistory.
type historyTurn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// outsideQuestion is a question from another program, API or MCP.
type outsideQuestion struct {
	ConversationID string // ask in this conversation of the user; else a new one
	Mode, LessonID string
	ModuleID       int64
	Message        string
	Seed           []tutor.Turn // a new conversation's context
	Lang           string
}

// askOutside validates and records a question from another program
// through the same tutor.Ask as the browser, so the quota, history and
// ownership rules are the same. Refusals are *apiError.
func (a *App) askOutside(ctx context.Context, userID string, q outsideQuestion) (*tutor.AskResult, error) {
	msg := strings.TrimSpace(q.Message)
	if msg == "" {
		return nil, apiErr(http.StatusUnprocessableEntity, codeEmptyMessage, "message must not be empty")
	}
	if n := utf8.RuneCountInString(msg); n > tutor.MaxQuestionChars {
		return nil, apiErr(http.StatusUnprocessableEntity, codeTooLong, "message has %d characters; the limit is %d", n, tutor.MaxQuestionChars)
	}
	cid := q.ConversationID
	in := tutor.AskInput{UserID: userID, Content: q.Message, Lang: q.Lang}
	if cid == "" {
		conv, err := a.newOutsideConversation(ctx, userID, q.Mode, q.LessonID, q.ModuleID)
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
		return nil, apiErr(http.StatusTooManyRequests, codeQuota, "the %s plan's %d questions this month are used; they reset on %s",
			qe.Plan, qe.Limit, qe.ResetAt.Format(time.DateOnly))
	case errors.Is(err, models.ErrNotFound):
		return nil, errAPINotFound
	case errors.Is(err, tutor.ErrEmptyQuestion):
		return nil, apiErr(http.StatusUnprocessableEntity, codeEmptyMessage, "message must not be empty")
	case errors.Is(err, tutor.ErrQuestionTooLong):
		return nil, apiErr(http.StatusUnprocessableEntity, codeTooLong, "message is longer than %d characters", tutor.MaxQuestionChars)
	case errors.Is(err, tutor.ErrClosed):
		return nil, apiErr(http.StatusServiceUnavailable, codeUnavailable, "aula is restarting; ask again in a moment")
	case err != nil:
		return nil, fmt.Errorf("ask from outside: %w", err)
	}
	return res, nil
}

// newOutsideConversation starts the conversation an outside question
// opens: a lesson's when lessonId is given (its module is the lesson's),
// else of mode (tutor by default), optionally about a module.
func (a *App) newOutsideConversation(ctx context.Context, userID, mode, lessonID string, moduleID int64) (*models.Conversation, error) {
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
			return nil, apiErr(http.StatusUnprocessableEntity, codeUnknownModule, "moduleId %d names no module", moduleID)
		} else if err != nil {
			return nil, err
		}
	}
	conv, err := a.Conversations.Create(ctx, userID, mode, lessonID, moduleID, "")
	switch {
	case errors.Is(err, models.ErrNotFound):
		return nil, apiErr(http.StatusUnprocessableEntity, codeUnknownLesson, "lessonId %q names no lesson", lessonID)
	case errors.Is(err, models.ErrInvalidMode):
		return nil, apiErr(http.StatusUnprocessableEntity, codeInvalidMode, "mode must be lesson, tutor or help")
	case errors.Is(err, models.ErrInvalidStyle):
		return nil, apiErr(http.StatusUnprocessableEntity, codeInvalidStyle, "style must be explain or guide")
	case errors.Is(err, models.ErrNoLesson):
		return nil, apiErr(http.StatusUnprocessableEntity, codeLessonRequired, "a lesson conversation needs a lessonId")
	case err != nil:
		return nil, err
	}
	return conv, nil
}

// readAsk decodes and checks an ask body. conversationHistory is strict:
// every turn must have role user or assistant and 1 to 4,000 characters,
// or the question is refused (422), since a client sending bad history
// has a bug worth hearing about; only the last 10 turns are used.
func readAsk(c echo.Context) (outsideQuestion, error) {
	var b askBody
	if err := decodeJSON(c, &b); err != nil {
		return outsideQuestion{}, err
	}
	q := outsideQuestion{ConversationID: b.ConversationID, LessonID: b.LessonID, Message: b.Message}
	if b.ModuleID != nil {
		q.ModuleID = *b.ModuleID
	}
	for i, t := range b.ConversationHistory {
		if t.Role != models.RoleUser && t.Role != models.RoleAssistant {
			return q, apiErr(http.StatusUnprocessableEntity, codeInvalidHistory, "conversationHistory[%d].role must be user or assistant", i)
		}
		if strings.TrimSpace(t.Content) == "" || utf8.RuneCountInString(t.Content) > tutor.MaxQuestionChars {
			return q, apiErr(http.StatusUnprocessableEntity, codeInvalidHistory,
				"conversationHistory[%d].content must have 1 to %d characters", i, tutor.MaxQuestionChars)
		}
		q.Seed = append(q.Seed, tutor.Turn{Role: t.Role, Content: t.Content})
	}
	return q, nil
}

// apiStream asks and streams the answer as server-sent `data:` lines of
// JSON, each flushed as the provider emits it.
func (a *App) apiStream(c echo.Context) error {
	ctx := c.Request().Context()
	u := apiUser(c)
	q, err := readAsk(c)
	if err != nil {
		return err
	}
	res, err := a.askOutside(ctx, u.ID, q)
	if err != nil {
		return err
	}
	sub, err := a.Tutor.Stream(ctx, u.ID, res.AssistantMessage.ID, 0)
	if err != nil {
		return err
	}
	defer sub.Close()
	w := c.Response()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	w.Flush()
	for {
		text, _, final, err := sub.Next(ctx)
		if err != nil {
			return nil // the client left; the answer is still stored
		}
		if final != nil {
			writeData(w, finalEvent(res.Conversation.ID, res.AssistantMessage.ID, final))
			return nil
		}
		writeData(w, map[string]string{"type": "chunk", "text": text})
	}
}

// finalEvent is the stream's last line: done, or error with the API's code
// (and the tutor's own code as reason).
func finalEvent(cid, mid string, f *tutor.Final) map[string]any {
	m := f.Message
	if m == nil {
		m = &models.Message{ID: mid, Status: f.Status, Content: f.Content, ErrorCode: f.ErrorCode}
	}
	if m.Status == models.StatusFailed {
		return map[string]any{"type": "error", "code": streamErrorCode(m.ErrorCode), "reason": m.ErrorCode,
			"messageId": mid, "conversationId": cid}
	}
	return map[string]any{"type": "done", "messageId": mid, "conversationId": cid, "status": m.Status,
		"provider": m.Provider, "model": m.Model, "latencyMs": m.LatencyMs}
}

// writeData writes one `data:` line of JSON and flushes it; JSON never
// holds a raw newline, so one line is one event.
func writeData(w *echo.Response, v any) {
	b, _ := json.Marshal(v)
	_, _ = w.Write(append(append([]byte("data: "), b...), '\n', '\n'))
	w.Flush()
}

// chatAnswer is /tutor/chat's answer.
type chatAnswer struct {
	Answer         string `json:"answer"`
	MessageID      string `json:"messageId"`
	ConversationID string `json:"conversationId"`
	Status         string `json:"status"`
	Provider       string `json:"provider"`
	Model          string `json:"model"`
	LatencyMs      *int   `json:"latencyMs"`
}

// apiChat asks and answers with the whole answer once it is finished.
func (a *App) apiChat(c echo.Context) error {
	ctx := c.Request().Context()
	u := apiUser(c)
	q, err := readAsk(c)
	if err != nil {
		return err
	}
	res, err := a.askOutside(ctx, u.ID, q)
	if err != nil {
		return err
	}
	m, err := a.Tutor.Wait(ctx, u.ID, res.AssistantMessage.ID)
	if err != nil {
		return err
	}
	if m.Status == models.StatusFailed {
		return apiErr(http.StatusServiceUnavailable, streamErrorCode(m.ErrorCode),
			"the tutor could not answer (%s); the question was not counted", m.ErrorCode)
	}
	return c.JSON(http.StatusOK, chatAnswer{Answer: m.Content, MessageID: m.ID, ConversationID: m.ConversationID,
		Status: m.Status, Provider: m.Provider, Model: m.Model, LatencyMs: m.LatencyMs})
}

// apiRate records 👍/👎 on one of the user's answers.
func (a *App) apiRate(c echo.Context) error {
	var b struct {
		MessageID string  `json:"messageId"`
		Rating    *string `json:"rating"`
		Reason    string  `json:"reason"`
		Comment   string  `json:"comment"`
	}
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	if b.Rating == nil {
		return apiErr(http.StatusUnprocessableEntity, codeInvalidRating, `rating must be "up", "down" or "" (clear)`)
	}
	err := a.Messages.Rate(c.Request().Context(), apiUser(c).ID, b.MessageID, *b.Rating, b.Reason, b.Comment)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return errAPINotFound
	case errors.Is(err, models.ErrInvalidRating):
		return apiErr(http.StatusUnprocessableEntity, codeInvalidRating, `rating must be "up", "down" or "" (clear)`)
	case errors.Is(err, models.ErrInvalidReason):
		return apiErr(http.StatusUnprocessableEntity, codeInvalidRating, "reason must be one of %s", strings.Join(models.RatingReasons, ", "))
	case errors.Is(err, models.ErrNotRateable):
		return apiErr(http.StatusUnprocessableEntity, codeNotRateable, "only a complete answer can be rated")
	case err != nil:
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"messageId": b.MessageID, "rating": *b.Rating})
}

// apiSuggestions lists a lesson's suggested questions.
func (a *App) apiSuggestions(c echo.Context) error {
	ctx := c.Request().Context()
	id := c.QueryParam("lessonId")
	if id == "" {
		return apiErr(http.StatusUnprocessableEntity, codeInvalidParam, "lessonId is required")
	}
	if _, err := a.Content.Lesson(ctx, id); errors.Is(err, models.ErrNotFound) {
		return apiErr(http.StatusUnprocessableEntity, codeUnknownLesson, "lessonId %q names no lesson", id)
	} else if err != nil {
		return err
	}
	sugg, err := a.Content.Suggestions(ctx, id)
	if err != nil {
		return err
	}
	texts := make([]string, 0, len(sugg))
	for _, s := range sugg {
		texts = append(texts, s.Text)
	}
	return c.JSON(http.StatusOK, map[string]any{"lessonId": id, "suggestions": texts})
}

// apiMonthlyUsage is the month's questions against the plan (limit 0 = unlimited).
func (a *App) apiMonthlyUsage(c echo.Context) error {
	u, err := a.Quotas.Usage(c.Request().Context(), apiUser(c).ID, time.Now())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"used": u.Used, "limit": u.Limit, "plan": u.Plan,
		"remaining": u.Remaining(), "resetAt": u.ResetAt})
}

// apiMyHistory pages through the user's conversations by page number.
func (a *App) apiMyHistory(c echo.Context) error {
	page, err := queryInt(c, "page", 1, 1, 1_000_000)
	if err != nil {
		return err
	}
	limit, err := queryInt(c, "limit", 20, 1, 100)
	if err != nil {
		return err
	}
	items, total, err := a.Stats.HistoryByPage(c.Request().Context(), apiUser(c).ID, page, limit)
	if err != nil {
		return err
	}
	if items == nil {
		items = []models.HistoryEntry{}
	}
	return c.JSON(http.StatusOK, map[string]any{"items": items, "page": page, "limit": limit, "total": total})
}

// apiMyUsage is the student dashboard's activity, as JSON.
func (a *App) apiMyUsage(c echo.Context) error {
	ctx := c.Request().Context()
	uid := apiUser(c).ID
	st, err := a.Stats.Student(ctx, uid, time.Now())
	if err != nil {
		return err
	}
	total, err := a.Stats.TotalQuestions(ctx, uid)
	if err != nil {
		return err
	}
	weekly := make([]map[string]any, 0, len(st.Weeks))
	for _, w := range st.Weeks {
		weekly = append(weekly, map[string]any{"weekStart": w.Start.Format(time.DateOnly), "questions": w.Questions})
	}
	var top any
	if st.TopModule != "" {
		top = map[string]any{"name": st.TopModule, "questions": st.TopModuleQuestions}
	}
	return c.JSON(http.StatusOK, map[string]any{"sessionsThisMonth": st.SessionsThisMonth,
		"questionsThisMonth": st.QuestionsThisMonth, "totalQuestions": total, "topModule": top, "weekly": weekly})
}

// apiSessionInfo names the provider and model answering now.
func (a *App) apiSessionInfo(c echo.Context) error {
	info, err := a.Tutor.SessionInfo(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, info)
}
