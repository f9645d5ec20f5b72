package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"aula/urls"
	"aula/views"
)

// contentAuditLimit is how many audit entries one page shows.
const contentAuditLimit = 50

// contentAudit shows the content audit log, newest first, 50 entries a
// page (keyset: ?before=<entry id>).
func (a *App) contentAudit(c echo.Context) error {
	var before int64
	if s := c.QueryParam("before"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return echo.NewHTTPError(http.StatusBadRequest, t(c, "content.err.cursor"))
		}
		before = n
	}
	entries, more, err := a.Content.AuditPage(c.Request().Context(), before, contentAuditLimit)
	if err != nil {
		return err
	}
	v := views.ContentAuditView{Entries: entries, Paged: before > 0}
	if more {
		v.Older = urls.ContentAudit(entries[len(entries)-1].ID)
	}
	return a.render(c, http.StatusOK, views.ContentAuditPage(v), nil)
}
