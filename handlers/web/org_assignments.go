package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// errBulkAction is a bulk form with neither add nor remove.
var errBulkAction = errors.New("choose add or remove")

// bulkFlash is the message of each bulk action.
var bulkFlash = map[string]string{"add": "org.bulk_added", "remove": "org.bulk_removed"}

// groupOrgErrors are the group and assignment errors a person can cause.
var groupOrgErrors = []orgError{
	{models.ErrGroupName, "org.err.group_name", http.StatusUnprocessableEntity},
	{models.ErrGroupTaken, "org.err.group_taken", http.StatusConflict},
	{models.ErrNoneSelected, "org.err.none_selected", http.StatusUnprocessableEntity},
	{errBulkAction, "org.err.bulk_action", http.StatusUnprocessableEntity},
	{models.ErrAssignWhat, "org.err.assign_what", http.StatusUnprocessableEntity},
	{models.ErrAssignUnknown, "org.err.assign_none", http.StatusUnprocessableEntity},
	{models.ErrAssignGroup, "org.err.assign_group", http.StatusUnprocessableEntity},
	{models.ErrAssignDue, "org.err.assign_due", http.StatusUnprocessableEntity},
	{models.ErrAssignTaken, "org.err.assign_taken", http.StatusConflict},
}

// readAssignment reads the assignment form; a field that cannot be read
// is the error its message explains.
func readAssignment(c echo.Context) (models.NewAssignment, error) {
	var n models.NewAssignment
	var err error
	if g := c.FormValue("group"); g != "" {
		if n.GroupID, err = strconv.ParseInt(g, 10, 64); err != nil || n.GroupID < 1 {
			return n, models.ErrAssignGroup
		}
	}
	if p := c.FormValue("path"); p != "" {
		if n.PathID, err = strconv.ParseInt(p, 10, 64); err != nil || n.PathID < 1 {
			return n, models.ErrAssignUnknown
		}
	}
	form, err := c.FormParams()
	if err != nil {
		return n, models.ErrAssignWhat
	}
	n.LessonIDs = form["lesson"]
	if n.DueOn, err = models.ParseDueDay(c.FormValue("due")); err != nil {
		return n, err
	}
	n.CheckRequired = c.FormValue("check") != ""
	return n, nil
}

// orgAssign assigns a path or chosen lessons to a group or to everyone.
func (a *App) orgAssign(c echo.Context) error {
	n, err := readAssignment(c)
	if err == nil {
		_, err = a.Orgs.Assign(c.Request().Context(), orgOf(c), handlers.UserFrom(c).ID, n, a.Tutor.Now())
	}
	if err != nil {
		return a.orgRefused(c, err, views.OrgHomeView{})
	}
	return a.flashTo(c, urls.Org("")+"#assignments", t(c, "org.assigned_flash"))
}

// orgUnassign deletes one of the organization's assignments.
func (a *App) orgUnassign(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("aid"), 10, 64)
	if err != nil || id < 1 {
		return echo.ErrNotFound
	}
	if err := a.Orgs.DeleteAssignment(c.Request().Context(), orgOf(c), id); err != nil {
		return err
	}
	return a.flashTo(c, urls.Org("")+"#assignments", t(c, "org.unassigned_flash"))
}
