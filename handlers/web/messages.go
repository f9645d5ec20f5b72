package web

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"aula/attachment"
	"aula/handlers"
	"aula/handlers/htmx"
	"aula/i18n"
	"aula/models"
	"aula/tutor"
	"aula/urls"
	"aula/views"
)

// ask records a question in the user's thread and starts its answer,
// which the page then streams. The thread as this process remembers it
// is enough to start from: the recorded turn checks that it is still the
// user's and still as remembered (see models.Conversations.Remembered),
// so a class asking at once waits for no read of its threads.
func (a *App) ask(c echo.Context) error {
	uid, cid := handlers.UserFrom(c).ID, c.Param("cid")
	conv := a.Conversations.Remembered(uid, cid)
	if conv == nil {
		var err error
		if conv, err = a.Conversations.Get(c.Request().Context(), uid, cid); err != nil {
			return err
		}
	}
	return a.askIn(c, conv, c.FormValue(panelPathField))
}

// askIn asks the form's question in conv. HTMX gets the two new bubbles (or
// the whole lesson panel, for its first question); a plain post waits for the
// answer and is redirected to it. pathSlug is the path of the lesson page
// whose panel asked, "" on the chat screen.
func (a *App) askIn(c echo.Context, conv *models.Conversation, pathSlug string) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	content := c.FormValue("content")
	file, key := a.readAttachment(c)
	if key != "" {
		conv, err := a.Conversations.Get(ctx, u.ID, conv.ID) // conv may be the remembered one
		if err != nil {
			return err
		}
		status := http.StatusUnprocessableEntity
		if key == "ask.err.file_large" {
			status = http.StatusRequestEntityTooLarge
		}
		return a.askRefused(c, conv, pathSlug, content, t(c, key), status)
	}
	res, err := a.Tutor.Ask(ctx, tutor.AskInput{UserID: u.ID, ConversationID: conv.ID, Content: content, Attachment: file,
		Passage: c.FormValue(passageField), Known: &tutor.Known{Conversation: *conv, Locale: u.Locale}})
	if r, ans, ok := handlers.Refused(err); ok {
		// What is drawn around a refusal is the thread as it is now (conv
		// may be the remembered one), and a thread gone is a 404.
		if conv, err = a.Conversations.Get(ctx, u.ID, conv.ID); err != nil {
			return err
		}
		if r.Reason == tutor.RefusedQuota {
			return a.quotaRefused(c, conv, pathSlug, content, r, ans.Status)
		}
		return a.askRefused(c, conv, pathSlug, content, refusalMessage(c, r), ans.Status)
	}
	if err != nil {
		return err
	}
	inPanel := pathSlug != ""
	if !isFragment(c) {
		return a.waitAndRedirect(c, res.AssistantMessage.ID, returnTo(conv, pathSlug, res.AssistantMessage.ID))
	}
	switch htmx.FromRequest(c.Request()).Target {
	case "thread":
		// The empty assistant screen's first question made the thread: open it.
		return redirect(c, urls.Thread(conv.ID))
	case "tutor":
		// The panel's first question created the session: the whole panel
		// is drawn again around it, its forms now posting to the session.
		return a.renderPanelFragment(c, pathSlug, &res.Conversation, res.AssistantMessage.ID)
	}
	return a.askedBubbles(c, res, file != nil, inPanel)
}

// askedBubbles answers an HTMX ask with the question's bubble and the
// answer's (or, when the page's stream is open, a ticket for the next one),
// and the thread's row in the list when the question began the thread.
func (a *App) askedBubbles(c echo.Context, res *tutor.AskResult, withFile, inPanel bool) error {
	uid := handlers.UserFrom(c).ID
	bubbles := []views.MessageView{a.questionView(c.Request().Context(), uid, res.UserMessage, withFile, inPanel)}
	next := views.AskNext{InPanel: inPanel}
	if a.handNext(c, uid, res.AssistantMessage.ID) {
		// The page's open stream carries the answer: its bubble moves
		// under the question, and the form gets a ticket for the next one.
		next.Ticket = newTicket()
	} else {
		bubbles = append(bubbles, views.MessageView{ID: res.AssistantMessage.ID, Role: models.RoleAssistant,
			Status: models.StatusStreaming, InPanel: inPanel})
	}
	var first *views.ThreadView
	if res.UserMessage.Seq == 0 && !inPanel {
		th := threadView(res.Conversation, &res.Conversation)
		first = &th
	}
	return a.fragment(c, http.StatusOK, views.AskResponse(bubbles, res.Usage, first, next))
}

