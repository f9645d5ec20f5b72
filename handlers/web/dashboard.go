package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// historyPage is how many earlier sessions one page of the history shows.
const historyPage = 20

// dashboard shows the student's tutor activity and the first page of their history.
func (a *App) dashboard(c echo.Context) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	now := a.Tutor.Now()
	stats, err := a.Stats.Student(ctx, u.ID, now)
	if err != nil {
		return err
	}
	usage, err := a.Quotas.Usage(ctx, u.ID, now)
	if err != nil {
		return err
	}
	items, next, err := a.Stats.History(ctx, u.ID, nil, historyPage)
	if err != nil {
		return err
	}
	resume, err := a.Progress.Resume(ctx, u.ID, now)
	if err != nil {
		return err
	}
	assigned, err := a.Orgs.AssignedTo(ctx, u.ID)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.DashboardPage(views.DashboardView{
		Stats: stats, Usage: usage, History: items, MoreURL: historyURL(next), Resume: resume,
		Assigned: assigned, Now: now}), nil)
}

// dashboardHistory is the next page of the history after the cursor: rows
// for HTMX's "Load more", a page of its own for a browser without JavaScript.
func (a *App) dashboardHistory(c echo.Context) error {
	after, err := models.ParseCursor(c.QueryParam("after"))
	if errors.Is(err, models.ErrBadCursor) {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "dash.bad_cursor"))
	}
	items, next, err := a.Stats.History(c.Request().Context(), handlers.UserFrom(c).ID, after, historyPage)
	if err != nil {
		return err
	}
	more := historyURL(next)
	return a.render(c, http.StatusOK, views.HistoryPage(items, more), views.HistoryItems(items, more))
}

// historyURL links the history page after cursor; "" when there is none.
func historyURL(cursor *models.ConversationCursor) string {
	if cursor == nil {
		return ""
	}
	return urls.DashboardHistory(models.EncodeCursor(*cursor))
}
