package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
)

// apiRegenerate answers a finished answer's question again, keeping the
// earlier version; it counts as a question and returns the new version
// once it is written.
func (a *App) apiRegenerate(c echo.Context) error {
	ctx := c.Request().Context()
	uid := handlers.UserFrom(c).ID
	m, err := a.Tutor.Retry(ctx, uid, c.Param("answerId"))
	switch {
	case errors.Is(err, models.ErrNotFound):
		return handlers.ErrAPINotFound
	case err != nil:
		if _, _, ok := handlers.Refused(err); ok {
			return handlers.APIRefusal(err)
		}
		return err
	}
	if m, err = a.Streams.Wait(ctx, uid, m.ID); err != nil {
		return err
	}
	return a.versionJSON(c, *m)
}

// apiShowVersion puts version n of an answer on display: the one later
// questions in the conversation remember.
func (a *App) apiShowVersion(c echo.Context) error {
	ctx := c.Request().Context()
	n, err := strconv.Atoi(c.Param("n"))
	if err != nil || n < 1 {
		return handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidParam, "n must be a version number from 1")
	}
	m, err := a.Messages.ShowVersion(ctx, handlers.UserFrom(c).ID, c.Param("answerId"), n)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return handlers.ErrAPINotFound
	case errors.Is(err, models.ErrNotRetryable):
		return handlers.APIErr(http.StatusConflict, handlers.CodeNotRetryable, "the answer is still being written")
	case err != nil:
		return err
	}
	return a.versionJSON(c, *m)
}

// versionJSON is an answer with its version and how many it has.
func (a *App) versionJSON(c echo.Context, m models.Message) error {
	counts, err := a.Messages.VersionCounts(c.Request().Context(), m.UserID, []string{m.ID})
	if err != nil {
		return err
	}
	out := toMessageJSON(m)
	out.Version, out.Versions = max(m.Version, 1), counts[m.ID]
	return c.JSON(http.StatusOK, out)
}
