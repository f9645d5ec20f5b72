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

// adminSite shows the site's settings: the contact address the
// forgot-password page gives when aula sends no email.
func (a *App) adminSite(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	site, err := a.Site.Get(c.Request().Context())
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.AdminSitePage(views.AdminSiteView{ContactEmail: site.ContactEmail, Flash: flash}), nil)
}

// adminSaveSite stores the site's settings; an address that is not a
// plain email is a 422 that keeps what was typed, and nothing changes.
func (a *App) adminSaveSite(c echo.Context) error {
	site := models.Site{ContactEmail: c.FormValue("contact_email")}
	err := a.Site.Save(c.Request().Context(), site, handlers.UserFrom(c).ID)
	if errors.Is(err, models.ErrInvalidEmail) {
		v := views.AdminSiteView{ContactEmail: site.ContactEmail, Error: "err.invalid_email"}
		return a.render(c, http.StatusUnprocessableEntity, views.AdminSitePage(v), nil)
	}
	if err != nil {
		return err
	}
	if err := a.setFlash(c, t(c, "admin.site_saved")); err != nil {
		return err
	}
	return redirect(c, urls.AdminSite())
}
