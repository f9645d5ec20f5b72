package api

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
)

// maxAssignLessons bounds the lessons of one assignment request.
const maxAssignLessons = 100

// assignmentJSON is one assignment: a path or a lesson, for a group or the
// whole organization (groupId null).
type assignmentJSON struct {
	ID            int64     `json:"id"`
	GroupID       *int64    `json:"groupId"`
	GroupName     *string   `json:"groupName"`
	PathID        *int64    `json:"pathId"`
	PathSlug      *string   `json:"pathSlug"`
	PathTitle     *string   `json:"pathTitle"`
	LessonID      *string   `json:"lessonId"`
	LessonTitle   *string   `json:"lessonTitle"`
	DueOn         *string   `json:"dueOn"`
	CheckRequired bool      `json:"checkRequired"`
	CreatedAt     time.Time `json:"createdAt"`
}

// assignBody is what a program assigns: exactly one of pathId, pathSlug
// and lessonIds; groupId absent for the whole organization.
type assignBody struct {
	GroupID       int64    `json:"groupId"`
	PathID        int64    `json:"pathId"`
	PathSlug      string   `json:"pathSlug"`
	LessonIDs     []string `json:"lessonIds"`
	DueOn         string   `json:"dueOn"`
	CheckRequired bool     `json:"checkRequired"`
}

// orNil is s, or nil when it is empty (JSON null).
func orNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toAssignmentJSON(a models.Assignment) assignmentJSON {
	out := assignmentJSON{ID: a.ID, GroupID: a.GroupID, GroupName: orNil(a.GroupName), PathID: a.PathID,
		PathSlug: orNil(a.PathSlug), PathTitle: orNil(a.PathTitle), LessonID: a.LessonID, LessonTitle: orNil(a.LessonTitle),
		CheckRequired: a.CheckRequired, CreatedAt: a.CreatedAt}
	if a.DueOn != nil {
		out.DueOn = orNil(a.DueOn.UTC().Format(time.DateOnly))
	}
	return out
}

// apiOrgAssignments lists the organization's assignments by due date (undated last).
func (a *App) apiOrgAssignments(c echo.Context) error {
	rows, err := a.Outside.Orgs.Assignments(c.Request().Context(), orgOf(c))
	if err != nil {
		return err
	}
	items := make([]assignmentJSON, 0, len(rows))
	for _, r := range rows {
		items = append(items, toAssignmentJSON(r))
	}
	return c.JSON(http.StatusOK, map[string]any{"items": items})
}

// apiOrgAssignment is one of the organization's assignments; another
// organization's is a 404.
func (a *App) apiOrgAssignment(c echo.Context) error {
	id, err := pathInt(c, "assignmentId")
	if err != nil {
		return err
	}
	row, err := a.Outside.Orgs.Assignment(c.Request().Context(), orgOf(c), id)
	if errors.Is(err, models.ErrNotFound) {
		return handlers.LangErr(langOf(c), http.StatusNotFound, handlers.CodeNotFound, "api.err.not_found")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toAssignmentJSON(*row))
}

// apiOrgAssign assigns a path or lessons to a group or the whole
// organization, with the web form's rules, and answers 201 with the
// assignments made (one per lesson, or the path's).
func (a *App) apiOrgAssign(c echo.Context) error {
	var b assignBody
	if err := decodeStrict(c, &b); err != nil {
		return err
	}
	n, err := a.readAssign(c, b)
	if err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), orgOf(c)
	ids, err := a.Outside.Orgs.Assign(ctx, orgID, handlers.UserFrom(c).ID, n, a.Tutor.Now())
	if err != nil {
		return assignRefusal(langOf(c), n, err)
	}
	rows, err := a.Outside.Orgs.Assignments(ctx, orgID)
	if err != nil {
		return err
	}
	items := make([]assignmentJSON, 0, len(ids))
	for _, r := range rows {
		if slices.Contains(ids, r.ID) {
			items = append(items, toAssignmentJSON(r))
		}
	}
	return c.JSON(http.StatusCreated, map[string]any{"items": items})
}

// readAssign checks the body as the web form is checked, and finds the
// path a slug names and the group an id names (another organization's: 404).
func (a *App) readAssign(c echo.Context, b assignBody) (models.NewAssignment, error) {
	ctx, lang := c.Request().Context(), langOf(c)
	n := models.NewAssignment{GroupID: b.GroupID, PathID: b.PathID, CheckRequired: b.CheckRequired}
	for _, l := range b.LessonIDs {
		if !slices.Contains(n.LessonIDs, l) { // a lesson named twice is assigned once
			n.LessonIDs = append(n.LessonIDs, l)
		}
	}
	given := 0
	for _, set := range []bool{b.PathID != 0, b.PathSlug != "", b.LessonIDs != nil} {
		if set {
			given++
		}
	}
	if given != 1 || b.LessonIDs != nil && (len(b.LessonIDs) == 0 || len(b.LessonIDs) > maxAssignLessons) {
		return n, handlers.LangErr(lang, http.StatusUnprocessableEntity, handlers.CodeInvalidAssignment, "api.err.assign_what")
	}
	var err error
	if n.DueOn, err = models.ParseDueDay(b.DueOn); err != nil {
		return n, handlers.LangErr(lang, http.StatusUnprocessableEntity, handlers.CodeInvalidParam, "api.err.assign_due")
	}
	if b.GroupID < 0 || b.PathID < 0 {
		return n, handlers.LangErr(lang, http.StatusNotFound, handlers.CodeNotFound, "api.err.not_found")
	}
	if err := a.Outside.GroupOf(ctx, lang, orgOf(c), b.GroupID); err != nil {
		return n, err
	}
	if b.PathSlug != "" {
		p, err := a.Content.PathBySlug(ctx, b.PathSlug)
		if errors.Is(err, models.ErrNotFound) {
			return n, handlers.LangErr(lang, http.StatusUnprocessableEntity, handlers.CodeUnknownPath, "api.err.path_unknown")
		}
		if err != nil {
			return n, err
		}
		n.PathID = p.ID
	}
	return n, nil
}

// assignRefusal is the API's answer to an assignment the model refused.
func assignRefusal(lang string, n models.NewAssignment, err error) error {
	switch {
	case errors.Is(err, models.ErrAssignTaken):
		return handlers.LangErr(lang, http.StatusConflict, handlers.CodeAlreadyAssigned, "api.err.assign_taken")
	case errors.Is(err, models.ErrAssignUnknown) && n.PathID != 0:
		return handlers.LangErr(lang, http.StatusUnprocessableEntity, handlers.CodeUnknownPath, "api.err.path_unknown")
	case errors.Is(err, models.ErrAssignUnknown):
		return handlers.LangErr(lang, http.StatusUnprocessableEntity, handlers.CodeUnknownLesson, "api.err.lesson_unknown")
	case errors.Is(err, models.ErrAssignGroup):
		// The group went away between the check and the insert.
		return handlers.LangErr(lang, http.StatusNotFound, handlers.CodeNotFound, "api.err.group_unknown", n.GroupID)
	case errors.Is(err, models.ErrAssignWhat):
		return handlers.LangErr(lang, http.StatusUnprocessableEntity, handlers.CodeInvalidAssignment, "api.err.assign_what")
	}
	return err
}
