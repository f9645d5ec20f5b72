package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/views"
)

// lessonPanel builds the tutor panel for a lesson page: the session asked
// for (?session=), else the student's latest on this lesson, else a fresh
// one that is created with its first question.
func (a *App) lessonPanel(c echo.Context, page *models.LessonPage, conv *models.Conversation, form views.AskForm) (*views.PanelView, error) {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	lessonURL := "/learn/" + page.Path.Slug + "/" + page.Lesson.ID
	p := &views.PanelView{
		Open:        c.QueryParam("tutor") == "open" || form.Error != "",
		LessonURL:   lessonURL,
		LessonID:    page.Lesson.ID,
		LessonTitle: page.Lesson.Title,
		FirstName:   u.FirstName(),
		Suggestions: page.Suggestions,
		HistoryOpen: c.QueryParam("history") == "open",
		Badge:       a.badge(c),
	}
	if conv == nil {
		if sid := c.QueryParam("session"); sid != "" {
			got, err := a.Conversations.Get(ctx, u.ID, sid)
			if err != nil {
				return nil, err
			}
			conv = got
		} else {
			latest, _, err := a.Conversations.List(ctx, u.ID, models.ListOptions{Limit: 1, LessonID: page.Lesson.ID, Mode: models.ModeLesson})
			if err != nil {
				return nil, err
			}
			if len(latest) > 0 {
				conv = &latest[0]
			}
		}
	}
	if conv != nil && (conv.LessonID == nil || *conv.LessonID != page.Lesson.ID) {
		return nil, models.ErrNotFound
	}
	p.Conversation = conv
	if conv != nil {
		msgs, err := a.Messages.ListByConversation(ctx, u.ID, conv.ID)
		if err != nil {
			return nil, err
		}
		if p.Messages, err = a.messageViews(ctx, u.ID, conv, msgs, true); err != nil {
			return nil, err
		}
		form.Action, form.Target, form.Swap = "/chat/"+conv.ID+"/messages", "#messages", "beforeend"
		form.Hidden = map[string]string{"next": lessonURL}
	} else {
		form.Action, form.Target, form.Swap = "/chat", "#tutor", "outerHTML"
		form.Hidden = map[string]string{"mode": models.ModeLesson, "lesson_id": page.Lesson.ID, "next": lessonURL}
	}
	var err error
	if p.Usage, err = a.Quotas.Usage(ctx, u.ID, a.Tutor.Now()); err != nil {
		return nil, err
	}
	form.AtLimit = p.Usage.Limit > 0 && p.Usage.Used >= p.Usage.Limit
	p.Form = form
	if p.HistoryOpen {
		if p.Sessions, err = a.lessonSessions(c, page.Lesson.ID, conv); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// lessonSessions lists the student's sessions on a lesson, newest first.
func (a *App) lessonSessions(c echo.Context, lessonID string, current *models.Conversation) ([]views.ThreadView, error) {
	list, _, err := a.Conversations.List(c.Request().Context(), handlers.UserFrom(c).ID,
		models.ListOptions{Limit: 50, LessonID: lessonID, Mode: models.ModeLesson})
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
	p := views.PanelView{LessonURL: "/learn/" + page.Path.Slug + "/" + page.Lesson.ID, Sessions: list}
	return a.fragment(c, http.StatusOK, views.SessionList(p))
}

// renderPanelFragment draws the whole panel for an HTMX swap, on conv.
func (a *App) renderPanelFragment(c echo.Context, lessonURL string, conv *models.Conversation) error {
	pathSlug, lessonID, ok := splitLessonURL(lessonURL)
	if !ok {
		return models.ErrNotFound
	}
	page, err := a.Content.LessonPage(c.Request().Context(), pathSlug, lessonID)
	if err != nil {
		return err
	}
	p, err := a.lessonPanel(c, page, conv, views.AskForm{})
	if err != nil {
		return err
	}
	p.Open = true
	return a.fragment(c, http.StatusOK, views.TutorPanel(*p))
}

// renderLessonWithPanel draws the lesson page again with the panel open on
// conv, showing form's error (the no-JavaScript refusal of a question).
func (a *App) renderLessonWithPanel(c echo.Context, lessonURL string, conv *models.Conversation, form views.AskForm, status int) error {
	pathSlug, lessonID, ok := splitLessonURL(lessonURL)
	if !ok {
		return models.ErrNotFound
	}
	return a.renderLesson(c, pathSlug, lessonID, conv, form, status)
}

// splitLessonURL takes "/learn/{path}/{lesson}" apart.
func splitLessonURL(u string) (pathSlug, lessonID string, ok bool) {
	u, _, _ = strings.Cut(u, "?")
	u, _, _ = strings.Cut(u, "#")
	parts := strings.Split(strings.TrimPrefix(u, "/learn/"), "/")
	if !strings.HasPrefix(u, "/learn/") || len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	return parts[0], parts[1], true
}
