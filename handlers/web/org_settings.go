package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/models"
	"aula/urls"
	"aula/views"
)

// errPolicyFlag is a policy checkbox sent with a value the form never sends.
var errPolicyFlag = errors.New("a policy switch is on or absent")

// policyErrors are the tutor policy's refusals and their messages.
var policyErrors = []struct {
	err error
	key string
}{
	{models.ErrPolicyStyle, "org.policy_err_style"},
	{models.ErrPolicyCap, "org.policy_err_cap"},
	{errPolicyFlag, "org.policy_err_flag"},
}

// orgSettings shows the organization's tutor policy, ready to change.
func (a *App) orgSettings(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	p, err := a.Orgs.Policy(c.Request().Context(), orgOf(c))
	if err != nil {
		return err
	}
	return a.renderOrgSettings(c, http.StatusOK, views.OrgSettingsView{Form: views.PolicyFormOf(p), Flash: flash})
}

func (a *App) renderOrgSettings(c echo.Context, status int, v views.OrgSettingsView) error {
	var err error
	if v.Org, err = a.Orgs.Get(c.Request().Context(), orgOf(c)); err != nil {
		return err
	}
	return a.render(c, status, views.OrgSettingsPage(v), nil)
}

// orgSaveSettings stores the policy the form sets. A field out of bounds
// shows the form again as typed, with why, and saves nothing.
func (a *App) orgSaveSettings(c echo.Context) error {
	form := views.PolicyForm{Style: c.FormValue("teaching_style"), Cap: strings.TrimSpace(c.FormValue("question_cap"))}
	p, err := parsePolicy(c, &form)
	if err == nil {
		err = a.Orgs.SetPolicy(c.Request().Context(), orgOf(c), p, a.Tutor.Now())
	}
	for _, e := range policyErrors {
		if errors.Is(err, e.err) {
			return a.renderOrgSettings(c, http.StatusUnprocessableEntity, views.OrgSettingsView{Form: form, Error: t(c, e.key)})
		}
	}
	if err != nil {
		return err
	}
	return a.flashTo(c, urls.OrgSettings(), t(c, "org.policy_saved"))
}

// parsePolicy reads the policy form into form (as typed) and the policy
// it sets; the model checks the style and the cap's bounds.
func parsePolicy(c echo.Context, form *views.PolicyForm) (models.Policy, error) {
	p := models.Policy{TeachingStyle: form.Style}
	var err error
	if form.GuideDuringChecks, err = policyFlag(c, "guide_during_checks"); err != nil {
		return p, err
	}
	if form.HelpMode, err = policyFlag(c, "help_mode"); err != nil {
		return p, err
	}
	p.GuideDuringChecks, p.HelpMode = form.GuideDuringChecks, form.HelpMode
	if form.Cap != "" {
		n, err := strconv.Atoi(form.Cap)
		if err != nil {
			return p, models.ErrPolicyCap
		}
		p.QuestionCap = &n
	}
	return p, p.Validate()
}

// policyFlag reads a checkbox: "on" when ticked, absent when not.
func policyFlag(c echo.Context, name string) (bool, error) {
	switch c.FormValue(name) {
	case "":
		return false, nil
	case "on":
		return true, nil
	}
	return false, errPolicyFlag
}
