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

// actor is the signed-in author, for the content audit log.
func actor(c echo.Context) models.Actor {
	u := handlers.UserFrom(c)
	return models.Actor{ID: u.ID, Email: u.Email}
}

// contentCatalog lists every path, module, lesson and help article.
func (a *App) contentCatalog(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	return a.renderCatalog(c, http.StatusOK, views.ContentCatalogView{Flash: flash})
}

func (a *App) renderCatalog(c echo.Context, status int, v views.ContentCatalogView) error {
	cat, err := a.Content.AuthorsCatalog(c.Request().Context())
	if err != nil {
		return err
	}
	v.Catalog = cat
	return a.render(c, status, views.ContentCatalogPage(v), nil)
}

// refuseForm shows the catalog again with form id open, what was typed
// kept and why it was refused: 422, or 404 when its subject is gone.
func (a *App) refuseForm(c echo.Context, id string, fields []string, err error) error {
	if errors.Is(err, models.ErrNotFound) {
		return echo.ErrNotFound
	}
	msg := catalogMessage(c, err)
	if msg == "" {
		return err
	}
	values := map[string]string{}
	for _, f := range fields {
		values[f] = c.FormValue(f)
	}
	return a.renderCatalog(c, http.StatusUnprocessableEntity, views.ContentCatalogView{
		Form: views.CatalogForm{ID: id, Error: msg, Values: values}})
}

// catalogMessage says a refusal of the models in the author's language;
// "" for an error that is not the author's input.
func catalogMessage(c echo.Context, err error) string {
	if taken, ok := errors.AsType[*models.TakenError](err); ok {
		switch taken.Kind {
		case "lesson":
			return t(c, "content.err.taken_lesson", taken.Key, taken.Title, taken.Path)
		case "module":
			return t(c, "content.err.taken_module", taken.Key, taken.Title)
		}
		return t(c, "content.err.taken_path", taken.Key, taken.Title)
	}
	for target, key := range map[error]string{
		models.ErrBadSlug: "content.err.slug", models.ErrTitleRequired: "content.err.title",
		models.ErrTitleTooLong: "content.err.title_long", models.ErrBadTitle: "content.err.title_bad",
		models.ErrDescTooLong: "content.err.desc_long", models.ErrBadLanguage: "content.err.language",
	} {
		if errors.Is(err, target) {
			return t(c, key)
		}
	}
	return ""
}

// contentCreatePath starts a path at the end of the catalog.
func (a *App) contentCreatePath(c echo.Context) error {
	in := models.NewPath{Slug: c.FormValue("slug"), Title: c.FormValue("title"),
		Description: c.FormValue("description"), Language: c.FormValue("language")}
	p, err := a.Content.CreatePath(c.Request().Context(), actor(c), in)
	if err != nil {
		return a.refuseForm(c, "new-path", []string{"slug", "title", "description", "language"}, err)
	}
	return a.flashTo(c, urls.ContentAt("path-"+p.Slug), t(c, "content.created_path", p.Title))
}

// contentRenamePath changes a path's title and description.
func (a *App) contentRenamePath(c echo.Context) error {
	slug, title := c.Param("slug"), c.FormValue("title")
	if err := a.Content.RenamePath(c.Request().Context(), actor(c), slug, title, c.FormValue("description")); err != nil {
		return a.refuseForm(c, "rename-path-"+slug, []string{"title", "description"}, err)
	}
	return a.flashTo(c, urls.ContentAt("path-"+slug), t(c, "content.renamed", title))
}

// contentCreateModule adds a module at the end of a path.
func (a *App) contentCreateModule(c echo.Context) error {
	slug := c.Param("slug")
	m, err := a.Content.CreateModule(c.Request().Context(), actor(c), slug,
		models.NewModule{Slug: c.FormValue("slug"), Title: c.FormValue("title")})
	if err != nil {
		return a.refuseForm(c, "new-module-"+slug, []string{"slug", "title"}, err)
	}
	return a.flashTo(c, urls.ContentAt("module-"+strconv.FormatInt(m.ID, 10)), t(c, "content.created_module", m.Title))
}

// moduleParam is the :id of a module's URL; a malformed one is no module.
func moduleParam(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.ErrNotFound
	}
	return id, nil
}

// contentRenameModule changes a module's title.
func (a *App) contentRenameModule(c echo.Context) error {
	id, err := moduleParam(c)
	if err != nil {
		return err
	}
	title := c.FormValue("title")
	if err := a.Content.RenameModule(c.Request().Context(), actor(c), id, title); err != nil {
		return a.refuseForm(c, "rename-module-"+c.Param("id"), []string{"title"}, err)
	}
	return a.flashTo(c, urls.ContentAt("module-"+c.Param("id")), t(c, "content.renamed", title))
}

// contentCreateLesson adds a draft lesson (and its version 1) at the end of
// a module and opens it in the editor.
func (a *App) contentCreateLesson(c echo.Context) error {
	id, err := moduleParam(c)
	if err != nil {
		return err
	}
	l, err := a.Content.CreateLesson(c.Request().Context(), actor(c), id,
		models.NewLesson{ID: c.FormValue("id"), Title: c.FormValue("title"), Language: c.FormValue("language")})
	if err != nil {
		return a.refuseForm(c, "new-lesson-"+c.Param("id"), []string{"id", "title", "language"}, err)
	}
	return redirect(c, urls.ContentLesson(l.ID))
}
