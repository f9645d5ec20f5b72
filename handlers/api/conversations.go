package api

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/tutor"
)

// conversationJSON is a conversation as the API shows it.
type conversationJSON struct {
	ID       string  `json:"id"`
	Title    string  `json:"title"`
	Mode     string  `json:"mode"`
	Style    string  `json:"style"`
	LessonID *string `json:"lessonId"`
	// RemovedLessonTitle names the thread's lesson after it was deleted.
	RemovedLessonTitle *string   `json:"removedLessonTitle"`
	ModuleID           *int64    `json:"moduleId"`
	CreatedAt          time.Time `json:"createdAt"`
	LastActivityAt     time.Time `json:"lastActivityAt"`
}

// conversationDetail is a conversation with its messages.
type conversationDetail struct {
	conversationJSON
	Messages []messageJSON `json:"messages"`
	// EarlierContext is what the program that opened the conversation
	// sent as its history: remembered like its turns, not messages.
	EarlierContext []contextTurnJSON `json:"earlierContext"`
}

// contextTurnJSON is one turn of a conversation's earlier context.
type contextTurnJSON struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// messageJSON is one turn with its state, rating and, for answers, receipt.
type messageJSON struct {
	ID            string       `json:"id"`
	Seq           int          `json:"seq"`
	Role          string       `json:"role"`
	Content       string       `json:"content"`
	Status        string       `json:"status"`
	ErrorCode     string       `json:"errorCode,omitempty"`
	Rating        *string      `json:"rating"`
	RatingReason  *string      `json:"ratingReason,omitempty"`
	RatingComment string       `json:"ratingComment,omitempty"`
	Provider      string       `json:"provider,omitempty"`
	Model         string       `json:"model,omitempty"`
	LatencyMs     *int         `json:"latencyMs,omitempty"`
	CreatedAt     time.Time    `json:"createdAt"`
	CompletedAt   *time.Time   `json:"completedAt"`
	Receipt       *receiptJSON `json:"receipt,omitempty"`
	Version       int          `json:"version,omitempty"`  // an answer's version on display
	Versions      int          `json:"versions,omitempty"` // how many versions it has (regenerations + 1)
}

// receiptJSON is what the tutor saw for an answer.
type receiptJSON struct {
	Citations       []citationJSON `json:"citations"`
	Lang            string         `json:"lang"`
	Style           string         `json:"style"`
	TurnsRemembered int            `json:"turnsRemembered"`
	TurnsClipped    []clippedJSON  `json:"turnsClipped"`
}

// clippedJSON is a remembered turn sent shortened to fit the budget.
type clippedJSON struct {
	Turn              int    `json:"turn"` // 0-based among the turns remembered, oldest first
	Role              string `json:"role"`
	CharactersLeftOut int    `json:"charactersLeftOut"`
}

type citationJSON struct {
	LessonID string `json:"lessonId"`
	Heading  string `json:"heading"`
	Anchor   string `json:"anchor"`
	Kind     string `json:"kind"`
	Cited    bool   `json:"cited"` // the answer links or quotes it (else it was only given to the tutor)
}

func toConversationJSON(c *models.Conversation) conversationJSON {
	return conversationJSON{ID: c.ID, Title: c.Title, Mode: c.Mode, Style: c.Style, LessonID: c.LessonID, RemovedLessonTitle: c.RemovedLessonTitle,
		ModuleID: c.ModuleID, CreatedAt: c.CreatedAt, LastActivityAt: c.LastActivityAt}
}

func toMessageJSON(m models.Message) messageJSON {
	out := messageJSON{ID: m.ID, Seq: m.Seq, Role: m.Role, Content: m.Content, Status: m.Status, ErrorCode: m.ErrorCode,
		Rating: m.Rating, RatingReason: m.RatingReason, RatingComment: m.RatingComment, Provider: m.Provider,
		Model: m.Model, LatencyMs: m.LatencyMs, CreatedAt: m.CreatedAt, CompletedAt: m.CompletedAt}
	if m.Role == models.RoleAssistant && m.Status != models.StatusStreaming {
		r := tutor.ParseReceipt(m.Metadata)
		rj := &receiptJSON{Citations: []citationJSON{}, Lang: r.Lang, Style: r.Style, TurnsRemembered: r.TurnsSent,
			TurnsClipped: []clippedJSON{}}
		for _, c := range r.Clipped {
			rj.TurnsClipped = append(rj.TurnsClipped, clippedJSON{Turn: c.Turn, Role: c.Role, CharactersLeftOut: c.Left})
		}
		for _, c := range r.Citations {
			rj.Citations = append(rj.Citations, citationJSON{LessonID: c.LessonID, Heading: c.Heading, Anchor: c.Anchor, Kind: c.Kind, Cited: c.Cited})
		}
		out.Receipt = rj
	}
	return out
}