// questionView is the bubble of a question just asked, with its file and
// the passage it is about; the thread's last, it can be edited once answered.
// The file's row is read only when the question came with one (most do
// not, and every question of a class asking at once would wait for it).
func (a *App) questionView(ctx context.Context, userID string, m models.Message, withFile, inPanel bool) views.MessageView {
	v := views.MessageView{ID: m.ID, Role: m.Role, Status: m.Status, Content: m.Content, Passage: passageView(m, nil, inPanel),
		Editable: true}
	if !withFile {
		return v
	}
	if files, err := a.Attachments.ForMessages(ctx, userID, []string{m.ID}); err == nil {
		if f, ok := files[m.ID]; ok {
			v.Attachment = &views.AttachmentView{ID: f.ID, Filename: f.Filename, Size: f.Size}
		}
	}
	return v
}

// askRefused shows why a question was not taken, keeping what was typed:
// under the input for HTMX, or the page again for a plain post.
func (a *App) askRefused(c echo.Context, conv *models.Conversation, pathSlug, content, msg string, status int) error {
	if isFragment(c) {
		c.Response().Header().Set(htmx.HeaderRetarget, "#ask-error")
		c.Response().Header().Set(htmx.HeaderReswap, "innerHTML")
		return a.fragment(c, status, views.AskError(msg))
	}
	form := views.AskForm{Content: content, Error: msg, Passage: c.FormValue(passageField)}
	if pathSlug != "" {
		return a.renderLessonWithPanel(c, pathSlug, conv, form, status)
	}
	return a.renderChat(c, conv, form, status)
}

// quotaRefused answers a question past the month's limit with the call to action.
func (a *App) quotaRefused(c echo.Context, conv *models.Conversation, pathSlug, content string, r *tutor.Refusal, status int) error {
	if isFragment(c) {
		qe := r.Quota
		c.Response().Header().Set(htmx.HeaderRetarget, "#ask-form")
		c.Response().Header().Set(htmx.HeaderReswap, "outerHTML")
		return a.fragment(c, status, views.LimitCTA(models.QuotaUsage{Plan: qe.Plan, Used: qe.Used, Limit: qe.Limit, ResetAt: qe.ResetAt}))
	}
	return a.askRefused(c, conv, pathSlug, content, refusalMessage(c, r), status)
}

// refusalMessage is a tutor refusal's message in the user's language.
func refusalMessage(c echo.Context, r *tutor.Refusal) string {
	ctx := c.Request().Context()
	return handlers.RefusalMessage(i18n.Lang(ctx), r, func(t time.Time) string { return views.FormatDate(ctx, t) })
}

// readAttachment reads and checks the optional file; key names the problem.
func (a *App) readAttachment(c echo.Context) (*models.AttachmentInput, string) {
	fh, err := c.FormFile("attachment")
	if err != nil || fh.Size == 0 && fh.Filename == "" {
		return nil, ""
	}
	if fh.Size > attachment.MaxSize {
		return nil, "ask.err.file_large"
	}
	f, err := fh.Open()
	if err != nil {
		return nil, "ask.err.file_type"
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, attachment.MaxSize+1))
	if err != nil {
		return nil, "ask.err.file_type"
	}
	ex, err := attachment.Extract(fh.Filename, data)
	switch {
	case errors.Is(err, attachment.ErrTooLarge):
		return nil, "ask.err.file_large"
	case errors.Is(err, attachment.ErrEmpty):
		return nil, "ask.err.file_empty"
	case errors.Is(err, attachment.ErrUnreadablePDF):
		return nil, "ask.err.file_pdf"
	case err != nil:
		return nil, "ask.err.file_type"
	}
	return &models.AttachmentInput{Filename: ex.Filename, MIME: ex.Mime, Data: data, Text: ex.Text}, ""
}

func hasFile(c echo.Context) bool {
	fh, err := c.FormFile("attachment")
	return err == nil && fh.Size > 0
}

