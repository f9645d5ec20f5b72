package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/handlers/htmx"
	"aula/markdown"
	"aula/models"
	"aula/tutor"
	"aula/urls"
	"aula/views"
)

// startCheck starts a knowledge check on the lesson (one section of it
// when the form names an anchor) and opens it: in the lesson's panel when
// the form came from the lesson page, else on the check's own page.
func (a *App) startCheck(c echo.Context) error {
	pathSlug := c.FormValue(panelPathField)
	st, err := a.Tutor.StartCheck(c.Request().Context(), handlers.UserFrom(c),
		tutor.CheckScope{LessonID: c.Param("id"), Anchor: c.FormValue("anchor"), Style: c.FormValue("style")})
	if r, ans, ok := handlers.Refused(err); ok {
		if isFragment(c) {
			c.Response().Header().Set(htmx.HeaderRetarget, "#check-offer-error")
			c.Response().Header().Set(htmx.HeaderReswap, "innerHTML")
			return a.fragment(c, ans.Status, views.AskError(refusalMessage(c, r)))
		}
		return echo.NewHTTPError(ans.Status, refusalMessage(c, r))
	}
	if err != nil {
		return err
	}
	conv := &st.Check.Conversation
	if pathSlug != "" && isFragment(c) {
		return a.renderPanelFragment(c, pathSlug, conv, "")
	}
	return c.Redirect(http.StatusSeeOther, checkURL(conv, pathSlug))
}

// showCheck is a check on its own page (or its box, for HTMX).
func (a *App) showCheck(c echo.Context) error {
	st, err := a.Tutor.Check(c.Request().Context(), handlers.UserFrom(c).ID, c.Param("id"))
	if err != nil {
		return err
	}
	return a.renderCheck(c, st, "", views.AskForm{}, http.StatusOK)
}

// answerCheck grades the answer to the check's current question: with
// HTMX in the background (answerCheckLive), a plain post at once and
// redirected to the feedback with the next question.
func (a *App) answerCheck(c echo.Context) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	pathSlug, answer := c.FormValue(panelPathField), c.FormValue("answer")
	// The form names the question it answers, so a double submit is not
	// taken as the answer to the next one; a garbled value answers the current.
	position, _ := strconv.Atoi(c.FormValue("question"))
	if isFragment(c) {
		// With JavaScript the answer is graded in the background and its
		// feedback streams in; one the tutor would refuse at once is
		// answered below, as without.
		st, err := a.Tutor.Check(ctx, u.ID, c.Param("id"))
		if err != nil {
			return err
		}
		clean, aerr := tutor.CheckAnswerText(answer)
		if cur := st.Current(); aerr == nil && cur != nil && (position == 0 || cur.Position == position) {
			return a.answerCheckLive(c, st, cur, clean, pathSlug)
		}
	}
	st, err := a.Tutor.AnswerCheckAt(ctx, u, c.Param("id"), position, answer)
	if r, ans, ok := handlers.Refused(err); ok {
		if st, err = a.Tutor.Check(ctx, u.ID, c.Param("id")); err != nil {
			return err
		}
		return a.renderCheck(c, st, pathSlug, views.AskForm{Content: answer, Error: refusalMessage(c, r)}, ans.Status)
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, checkURL(&st.Check.Conversation, pathSlug))
}

// threadCheck is the check the assistant screen shows for thread cid.
func (a *App) threadCheck(ctx context.Context, userID, cid string) (*views.CheckView, error) {
	st, err := a.Tutor.Check(ctx, userID, cid)
	if err != nil {
		return nil, err
	}
	v, err := a.checkView(ctx, st, "", views.AskForm{})
	return &v, err
}

// checkURL is where a check is shown: the lesson's panel when it runs
// there (pathSlug set), else its own page.
func checkURL(conv *models.Conversation, pathSlug string) string {
	if pathSlug != "" && conv.LessonID != nil {
		return urls.LessonPanelCheck(pathSlug, *conv.LessonID, conv.ID)
	}
	return urls.Check(conv.ID)
}

