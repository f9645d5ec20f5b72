package web

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/i18n"
	"aula/models"
	"aula/tutor"
	"aula/urls"
	"aula/views"
)

// threadPage is the number of threads per page of the list.
const threadPage = 30

// chatIndex opens the thread that was active, else the most recent, else the empty state.
func (a *App) chatIndex(c echo.Context) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	if c.QueryParam("after") == "" {
		if id := u.ActiveConversationID; id != nil {
			if _, err := a.Conversations.Get(ctx, u.ID, *id); err == nil {
				return c.Redirect(http.StatusSeeOther, urls.Thread(*id))
			}
		}
		list, _, err := a.Conversations.List(ctx, u.ID, models.ListOptions{Limit: 1})
		if err != nil {
			return err
		}
		if len(list) > 0 {
			return c.Redirect(http.StatusSeeOther, urls.Thread(list[0].ID))
		}
	}
	return a.renderChat(c, nil, views.AskForm{}, http.StatusOK)
}

// chatThread shows one thread of the user beside the list, and makes it the active one.
func (a *App) chatThread(c echo.Context) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	conv, err := a.Conversations.Get(ctx, u.ID, c.Param("cid"))
	if err != nil {
		return err
	}
	if err := a.Conversations.SetActive(ctx, u.ID, conv.ID); err != nil {
		return err
	}
	return a.renderChat(c, conv, views.AskForm{}, http.StatusOK)
}

// renderChat builds the assistant screen; form carries what to show again after an error.
func (a *App) renderChat(c echo.Context, conv *models.Conversation, form views.AskForm, status int) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	activeID := ""
	if conv != nil {
		activeID = conv.ID
	}
	v := views.ChatView{Active: conv}
	pol, err := a.Orgs.PolicyFor(ctx, u.ID, u.Plan)
	if err != nil {
		return err
	}
	v.NoHelp = !pol.HelpMode
	if v.Threads, v.MoreURL, v.More, err = a.threadList(c, activeID); err != nil {
		return err
	}
	if v.Usage, err = a.Quotas.Usage(ctx, u.ID, a.Tutor.Now()); err != nil {
		return err
	}
	form.AtLimit = v.Usage.Limit > 0 && v.Usage.Used >= v.Usage.Limit
	// With no thread yet the input is offered at once: the first question
	// creates the thread (POST /chat with content) and opens it.
	form.Action, form.Target, form.Swap, form.Attach = urls.Chat(), "#thread", "none", true
	form.Hidden = map[string]string{"mode": models.ModeTutor}
	if conv != nil && conv.Mode == models.ModeCheck { // a check resumes with its form
		if v.Check, err = a.threadCheck(ctx, u.ID, conv.ID); err != nil {
			return err
		}
		v.Title, conv = conv.Title, nil
	}
	if conv != nil {
		msgs, err := a.Messages.ListByConversation(ctx, u.ID, conv.ID)
		if err != nil {
			return err
		}
		if v.Messages, err = a.messageViews(ctx, u.ID, conv, msgs, false); err != nil {
			return err
		}
		if v.Earlier, err = a.Messages.ContextTurns(ctx, u.ID, conv.ID); err != nil {
			return err
		}
		for _, m := range msgs {
			if m.Status == models.StatusStreaming {
				v.Refresh = true
			}
		}
		v.Title = conv.Title
		v.Badge = a.badge(c)
		form.Action, form.Target, form.Swap, form.Hidden = urls.ThreadMessages(conv.ID), "#messages", "beforeend", nil
		form.Next = newTicket()
	}
	v.Form = form
	return a.render(c, status, views.ChatPage(v), nil)
}

// threadsPage is the next page of the thread list, for the infinite scroll.
func (a *App) threadsPage(c echo.Context) error {
	items, more, moreHX, err := a.threadList(c, c.QueryParam("active"))
	if err != nil {
		return err
	}
	return a.fragment(c, http.StatusOK, views.ThreadItems(items, more, moreHX))
}

// threadList is the page of the user's thread list after ?after=, with the
// links to the next page: a plain one and the HTMX one (empty on the last page).
func (a *App) threadList(c echo.Context, activeID string) (items []views.ThreadView, more, moreHX string, err error) {
	after, err := parseCursor(c.QueryParam("after"))
	if err != nil {
		return nil, "", "", err
	}
	threads, next, err := a.Conversations.List(c.Request().Context(), handlers.UserFrom(c).ID,
		models.ListOptions{Limit: threadPage, After: after})
	if err != nil {
		return nil, "", "", err
	}
	active := &models.Conversation{ID: activeID}
	for _, t := range threads {
		items = append(items, threadView(t, active))
	}
	if next != nil {
		cur := models.EncodeCursor(*next)
		more, moreHX = urls.ChatAfter(cur), urls.Threads(cur, activeID)
	}
	return items, more, moreHX, nil
}