// waitAndRedirect is the no-JavaScript answer: wait a moment for the tutor
// (a.NoJSWait), then 303 to the answer; a page with an unfinished answer
// refreshes itself until it is done.
func (a *App) waitAndRedirect(c echo.Context, mid, to string) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), a.NoJSWait)
	defer cancel()
	_, _ = a.Streams.Wait(ctx, handlers.UserFrom(c).ID, mid)
	return c.Redirect(http.StatusSeeOther, to)
}

// backTo is the page a form on a bubble came from (the chat screen or a
// lesson panel), from the Referer when it is this site's, else the thread.
func backTo(c echo.Context, cid, mid string) string {
	def := urls.ThreadMessage(cid, mid)
	ref, err := url.Parse(c.Request().Referer())
	if err != nil || ref.Host != c.Request().Host || ref.Path == "" {
		return def
	}
	return safeNext(ref.RequestURI(), urls.Thread(cid)) + "#m-" + mid
}

// backFrom is where a plain post on a bubble goes back to, scrolled to
// it: the lesson page with its panel open on the thread when the form
// says it was in that page's panel (panelPathField), else backTo.
func (a *App) backFrom(c echo.Context, cid, mid string) (string, error) {
	path := c.FormValue(panelPathField)
	if path == "" {
		return backTo(c, cid, mid), nil
	}
	conv, err := a.Conversations.Get(c.Request().Context(), handlers.UserFrom(c).ID, cid)
	if err != nil {
		return "", err
	}
	return returnTo(conv, path, mid), nil
}

// rate records 👍/👎 with a reason and comment; only the owner can rate.
func (a *App) rate(c echo.Context) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	mid := c.Param("mid")
	rating := c.FormValue("rating")
	if rating != models.RatingUp && rating != models.RatingDown {
		// Checked before the store: Rate("") would clear the stored rating.
		return echo.NewHTTPError(http.StatusUnprocessableEntity, t(c, "rate.bad_value"))
	}
	reason := ""
	if rating == models.RatingDown {
		reason = c.FormValue("reason")
	}
	err := a.Messages.Rate(ctx, u.ID, mid, rating, reason, c.FormValue("comment"))
	switch {
	case errors.Is(err, models.ErrInvalidRating):
		return echo.NewHTTPError(http.StatusUnprocessableEntity, t(c, "rate.bad_value"))
	case errors.Is(err, models.ErrInvalidReason):
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "unknown reason")
	case errors.Is(err, models.ErrNotRateable):
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "only a complete answer can be rated")
	case err != nil:
		return err
	}
	m, err := a.Messages.Get(ctx, u.ID, mid)
	if err != nil {
		return err
	}
	if !isFragment(c) {
		back, err := a.backFrom(c, m.ConversationID, mid)
		if err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, back)
	}
	v := views.MessageView{ID: m.ID, Status: m.Status, RatingComment: m.RatingComment, PanelPath: c.FormValue(panelPathField)}
	if m.Rating != nil {
		v.Rating = *m.Rating
	}
	if m.RatingReason != nil {
		v.RatingReason = *m.RatingReason
	}
	return a.fragment(c, http.StatusOK, views.Rating(v))
}

// cancel stops an answer being written; the partial text is kept.
func (a *App) cancel(c echo.Context) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	m, err := a.Messages.Get(ctx, u.ID, c.Param("mid"))
	if err != nil {
		return err
	}
	if err := a.Streams.Cancel(ctx, u.ID, m.ID); err != nil {
		return err
	}
	if isFragment(c) {
		// The stream's final event redraws the bubble.
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, backTo(c, m.ConversationID, m.ID))
}

// retry regenerates a failed, stopped or finished answer in place (the
// one before is kept as a version).
func (a *App) retry(c echo.Context) error { return a.writeAgain(c, a.Tutor.Retry) }

// continueAnswer goes on with a stopped answer from where it stopped (not
// a new question: nothing is counted).
func (a *App) continueAnswer(c echo.Context) error { return a.writeAgain(c, a.Tutor.Continue) }