// renderCheck draws a check: its box for HTMX, else its own page, or the
// lesson page with the panel on it when it runs in the panel. form
// carries a refused answer and why.
func (a *App) renderCheck(c echo.Context, st *tutor.CheckState, pathSlug string, form views.AskForm, status int) error {
	conv := &st.Check.Conversation
	if pathSlug != "" && conv.LessonID != nil && !isFragment(c) {
		return a.renderLessonWithPanel(c, pathSlug, conv, form, status)
	}
	v, err := a.checkView(c.Request().Context(), st, pathSlug, form)
	if err != nil {
		return err
	}
	return a.render(c, status, views.CheckPage(v), views.CheckBox(v))
}

// checkView turns a check into what its box shows: the questions' and the
// feedback's Markdown rendered, their § links pointing into the lesson
// (kept as "#anchor" in the lesson's own panel).
func (a *App) checkView(ctx context.Context, st *tutor.CheckState, pathSlug string, form views.AskForm) (views.CheckView, error) {
	c := st.Check
	lessonIDs := map[string]bool{}
	for _, s := range c.Sections {
		lessonIDs[s.LessonID] = true
	}
	_, paths, err := a.Content.CitationTargets(ctx, keys(lessonIDs))
	if err != nil {
		return views.CheckView{}, err
	}
	render := func(it models.CheckItem, md string) string {
		links := markdown.SectionLinks{}
		if p, ok := paths[it.LessonID]; ok && pathSlug == "" {
			links.Base = urls.Lesson(p, it.LessonID)
		}
		return markdown.RenderAnswerAt(md, links)
	}
	v := views.CheckView{ID: c.ConversationID, Title: c.Conversation.Title, InPanel: pathSlug != "", PathSlug: pathSlug,
		Lang: st.Lang, Total: c.MaxItems, Finished: st.Finished(), Error: form.Error, Answer: form.Content}
	if c.Conversation.LessonID != nil {
		lid := *c.Conversation.LessonID
		if p, ok := paths[lid]; ok {
			v.LessonURL = urls.Lesson(p, lid)
		}
		v.Again = &views.CheckStartView{LessonID: lid, PathSlug: pathSlug, InPanel: pathSlug != ""}
		if len(c.Sections) == 1 {
			v.Again.Anchor, v.Again.Heading = c.Sections[0].Anchor, st.Headings[models.SectionKey(lid, c.Sections[0].Anchor)]
		}
	}
	if last := st.Last(); last != nil {
		v.Last = feedbackView(*last, render(*last, last.Feedback))
	}
	if cur := st.Current(); cur != nil {
		v.Position = cur.Position
		v.Question = &views.CheckQuestionView{HTML: render(*cur, cur.Question), Choices: cur.Choices, SecondTry: cur.Attempts > 0,
			Fallback: cur.Fallback}
	}
	v.Correct, v.Partly, v.NotYet = st.Tally()
	for _, it := range c.Items {
		if it.Verdict != nil {
			v.Items = append(v.Items, *feedbackView(it, ""))
		}
	}
	return v, nil
}

// feedbackView is an answered question: its verdict, or "hint" when the
// guide style gave a hint and a second try.
func feedbackView(it models.CheckItem, html string) *views.CheckFeedbackView {
	verdict := "hint"
	if it.Verdict != nil {
		verdict = *it.Verdict
	}
	return &views.CheckFeedbackView{Verdict: verdict, Answer: it.Answer, Question: markdown.AnswerText(it.Question), HTML: html}
}

// sectionChecks are the "Check this section" buttons of a lesson's
// sections, by anchor (a section cut into several chunks has one).
func (a *App) sectionChecks(ctx context.Context, page *models.LessonPage) (map[string]views.CheckStartView, error) {
	chunks, err := a.Chunks.OfLesson(ctx, page.Lesson.ID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]views.CheckStartView, len(chunks))
	for _, ch := range chunks {
		if _, seen := out[ch.Anchor]; ch.Anchor != "" && !seen {
			out[ch.Anchor] = views.CheckStartView{LessonID: page.Lesson.ID, Anchor: ch.Anchor, Heading: ch.Heading,
				PathSlug: page.Path.Slug, InPanel: true}
		}
	}
	return out, nil
}
