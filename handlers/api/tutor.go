package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/tutor"
	"aula/tutor/stream"
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

// readAsk decodes and checks an ask body. conversationHistory is strict:
// every turn must have role user or assistant and 1 to 4,000 characters,
// or the question is refused (422), since a client sending bad history
// has a bug worth hearing about; only the last 10 turns are used.
func readAsk(c echo.Context) (handlers.OutsideQuestion, error) {
	var b askBody
	if err := decodeJSON(c, &b); err != nil {
		return handlers.OutsideQuestion{}, err
	}
	q := handlers.OutsideQuestion{ConversationID: b.ConversationID, LessonID: b.LessonID, Message: b.Message}
	if b.ModuleID != nil {
		q.ModuleID = *b.ModuleID
	}
	for i, t := range b.ConversationHistory {
		if t.Role != models.RoleUser && t.Role != models.RoleAssistant {
			return q, handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidHistory, "conversationHistory[%d].role must be user or assistant", i)
		}
		if strings.TrimSpace(t.Content) == "" || utf8.RuneCountInString(t.Content) > tutor.MaxQuestionChars {
			return q, handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidHistory,
				"conversationHistory[%d].content must have 1 to %d characters", i, tutor.MaxQuestionChars)
		}
		q.Seed = append(q.Seed, tutor.Turn{Role: t.Role, Content: t.Content})
	}
	return q, nil
}

// ask records the request's question for u, the signed-in user, as both
// tutor doors do: u's locale, read by authentication, lets a new
// conversation's first answer be prepared while its question is recorded.
func (a *App) ask(c echo.Context, u *models.User) (*tutor.AskResult, error) {
	q, err := readAsk(c)
	if err != nil {
		return nil, err
	}
	q.Locale, q.Plan = &u.Locale, u.Plan
	return a.Outside.Ask(c.Request().Context(), u.ID, q)
}

// apiStream asks and streams the answer as server-sent `data:` lines of
// JSON, each flushed as the provider emits it.
func (a *App) apiStream(c echo.Context) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	res, err := a.ask(c, u)
	if err != nil {
		return err
	}
	// Only the ids are kept while the answer streams, not the whole result.
	cid, mid := res.Conversation.ID, res.AssistantMessage.ID
	sub, err := a.Streams.Subscribe(ctx, u.ID, mid, 0)
	if err != nil {
		return err
	}
	defer sub.Close()
	w := c.Response()
	handlers.StartEventStream(w)
	for {
		text, _, final, err := sub.Next(ctx)
		if err != nil {
			return nil // the client left; the answer is still stored
		}
		if final != nil {
			writeData(w, finalEvent(cid, mid, final))
			return nil
		}
		writeData(w, map[string]string{"type": "chunk", "text": text})
	}
}

// finalEvent is the stream's last line: done, or error with the API's code
// (and the tutor's own code as reason).
func finalEvent(cid, mid string, f *stream.Final) map[string]any {
	m := f.Message
	if m == nil {
		m = &models.Message{ID: mid, Status: f.Status, Content: f.Content, ErrorCode: f.ErrorCode}
	}
	if m.Status == models.StatusFailed {
		return map[string]any{"type": "error", "code": handlers.StreamErrorCode(m.ErrorCode), "reason": m.ErrorCode,
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
	u := handlers.UserFrom(c)
	res, err := a.ask(c, u)
	if err != nil {
		return err
	}
	m, err := a.Streams.Wait(ctx, u.ID, res.AssistantMessage.ID)
	if err != nil {
		return err
	}
	if m.Status == models.StatusFailed {
		return handlers.APIErr(http.StatusServiceUnavailable, handlers.StreamErrorCode(m.ErrorCode),
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
		return handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidRating, `rating must be "up", "down" or "" (clear)`)
	}
	err := a.Messages.Rate(c.Request().Context(), handlers.UserFrom(c).ID, b.MessageID, *b.Rating, b.Reason, b.Comment)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return handlers.ErrAPINotFound
	case errors.Is(err, models.ErrInvalidRating):
		return handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidRating, `rating must be "up", "down" or "" (clear)`)
	case errors.Is(err, models.ErrInvalidReason):
		return handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidRating, "reason must be one of %s", strings.Join(models.RatingReasons, ", "))
	case errors.Is(err, models.ErrNotRateable):
		return handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeNotRateable, "only a complete answer can be rated")
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
		return handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidParam, "lessonId is required")
	}
	if _, err := a.Content.Lesson(ctx, id); errors.Is(err, models.ErrNotFound) {
		return handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeUnknownLesson, "lessonId %q names no lesson", id)
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
	u, err := a.Quotas.Usage(c.Request().Context(), handlers.UserFrom(c).ID, a.Tutor.Now())
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
	items, total, err := a.Stats.HistoryByPage(c.Request().Context(), handlers.UserFrom(c).ID, page, limit)
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
	uid := handlers.UserFrom(c).ID
	st, err := a.Stats.Student(ctx, uid, a.Tutor.Now())
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