// apiListConversations lists the user's threads with questions, newest
// activity first, by keyset cursor.
func (a *App) apiListConversations(c echo.Context) error {
	limit, err := queryInt(c, "limit", 20, 1, 100)
	if err != nil {
		return err
	}
	opt := models.ListOptions{Limit: limit, LessonID: c.QueryParam("lessonId"), Mode: c.QueryParam("mode")}
	if cur := c.QueryParam("cursor"); cur != "" {
		if opt.After, err = models.ParseCursor(cur); err != nil {
			return badCursor(c)
		}
	}
	rows, next, err := a.Conversations.List(c.Request().Context(), handlers.UserFrom(c).ID, opt)
	if err != nil {
		return err
	}
	items := make([]conversationJSON, 0, len(rows))
	for i := range rows {
		items = append(items, toConversationJSON(&rows[i]))
	}
	var nextCursor *string
	if next != nil {
		s := models.EncodeCursor(*next)
		nextCursor = &s
	}
	return c.JSON(http.StatusOK, map[string]any{"items": items, "nextCursor": nextCursor})
}

// apiCreateConversation starts an empty thread; it is listed once it has a question.
func (a *App) apiCreateConversation(c echo.Context) error {
	var b struct {
		Mode     string `json:"mode"`
		LessonID string `json:"lessonId"`
		ModuleID *int64 `json:"moduleId"`
		Style    string `json:"style"`
	}
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	var module int64
	if b.ModuleID != nil {
		module = *b.ModuleID
	}
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	uid := u.ID
	conv, err := a.Outside.NewConversation(ctx, uid, u.Plan, b.Mode, b.LessonID, module, nil)
	if err != nil {
		return err
	}
	if b.Style != "" && b.Style != conv.Style {
		if err := a.Conversations.SetStyle(ctx, uid, conv.ID, b.Style); errors.Is(err, models.ErrInvalidStyle) {
			_ = a.Conversations.Delete(ctx, uid, conv.ID)
			return handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidStyle, "style must be explain or guide")
		} else if err != nil {
			return err
		}
		conv.Style = b.Style
	}
	return c.JSON(http.StatusCreated, toConversationJSON(conv))
}

// apiGetConversation returns one of the user's threads with its messages.
func (a *App) apiGetConversation(c echo.Context) error {
	ctx := c.Request().Context()
	uid := handlers.UserFrom(c).ID
	conv, err := a.Conversations.Get(ctx, uid, c.Param("id"))
	if err != nil {
		return err
	}
	msgs, err := a.Messages.ListByConversation(ctx, uid, conv.ID)
	if err != nil {
		return err
	}
	earlier, err := a.Messages.ContextTurns(ctx, uid, conv.ID)
	if err != nil {
		return err
	}
	out := conversationDetail{conversationJSON: toConversationJSON(conv), EarlierContext: make([]contextTurnJSON, 0, len(earlier))}
	for _, t := range earlier {
		out.EarlierContext = append(out.EarlierContext, contextTurnJSON(t))
	}
	ids := make([]string, 0, len(msgs))
	for _, m := range msgs {
		ids = append(ids, m.ID)
	}
	versions, err := a.Messages.VersionCounts(ctx, uid, ids)
	if err != nil {
		return err
	}
	out.Messages = make([]messageJSON, 0, len(msgs))
	for _, m := range msgs {
		mj := toMessageJSON(m)
		if m.Role == models.RoleAssistant {
			mj.Version, mj.Versions = max(m.Version, 1), versions[m.ID]
		}
		out.Messages = append(out.Messages, mj)
	}
	return c.JSON(http.StatusOK, out)
}

// apiDeleteConversation deletes one of the user's threads.
func (a *App) apiDeleteConversation(c echo.Context) error {
	ctx, uid, cid := c.Request().Context(), handlers.UserFrom(c).ID, c.Param("id")
	if err := a.Streams.StopConversation(ctx, uid, cid); err != nil {
		return err
	}
	if err := a.Conversations.Delete(ctx, uid, cid); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
