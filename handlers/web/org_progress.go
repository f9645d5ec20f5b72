package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/i18n"
	"aula/models"
	"aula/views"
)

// matrixQuery reads the matrix's filter, order and page from the URL: a
// group that is no positive number is 404 (as another organization's is),
// an unknown order a 400 that says which ones there are.
func matrixQuery(c echo.Context) (models.MatrixQuery, error) {
	q := models.MatrixQuery{Sort: c.QueryParam("sort"), After: c.QueryParam("after")}
	if g := c.QueryParam("group"); g != "" {
		id, err := strconv.ParseInt(g, 10, 64)
		if err != nil || id < 1 {
			return q, echo.ErrNotFound
		}
		q.GroupID = id
	}
	if q.Sort == "" {
		q.Sort = models.MatrixByName
	}
	switch c.QueryParam("dir") {
	case "", "asc":
	case "desc":
		q.Desc = true
	default:
		return q, echo.NewHTTPError(http.StatusBadRequest, t(c, "progress.err.sort"))
	}
	if q.Sort != models.MatrixByName && q.Sort != models.MatrixByDone {
		return q, echo.NewHTTPError(http.StatusBadRequest, t(c, "progress.err.sort"))
	}
	return q, nil
}

// matrixRefused maps the matrix's errors: a page link of another order or
// a forged one is a 400 in the user's language; the rest (another
// organization's group: ErrNotFound) go to the error handler.
func matrixRefused(c echo.Context, err error) error {
	if errors.Is(err, models.ErrBadCursor) {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "admin.bad_cursor"))
	}
	return err
}

// orgProgress shows a page of the completion matrix: members × the
// lessons assigned to them, for everyone or a group, in the chosen order.
func (a *App) orgProgress(c echo.Context) error {
	q, err := matrixQuery(c)
	if err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), orgOf(c)
	m, err := a.Orgs.Matrix(ctx, orgID, q)
	if err != nil {
		return matrixRefused(c, err)
	}
	groups, err := a.Orgs.Groups(ctx, orgID)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.OrgProgress(views.OrgProgressView{Matrix: m, Groups: groups, Query: q}), nil)
}

// orgProgressCSV streams the whole matrix for the filter and order as
// CSV, one member a line as the rows are read.
func (a *App) orgProgressCSV(c echo.Context) error {
	q, err := matrixQuery(c)
	if err != nil {
		return err
	}
	q.After = ""
	lang := i18n.Lang(c.Request().Context())
	var out *handlers.MatrixCSV
	err = a.Orgs.MatrixEach(c.Request().Context(), orgOf(c), q, func(m *models.OrgMatrix) error {
		out, err = a.startMatrixCSV(c, lang, m)
		return err
	}, func(r models.MatrixRow) error { return out.Row(r) })
	if err != nil {
		if out != nil {
			// The response has begun: end it; the client sees a cut file.
			return nil
		}
		return matrixRefused(c, err)
	}
	return out.Flush()
}

// startMatrixCSV sends the CSV's headers and its header row.
func (a *App) startMatrixCSV(c echo.Context, lang string, m *models.OrgMatrix) (*handlers.MatrixCSV, error) {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="progress-%s.csv"`, a.Tutor.Now().UTC().Format(time.DateOnly)))
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	return handlers.NewMatrixCSV(c.Response(), lang, m.Lessons)
}

// orgMemberReport shows what the admin may see of one member: activity,
// usage counts, progress and assignments, never their threads.
func (a *App) orgMemberReport(c echo.Context) error {
	now := a.Tutor.Now()
	r, err := a.Orgs.MemberReport(c.Request().Context(), orgOf(c), c.Param("uid"), now)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.OrgMemberPage(r, now), nil)
}
