package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/tutor"
	"aula/tutor/stream"
	"aula/urls"
	"aula/views"
)

// How long a grading may run (a verdict, then the next question, each a
// bounded model call), and how long its end is kept for a stream that
// connects late.
const (
	checkJobTimeout = 3 * time.Minute
	checkJobKeep    = time.Minute
	checkPollEvery  = 500 * time.Millisecond
)

// checkJobs are the answers to checks this process is grading: the
// feedback as the tutor writes it, in a hub of its own read through the
// same subscriptions as answers, and how each grading ended.
type checkJobs struct {
	hub  *stream.Hub
	log  *slog.Logger
	mu   sync.Mutex
	ends map[string]checkEnd
}

// checkEnd is a grading's answer and, once it ended, its error (nil: graded).
type checkEnd struct {
	answer string
	err    error
	done   bool
}

func newCheckJobs(log *slog.Logger) *checkJobs {
	return &checkJobs{hub: stream.NewHub(), log: log, ends: map[string]checkEnd{}}
}

// checkJobKey names the grading of try number try of a check's question.
func checkJobKey(cid string, position, try int) string {
	return fmt.Sprintf("%s/%d/%d", cid, position, try)
}

// start grades try number try of question position of check cid in the
// background, detached from the request, with run; a second start of the
// same try (a double submit) joins the first.
func (j *checkJobs) start(ctx context.Context, cid string, position, try int, userID, answer string, run func(context.Context, tutor.CheckFeed) error) {
	key := checkJobKey(cid, position, try)
	st, ok := j.hub.Open(key, userID, nil)
	if !ok {
		return
	}
	j.mu.Lock()
	j.ends[key] = checkEnd{answer: answer}
	j.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkJobTimeout)
		defer cancel()
		err := j.grade(ctx, cid, st.Append, run)
		j.mu.Lock()
		j.ends[key] = checkEnd{answer: answer, err: err, done: true}
		j.mu.Unlock()
		st.Finish(&stream.Final{Status: models.StatusComplete, Content: st.Text()})
		time.AfterFunc(checkJobKeep, func() {
			j.hub.Remove(st)
			j.mu.Lock()
			delete(j.ends, key)
			j.mu.Unlock()
		})
	}()
}

// errGradingPanicked is a grading that ended in a panic.
var errGradingPanicked = errors.New("grading the answer failed")

// grade runs one grading of check cid. A panic ends the grading, not the
// server. A failure (not a refusal, which the student reads as such) is
// logged here, since no stream may ever come to read it; by the check's
// id only, never the student's answer (nor a panic's value, which may
// quote it, unless it is the runtime's own).
func (j *checkJobs) grade(ctx context.Context, cid string, feed tutor.CheckFeed, run func(context.Context, tutor.CheckFeed) error) (err error) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		what := fmt.Sprintf("%T", p)
		if re, ok := p.(runtime.Error); ok {
			what = re.Error()
		}
		j.log.Error("check: grading panicked", "check", cid, "panic", what, "stack", string(debug.Stack()))
		err = errGradingPanicked
	}()
	err = run(ctx, feed)
	if _, _, refused := handlers.Refused(err); err != nil && !refused {
		j.log.Error("check: grading failed", "check", cid, "err", err)
	}
	return err
}

// end is how the grading of key ended; ok is false when this process
// knows of no finished grading of it.
func (j *checkJobs) end(key string) (checkEnd, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.ends[key]
	return e, ok && e.done
}

// answerCheckLive starts grading the answer to question cur in the
// background and shows at once the box that follows it: the answer, a
// progress line, and the feedback streaming in (checkStream).
func (a *App) answerCheckLive(c echo.Context, st *tutor.CheckState, cur *models.CheckItem, answer, pathSlug string) error {
	u, cid := handlers.UserFrom(c), st.Check.ConversationID
	position, try := cur.Position, cur.Attempts
	a.checkJobs.start(c.Request().Context(), cid, position, try, u.ID, answer,
		func(ctx context.Context, feed tutor.CheckFeed) error {
			_, err := a.Tutor.AnswerCheckFed(ctx, u, cid, position, answer, feed)
			return err
		})
	v, err := a.checkView(c.Request().Context(), st, pathSlug, views.AskForm{})
	if err != nil {
		return err
	}
	v.Pending = &views.CheckPendingView{StreamURL: urls.CheckStream(cid, position, try, pathSlug), Answer: answer}
	return a.render(c, http.StatusOK, views.CheckPage(v), views.CheckBox(v))
}