// writeAgain has an answer written again by start: HTMX gets the bubble,
// streaming in place from the text it keeps; a plain post waits a moment
// and is redirected to it.
func (a *App) writeAgain(c echo.Context, start func(ctx context.Context, userID, msgID string) (*models.Message, error)) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	m, err := start(ctx, u.ID, c.Param("mid"))
	if r, ans, ok := handlers.Refused(err); ok {
		return echo.NewHTTPError(ans.Status, refusalMessage(c, r))
	}
	if err != nil {
		return err
	}
	if !isFragment(c) {
		return a.waitAndRedirect(c, m.ID, backTo(c, m.ConversationID, m.ID))
	}
	mv, err := a.answerView(ctx, u.ID, m, fromPanel(c))
	if err != nil {
		return err
	}
	return a.fragment(c, http.StatusOK, views.Message(mv))
}

// editQuestion sends the edited last question: its answer is written
// again in place and the earlier question and answer stay as a version.
// HTMX gets both bubbles (the old answer removed out of band).
func (a *App) editQuestion(c echo.Context) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	ed, err := a.Tutor.Edit(ctx, u.ID, c.Param("mid"), c.FormValue("content"))
	if r, ans, ok := handlers.Refused(err); ok {
		return echo.NewHTTPError(ans.Status, refusalMessage(c, r))
	}
	if err != nil {
		return err
	}
	if !isFragment(c) {
		return a.waitAndRedirect(c, ed.Answer.ID, backTo(c, ed.Answer.ConversationID, ed.Answer.ID))
	}
	pair, err := a.pairViews(ctx, u.ID, &ed.Answer, fromPanel(c))
	if err != nil {
		return err
	}
	return a.fragment(c, http.StatusOK, views.EditedPair(pair[0], pair[1]))
}

// fromPanel says whether a form on a bubble was sent from a lesson's panel.
func fromPanel(c echo.Context) bool {
	return strings.HasPrefix(refererPath(c), urls.Learn()+"/")
}

// showVersion puts another version of a regenerated answer on display:
// the one later questions remember.
func (a *App) showVersion(c echo.Context) error {
	ctx := c.Request().Context()
	n, err := strconv.Atoi(c.FormValue("version"))
	if err != nil || n < 1 {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, i18n.T(ctx, "chat.bad_version"))
	}
	m, err := a.Messages.ShowVersion(ctx, handlers.UserFrom(c).ID, c.Param("mid"), n)
	if errors.Is(err, models.ErrNotRetryable) {
		return echo.NewHTTPError(http.StatusConflict, i18n.T(ctx, "chat.version_busy"))
	}
	if err != nil {
		return err
	}
	if !isFragment(c) {
		return c.Redirect(http.StatusSeeOther, backTo(c, m.ConversationID, m.ID))
	}
	pair, err := a.pairViews(ctx, handlers.UserFrom(c).ID, m, fromPanel(c))
	if err != nil {
		return err
	}
	return a.fragment(c, http.StatusOK, views.VersionShown(pair[0], pair[1]))
}

// pairViews are the bubbles of answer m and the question it answers.
func (a *App) pairViews(ctx context.Context, userID string, m *models.Message, inPanel bool) ([]views.MessageView, error) {
	q, err := a.Messages.QuestionOf(ctx, userID, m)
	if err != nil {
		return nil, err
	}
	conv, err := a.Conversations.Get(ctx, userID, m.ConversationID)
	if err != nil {
		return nil, err
	}
	return a.messageViews(ctx, userID, conv, []models.Message{*q, *m}, inPanel)
}

func refererPath(c echo.Context) string {
	ref, err := url.Parse(c.Request().Referer())
	if err != nil {
		return ""
	}
	return ref.Path
}

// downloadAttachment sends a question's file to its owner only.
func (a *App) downloadAttachment(c echo.Context) error {
	f, err := a.Attachments.Get(c.Request().Context(), handlers.UserFrom(c).ID, c.Param("id"))
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Filename}))
	h.Set("Cache-Control", "private, no-store")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	ct := f.Mime
	if strings.HasPrefix(ct, "text/") || ct == "application/json" {
		ct = "text/plain; charset=utf-8"
	}
	if ct != "application/pdf" && ct != "text/plain; charset=utf-8" {
		ct = "application/octet-stream"
	}
	return c.Blob(http.StatusOK, ct, f.Data)
}
