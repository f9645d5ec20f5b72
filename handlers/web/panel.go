package web

import (
	"context"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// lessonPanel builds the tutor panel for a lesson page: the session asked
// for (?session=), else the student's latest on this lesson, else a fresh
// one that is created with its first question.
func (a *App) lessonPanel(c echo.Context, page *models.LessonPage, conv *models.Conversation, form views.AskForm) (*views.PanelView, error) {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	p := &views.PanelView{
		Open:        c.QueryParam("tutor") == "open" || form.Error != "",
		PathSlug:    page.Path.Slug,
		LessonID:    page.Lesson.ID,
		LessonTitle: page.Lesson.Title,
		FirstName:   u.FirstName(),
		Suggestions: page.Suggestions,
		HistoryOpen: c.QueryParam("history") == "open",
		Badge:       a.badge(c),
	}
	if conv == nil {
		var err error
		if conv, err = a.panelSession(c, page.Lesson.ID); err != nil {
			return nil, err
		}
	}
	if conv != nil && (conv.LessonID == nil || *conv.LessonID != page.Lesson.ID) {
		return nil, models.ErrNotFound
	}
	p.Conversation = conv
	form, err := a.panelThread(ctx, u.ID, page, conv, p, form)
	if err != nil {
		return nil, err
	}
	if p.Usage, err = a.Quotas.Usage(ctx, u.ID, a.Tutor.Now()); err != nil {
		return nil, err
	}
	form.AtLimit = p.Usage.Limit > 0 && p.Usage.Used >= p.Usage.Limit
	form.Passages = true
	p.Form = form
	if p.HistoryOpen {
		if p.Sessions, err = a.lessonSessions(c, page.Lesson.ID, conv); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// panelThread fills the panel with its session: a check's questions, or a
// thread's messages and the form that asks in it; with no session yet, the
// form starts one on the lesson.
func (a *App) panelThread(ctx context.Context, userID string, page *models.LessonPage, conv *models.Conversation,
	p *views.PanelView, form views.AskForm) (views.AskForm, error) {
	switch {
	case conv != nil && conv.Mode == models.ModeCheck:
		st, err := a.Tutor.Check(ctx, userID, conv.ID)
		if err != nil {
			return form, err
		}
		v, err := a.checkView(ctx, st, page.Path.Slug, form)
		if err != nil {
			return form, err
		}
		p.Check = &v
		return views.AskForm{}, nil
	case conv != nil:
		msgs, err := a.Messages.ListByConversation(ctx, userID, conv.ID)
		if err != nil {
			return form, err
		}
		if p.Messages, err = a.messageViews(ctx, userID, conv, msgs, true); err != nil {
			return form, err
		}
		for i := range p.Messages {
			p.Messages[i].PanelPath = page.Path.Slug
		}
		form.Action, form.Target, form.Swap = urls.ThreadMessages(conv.ID), "#messages", "beforeend"
		form.Hidden = map[string]string{panelPathField: page.Path.Slug}
		form.Next, form.InPanel = newTicket(), true
	default:
		form.Next, form.InPanel = newTicket(), true
		form.Action, form.Target, form.Swap = urls.Chat(), "#tutor", "outerHTML"
		form.Hidden = map[string]string{"mode": models.ModeLesson, "lesson_id": page.Lesson.ID, panelPathField: page.Path.Slug}
	}
	return form, nil
}

// panelSession is the session the panel opens on: the one asked for
// (?session=), else the student's latest on the lesson, else none.
func (a *App) panelSession(c echo.Context, lessonID string) (*models.Conversation, error) {
	ctx, uid := c.Request().Context(), handlers.UserFrom(c).ID
	if sid := c.QueryParam("session"); sid != "" {
		return a.Conversations.Get(ctx, uid, sid)
	}
	latest, _, err := a.Conversations.List(ctx, uid, models.ListOptions{Limit: 1, LessonID: lessonID, Mode: models.ModeLesson})
	if err != nil || len(latest) == 0 {
		return nil, err
	}
	return &latest[0], nil
}

// lessonSessions lists the student's sessions on a lesson, newest first.
func (a *App) lessonSessions(c echo.Context, lessonID string, current *models.Conversation) ([]views.ThreadView, error) {
	list, _, err := a.Conversations.List(c.Request().Context(), handlers.UserFrom(c).ID,
		models.ListOptions{Limit: 50, LessonID: lessonID, Modes: []string{models.ModeLesson, models.ModeCheck}})
	if err != nil {
		return nil, err
	}
	out := make([]views.ThreadView, 0, len(list))
	for _, t := range list {
		out = append(out, threadView(t, current))
	}
	return out, nil
}

// sessions is the history drawer's content, loaded when it is opened.
func (a *App) sessions(c echo.Context) error {
	page, err := a.Content.LessonPage(c.Request().Context(), c.Param("path"), c.Param("lesson"))
	if err != nil {
		return err
	}
	list, err := a.lessonSessions(c, page.Lesson.ID, nil)
	if err != nil {
		return err
	}
	p := views.PanelView{PathSlug: page.Path.Slug, LessonID: page.Lesson.ID, Sessions: list}
	return a.fragment(c, http.StatusOK, views.SessionList(p))
}

// renderPanelFragment draws the whole panel for an HTMX swap, on conv,
// for the lesson page of path pathSlug.
//
// asked, when set, is the answer the request just asked for: it is drawn
// as streaming even when it has already finished (a quick provider can
// end it before the panel is drawn), so the page still reads it through
// its stream, whose end puts the answer in the live region for a screen
// reader.
func (a *App) renderPanelFragment(c echo.Context, pathSlug string, conv *models.Conversation, asked string) error {
	if conv.LessonID == nil {
		return models.ErrNotFound
	}
	page, err := a.Content.LessonPage(c.Request().Context(), pathSlug, *conv.LessonID)
	if err != nil {
		return err
	}
	p, err := a.lessonPanel(c, page, conv, views.AskForm{})
	if err != nil {
		return err
	}
	p.Open = true
	for i, m := range p.Messages {
		if m.ID == asked && m.Status != models.StatusStreaming {
			p.Messages[i] = views.MessageView{ID: m.ID, Role: m.Role, Status: models.StatusStreaming, InPanel: m.InPanel}
		}
	}
	if asked != "" && a.handNext(c, handlers.UserFrom(c).ID, asked) {
		// The page's next-answer stream carries it: its bubble takes the
		// place of the one drawn here (ask.js).
		p.Messages = slices.DeleteFunc(p.Messages, func(m views.MessageView) bool { return m.ID == asked })
	}
	return a.fragment(c, http.StatusOK, views.TutorPanel(*p))
}

// renderLessonWithPanel draws the lesson page of path pathSlug again with
// the panel open on conv, showing form's error (the no-JavaScript refusal
// of a question).
func (a *App) renderLessonWithPanel(c echo.Context, pathSlug string, conv *models.Conversation, form views.AskForm, status int) error {
	if conv.LessonID == nil {
		return models.ErrNotFound
	}
	return a.renderLesson(c, pathSlug, *conv.LessonID, conv, form, status)
}

// panelPathField is the form field by which a question, a new session or
// a rating says it comes from a lesson's tutor panel: the lesson's path
// slug (the session names the lesson), so the answer goes back to that page.
const panelPathField = views.PanelPathField

// returnTo is where a plain post in conv goes back to, scrolled to mid:
// the lesson page with its panel open when it came from the panel of path
// pathSlug, else the thread.
func returnTo(conv *models.Conversation, pathSlug, mid string) string {
	if pathSlug != "" && conv.LessonID != nil {
		return urls.LessonPanelMessage(pathSlug, *conv.LessonID, conv.ID, mid)
	}
	return urls.ThreadMessage(conv.ID, mid)
}