// checkStream is the SSE stream of one grading: `chunk` events carry the
// feedback as the tutor writes it (escaped text; id = the byte offset
// after it, so a reconnect resumes), then `done` carries the check's box
// at its next step. A grading this process does not know (another
// process runs it, or it ended long ago) is waited for in the database.
// Like an answer's stream, it holds one of the user's open streams
// (LimitStreams) and counts in the open-streams metric.
func (a *App) checkStream(c echo.Context) error {
	ctx := c.Request().Context()
	u, cid := handlers.UserFrom(c), c.Param("id")
	position, perr := strconv.Atoi(c.QueryParam("question"))
	try, terr := strconv.Atoi(c.QueryParam("try"))
	if perr != nil || terr != nil || position < 1 || position > models.MaxCheckItems || try < 0 || try > 1 {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "check.err.stream"))
	}
	offset, err := streamOffset(c)
	if err != nil {
		return err
	}
	if _, err := a.Conversations.Get(ctx, u.ID, cid); err != nil {
		return err
	}
	key := checkJobKey(cid, position, try)
	var sub *stream.Subscription
	if st := a.checkJobs.hub.Get(key); st != nil && st.UserID() == u.ID {
		sub = st.Subscribe(offset)
		defer sub.Close()
	}
	defer a.startStream(c)()
	w := c.Response()
	if sub != nil {
		if !followGrading(ctx, w, sub, offset) {
			return nil
		}
	} else if !a.waitGraded(ctx, u.ID, cid, position, try) {
		return nil
	}
	return a.writeCheckDone(c, w, key)
}

// followGrading sends the feedback as it is written until the grading
// ends; false when the reader went away first.
func followGrading(ctx context.Context, w *echo.Response, sub *stream.Subscription, offset int) bool {
	for {
		text, at, final, ok, err := sub.Poll()
		switch {
		case err != nil || final != nil:
			return true
		case ok:
			offset = writeChunk(w, "", text, at, offset)
			continue
		}
		select {
		case <-ctx.Done():
			return false
		case <-sub.Ready():
		}
	}
}

// waitGraded waits until the database shows the try graded (or the check
// ended); false when the reader went away first.
func (a *App) waitGraded(ctx context.Context, userID, cid string, position, try int) bool {
	tick := time.NewTicker(checkPollEvery)
	defer tick.Stop()
	for deadline := time.Now().Add(checkJobTimeout); time.Now().Before(deadline); {
		st, err := a.Tutor.Check(ctx, userID, cid)
		if err != nil || st.Finished() || len(st.Check.Items) < position || st.Check.Items[position-1].Attempts > try {
			return ctx.Err() == nil
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// writeCheckDone sends the check's box at its next step as `done`: the
// feedback and the next question, or the answer again with why it was
// not graded.
func (a *App) writeCheckDone(c echo.Context, w *echo.Response, key string) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	st, err := a.Tutor.Check(ctx, u.ID, c.Param("id"))
	if err != nil {
		return err
	}
	var form views.AskForm
	if end, ok := a.checkJobs.end(key); ok && end.err != nil {
		form.Content, form.Error = end.answer, t(c, "check.err.ungraded")
		if r, _, ok := handlers.Refused(end.err); ok { // a failure was logged when it happened (grade)
			form.Error = refusalMessage(c, r)
		}
	}
	v, err := a.checkView(ctx, st, c.QueryParam(panelPathField), form)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := views.CheckBox(v).Render(ctx, &buf); err != nil {
		return err
	}
	writeEvent(w, "done", "", buf.String())
	return nil
}
