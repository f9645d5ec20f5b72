package api

import (
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/i18n"
	"aula/models"
)

// progressQuery reads the matrix's parameters: group (absent or 0: the
// whole organization), sort (name or done), desc, limit and cursor.
func progressQuery(c echo.Context) (models.MatrixQuery, error) {
	q := models.MatrixQuery{Sort: c.QueryParam("sort"), After: c.QueryParam("cursor")}
	var err error
	if q.Limit, err = queryInt(c, "limit", models.MatrixPageSize, 1, handlers.MaxProgressPage); err != nil {
		return q, err
	}
	group, err := queryInt(c, "group", 0, 0, math.MaxInt)
	if err != nil {
		return q, err
	}
	q.GroupID = int64(group)
	if d := c.QueryParam("desc"); d != "" {
		if q.Desc, err = strconv.ParseBool(d); err != nil {
			return q, handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidParam, "%s",
				i18n.T(c.Request().Context(), "api.err.desc"))
		}
	}
	return q, nil
}

// apiOrgProgress is a page of the completion matrix (members × assigned
// lessons, each cell the member's state), or the whole matrix as CSV
// when the client asks for text/csv.
func (a *App) apiOrgProgress(c echo.Context) error {
	if wantsCSV(c.Request().Header.Get(echo.HeaderAccept)) {
		return a.apiOrgProgressCSV(c)
	}
	q, err := progressQuery(c)
	if err != nil {
		return err
	}
	out, err := a.Outside.Progress(c.Request().Context(), langOf(c), orgOf(c), q)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}
