package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"aula/models"
	"aula/urls"
)

// placeOf reads where an item goes: step (-1 up, 1 down), or to (a 1-based
// position, what dragging posts). Anything else is no place.
func placeOf(c echo.Context) (models.Place, bool) {
	if step := c.FormValue("step"); step != "" {
		n, err := strconv.Atoi(step)
		return models.Place{Step: n}, err == nil && (n == -1 || n == 1)
	}
	n, err := strconv.Atoi(c.FormValue("to"))
	return models.Place{To: n}, err == nil && n >= 1
}

// reordered answers a reorder: 303 back to the item in the catalog; a bad
// place is a 422 saying what is expected, a vanished item a 404.
func (a *App) reordered(c echo.Context, anchor string, move func(models.Place) error) error {
	p, ok := placeOf(c)
	if !ok {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, t(c, "content.err.place"))
	}
	if err := move(p); err != nil {
		return err // models.ErrNotFound: the item is gone, a 404
	}
	return redirect(c, urls.ContentAt(anchor))
}

// contentOrderPath moves a path up, down or to a position in the catalog.
func (a *App) contentOrderPath(c echo.Context) error {
	slug := c.Param("slug")
	return a.reordered(c, "path-"+slug, func(p models.Place) error {
		return a.Content.MovePath(c.Request().Context(), slug, p)
	})
}

// contentOrderModule moves a module within its path.
func (a *App) contentOrderModule(c echo.Context) error {
	id, err := moduleParam(c)
	if err != nil {
		return err
	}
	return a.reordered(c, "module-"+c.Param("id"), func(p models.Place) error {
		return a.Content.MoveModule(c.Request().Context(), id, p)
	})
}

// contentOrderLesson moves a lesson within its module.
func (a *App) contentOrderLesson(c echo.Context) error {
	id := c.Param("id")
	return a.reordered(c, "lesson-"+id, func(p models.Place) error {
		return a.Content.MoveLesson(c.Request().Context(), id, p)
	})
}

// contentMoveLesson moves a lesson to the end of another module.
func (a *App) contentMoveLesson(c echo.Context) error {
	id := c.Param("id")
	to, err := strconv.ParseInt(c.FormValue("module"), 10, 64)
	if err != nil || to <= 0 {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, t(c, "content.err.module"))
	}
	if err := a.Content.MoveLessonTo(c.Request().Context(), actor(c), id, to); err != nil {
		return err
	}
	return redirect(c, urls.ContentAt("lesson-"+id))
}
