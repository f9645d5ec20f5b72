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

// upgrade lists the plans a student can have and asks for one of them.
func (a *App) upgrade(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	return a.renderUpgrade(c, http.StatusOK, flash, "")
}

func (a *App) renderUpgrade(c echo.Context, status int, flash, errMsg string) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	usage, err := a.Quotas.Usage(ctx, u.ID, a.Tutor.Now())
	if err != nil {
		return err
	}
	pending, err := a.Upgrades.PendingFor(ctx, u.ID)
	if err != nil {
		return err
	}
	v := views.UpgradeView{Plan: u.Plan, Usage: usage, Pending: pending, Flash: flash, Error: errMsg}
	return a.render(c, status, views.UpgradePage(v), nil)
}

// requestUpgrade records the student's request for a plan, for an admin to decide.
func (a *App) requestUpgrade(c echo.Context) error {
	u := handlers.UserFrom(c)
	plan := c.FormValue("plan")
	err := a.Upgrades.Request(c.Request().Context(), u.ID, u.Plan, plan, a.Tutor.Now())
	if errors.Is(err, models.ErrNotRequestable) {
		return a.renderUpgrade(c, http.StatusUnprocessableEntity, "", t(c, "upgrade.err_plan"))
	}
	if err != nil {
		return err
	}
	if err := a.setFlash(c, t(c, "upgrade.requested", t(c, "plan."+plan))); err != nil {
		return err
	}
	return redirect(c, urls.Upgrade())
}

// adminDecideUpgrade approves (the plan change is audited) or declines a
// pending request and tells the student by email when they receive it.
func (a *App) adminDecideUpgrade(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	decision := c.Param("decision")
	if err != nil || (decision != "approve" && decision != "decline") {
		return echo.ErrNotFound
	}
	approve := decision == "approve"
	req, err := a.Upgrades.Decide(ctx, handlers.UserFrom(c).ID, id, approve, a.Tutor.Now())
	if err != nil && req != nil {
		return a.planRefused(c, err, req.UserID, "")
	}
	if err != nil {
		return err
	}
	if student, err := a.Users.Get(ctx, req.UserID); err == nil {
		if err := a.Post.UpgradeDecision(student, req.Plan, approve); err != nil {
			a.Log.Warn("upgrade decision email", "request", id, "err", err)
		}
	}
	key := "admin.upgrade_declined"
	if approve {
		key = "admin.upgrade_approved"
	}
	if err := a.setFlash(c, t(c, key, req.UserEmail, t(c, "plan."+req.Plan))); err != nil {
		return err
	}
	return redirect(c, urls.AdminUsers(""))
}