// createConversation starts a thread (reusing an empty one of the same kind)
// and opens it. With `content`, the question is asked in it at once: the
// lesson panel's first question. With `next`, it returns to that page.
func (a *App) createConversation(c echo.Context) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	mode, lessonID := c.FormValue("mode"), strings.TrimSpace(c.FormValue("lesson_id"))
	if mode == "" {
		mode = models.ModeTutor
	}
	if !models.ValidMode(mode) || (mode == models.ModeLesson && lessonID == "") {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "mode must be lesson (with lesson_id), tutor or help")
	}
	// A member's organization may turn help threads off, and gives their
	// new threads its teaching style.
	pol, err := a.Orgs.PolicyFor(ctx, u.ID, u.Plan)
	if err != nil {
		return err
	}
	if mode == models.ModeHelp && !pol.HelpMode {
		return a.renderChat(c, nil, views.AskForm{Error: t(c, "ask.err.help_off")}, http.StatusConflict)
	}
	conv, err := a.Conversations.ReuseEmpty(ctx, u.ID, mode, lessonID)
	if errors.Is(err, models.ErrNotFound) {
		conv, err = a.Conversations.Create(ctx, u.ID, mode, lessonID, 0, pol.TeachingStyle)
	}
	if err != nil {
		return err
	}
	pathSlug := c.FormValue(panelPathField)
	if strings.TrimSpace(c.FormValue("content")) != "" || hasFile(c) {
		return a.askIn(c, conv, pathSlug)
	}
	if pathSlug != "" && conv.LessonID != nil {
		return redirect(c, urls.LessonPanel(pathSlug, *conv.LessonID, conv.ID))
	}
	return redirect(c, urls.Thread(conv.ID))
}

// deleteConfirm asks before deleting (the no-JavaScript path to a delete).
func (a *App) deleteConfirm(c echo.Context) error {
	conv, err := a.Conversations.Get(c.Request().Context(), handlers.UserFrom(c).ID, c.Param("cid"))
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.DeleteConfirm(conv.ID, conv.Title), nil)
}

// deleteConversation removes the user's thread (stopping its answers in flight) and opens the next most recent one.
func (a *App) deleteConversation(c echo.Context) error {
	ctx, uid, cid := c.Request().Context(), handlers.UserFrom(c).ID, c.Param("cid")
	if err := a.Streams.StopConversation(ctx, uid, cid); err != nil {
		return err
	}
	if err := a.Conversations.Delete(ctx, uid, cid); err != nil {
		return err
	}
	return redirect(c, urls.Chat())
}

// setStyle switches a thread between explain and guide.
func (a *App) setStyle(c echo.Context) error {
	u := handlers.UserFrom(c)
	cid := c.Param("cid")
	err := a.Conversations.SetStyle(c.Request().Context(), u.ID, cid, c.FormValue("style"))
	if errors.Is(err, models.ErrInvalidStyle) {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "style must be explain or guide")
	}
	if err != nil {
		return err
	}
	if isFragment(c) {
		// HTMX swaps the switch in place: no reload, the draft and the
		// scroll position stay, and its live region says what changed.
		return a.fragment(c, http.StatusOK, views.StyleChanged(cid, c.FormValue("style"), c.FormValue("next")))
	}
	return redirect(c, safeNext(c.FormValue("next"), urls.Thread(cid)))
}

// badge names the model that will answer the next question (see modelName).
func (a *App) badge(c echo.Context) string {
	ctx := c.Request().Context()
	info, err := a.Tutor.SessionInfo(ctx)
	if err != nil {
		return ""
	}
	return modelName(ctx, info, info.Provider, cmp.Or(info.Model, tutor.DefaultModel(info.Provider)))
}

// modelName is what a student sees of the model that writes (or wrote)
// with provider and model, route being the tutor's route now: the display
// name an admin gave that route, else the offline tutor by its name in the
// student's language, else the model's own name; never the provider.
func modelName(ctx context.Context, route tutor.SessionInfo, provider, model string) string {
	switch {
	case model == "":
		return ""
	case route.DisplayName != "" && route.Wrote(provider, model):
		return route.DisplayName
	case provider == tutor.ProviderOffline:
		return i18n.T(ctx, "chat.model_offline")
	}
	return model
}

func threadView(t models.Conversation, active *models.Conversation) views.ThreadView {
	return views.ThreadView{ID: t.ID, Title: t.Title, Mode: t.Mode, LastActivity: t.LastActivityAt,
		Active: active != nil && active.ID == t.ID}
}

// parseCursor reads the keyset position of ?after= (models.EncodeCursor);
// a malformed one is the visitor's mistake, a 400.
func parseCursor(s string) (*models.ConversationCursor, error) {
	if s == "" {
		return nil, nil
	}
	cur, err := models.ParseCursor(s)
	if err != nil {
		return nil, echo.NewHTTPError(http.StatusBadRequest, "malformed page cursor")
	}
	return cur, nil
}
