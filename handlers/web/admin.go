package web

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/tutor"
	"aula/urls"
	"aula/views"
)

// adminListLimit bounds the user search and the audit log on the users page.
const adminListLimit = 50

// Session keys of the notice shown once after an admin's form post.
const (
	flashKey       = "admin.flash"
	testUseKey     = "admin.test.use"
	testAnswerKey  = "admin.test.answer"
	testLatencyKey = "admin.test.ms"
	testErrorKey   = "admin.test.error"
)

// requireAdmin answers 404 to anyone not on CONTENT_ADMIN or SUPER_ADMIN.
func (a *App) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := handlers.UserFrom(c); u == nil || !models.IsAdminPlan(u.Plan) {
			return echo.ErrNotFound
		}
		return next(c)
	}
}

// requireSuperAdmin answers 404 to anyone not on SUPER_ADMIN.
func (a *App) requireSuperAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := handlers.UserFrom(c); u == nil || u.Plan != models.PlanSuperAdmin {
			return echo.ErrNotFound
		}
		return next(c)
	}
}

// adminOverview shows active students, questions per day and by plan.
func (a *App) adminOverview(c echo.Context) error {
	o, err := a.Stats.AdminOverview(c.Request().Context(), a.Tutor.Now())
	if err != nil {
		return err
	}
	offline, err := a.Tutor.AnswersOffline(c.Request().Context())
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.AdminOverviewPage(o, offline), nil)
}

// adminRatings shows where the lessons and the model draw 👎; ?lesson=
// narrows it to one lesson (the editor's evidence links).
func (a *App) adminRatings(c echo.Context) error {
	r, err := a.Stats.LessonRatings(c.Request().Context(), c.QueryParam("lesson"))
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.AdminRatingsPage(r), nil)
}

// adminLatency shows latency percentiles per provider and model and the recent failures.
func (a *App) adminLatency(c echo.Context) error {
	l, err := a.Stats.AdminLatency(c.Request().Context(), a.Tutor.Now())
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.AdminLatencyPage(l), nil)
}

// adminUsers searches users by email or name and shows the plan audit log.
func (a *App) adminUsers(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	v := views.AdminUsersView{Query: c.QueryParam("q"), Flash: flash}
	if link := a.openOnce(c, adminResetURL, handlers.UserFrom(c).ID); len(link) == 2 {
		v.ResetEmail, v.ResetLink = link[0], link[1]
	}
	return a.renderUsers(c, http.StatusOK, v)
}

func (a *App) renderUsers(c echo.Context, status int, v views.AdminUsersView) error {
	ctx := c.Request().Context()
	var err error
	if v.Users, err = a.Stats.SearchUsers(ctx, v.Query, adminListLimit); err != nil {
		return err
	}
	if v.Changes, err = a.Audit.Recent(ctx, adminListLimit); err != nil {
		return err
	}
	if v.Requests, err = a.Upgrades.Pending(ctx, adminListLimit); err != nil {
		return err
	}
	return a.render(c, status, views.AdminUsersPage(v), nil)
}

// adminSetPlan changes a user's plan, recorded in the audit log. A change
// of one's own plan is asked to be confirmed first (it can take away these
// very pages), and the last SUPER_ADMIN cannot be demoted at all.
func (a *App) adminSetPlan(c echo.Context) error {
	plan, q, id := c.FormValue("plan"), c.FormValue("q"), c.Param("id")
	me := handlers.UserFrom(c)
	if id == me.ID && plan != me.Plan && c.FormValue("confirm") != "own" {
		return a.renderUsers(c, http.StatusOK, views.AdminUsersView{Query: q,
			ConfirmOwn: &views.OwnPlanChange{UserID: id, Plan: plan}})
	}
	ch, err := a.Orgs.ChangePlan(c.Request().Context(), me.ID, id, plan, a.Tutor.Now())
	switch {
	case errors.Is(err, models.ErrUnknownPlan):
		return a.renderUsers(c, http.StatusUnprocessableEntity,
			views.AdminUsersView{Query: q, Error: t(c, "admin.err.plan", plan)})
	case errors.Is(err, models.ErrLastSuperAdmin):
		return a.renderUsers(c, http.StatusConflict,
			views.AdminUsersView{Query: q, Error: t(c, "admin.err.last_super_admin")})
	case err != nil:
		return a.planRefused(c, err, id, q)
	}
	msg := t(c, "admin.plan_same", id)
	if ch != nil {
		msg = t(c, "admin.plan_changed", ch.UserEmail, t(c, "plan."+ch.ToPlan))
	}
	if err := a.setFlash(c, msg); err != nil {
		return err
	}
	return redirect(c, urls.AdminUsers(q))
}

// adminResetPassword makes a single-use reset link for a user, for a
// school without email, and shows it to the admin once.
func (a *App) adminResetPassword(c echo.Context) error {
	ctx := c.Request().Context()
	u, err := a.Users.Get(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	token, err := a.Resets.Issue(ctx, u.ID, a.Tutor.Now())
	if err != nil {
		return err
	}
	if err := a.sealOnce(c, adminResetURL, handlers.UserFrom(c).ID, u.Email, a.baseURL(c)+urls.PasswordReset(token)); err != nil {
		return err
	}
	return redirect(c, urls.AdminUsers(c.FormValue("q"))+"#reset-link")
}

// adminSuggestions lists every lesson's three suggested questions for editing.
func (a *App) adminSuggestions(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	return a.renderSuggestions(c, http.StatusOK, views.AdminSuggestionsView{Flash: flash})
}

func (a *App) renderSuggestions(c echo.Context, status int, v views.AdminSuggestionsView) error {
	var err error
	if v.Lessons, err = a.Suggestions.List(c.Request().Context()); err != nil {
		return err
	}
	return a.render(c, status, views.AdminSuggestionsPage(v), nil)
}

// adminSaveSuggestions replaces one lesson's suggestions; a bad one changes nothing.
func (a *App) adminSaveSuggestions(c echo.Context) error {
	lesson := c.Param("lesson")
	texts := [3]string{c.FormValue("s1"), c.FormValue("s2"), c.FormValue("s3")}
	err := a.Suggestions.Save(c.Request().Context(), lesson, texts)
	switch {
	case errors.Is(err, models.ErrInvalidSuggestion):
		return a.renderSuggestions(c, http.StatusUnprocessableEntity,
			views.AdminSuggestionsView{Error: t(c, "admin.err.sugg"), ErrorLesson: lesson, Typed: texts})
	case err != nil:
		return err
	}
	if err := a.setFlash(c, t(c, "admin.saved", lesson)); err != nil {
		return err
	}
	return redirect(c, urls.AdminSuggestions(lesson))
}

// adminAIRoutes shows the provider and model of every use case, and the last test's result.
func (a *App) adminAIRoutes(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	return a.renderAIRoutes(c, http.StatusOK, views.AdminRoutesView{Flash: flash, Test: a.takeRouteTest(c)})
}

func (a *App) renderAIRoutes(c echo.Context, status int, v views.AdminRoutesView) error {
	routes, err := a.routesByUseCase(c)
	if err != nil {
		return err
	}
	v.Routes, v.Providers, v.Vectors = routes, tutor.Providers, a.Tutor.VectorsReady()
	return a.render(c, status, views.AdminRoutesPage(v), nil)
}

// routesByUseCase lists a route for every use case, the default where none was saved yet.
func (a *App) routesByUseCase(c echo.Context) ([]models.AIRoute, error) {
	saved, err := a.AIRoutes.List(c.Request().Context())
	if err != nil {
		return nil, err
	}
	out := make([]models.AIRoute, 0, len(models.UseCases))
	for _, uc := range models.UseCases {
		r := models.AIRoute{UseCase: uc, Provider: tutor.ProviderOffline, Temperature: 0.3, MaxTokens: 1024}
		if i := slices.IndexFunc(saved, func(s models.AIRoute) bool { return s.UseCase == uc }); i >= 0 {
			r = saved[i]
		}
		out = append(out, r)
	}
	return out, nil
}

// adminSaveRoute points a use case at a provider and model; the next question uses it.
// A provider without credentials is refused and nothing changes.
func (a *App) adminSaveRoute(c echo.Context) error {
	use := c.Param("use")
	if !slices.Contains(models.UseCases, use) {
		return echo.ErrNotFound
	}
	routes, err := a.routesByUseCase(c)
	if err != nil {
		return err
	}
	r := routes[slices.Index(models.UseCases, use)]
	uid := handlers.UserFrom(c).ID
	r.Provider, r.Model, r.UpdatedBy = c.FormValue("provider"), c.FormValue("model"), &uid
	if use == models.UseTutorChat { // the only route whose model students see
		r.DisplayName = c.FormValue("display_name")
	}
	if use == models.UseEmbeddings {
		err = a.Tutor.CheckEmbeddings(r.Provider)
	} else {
		err = a.Tutor.CheckProvider(r.Provider)
	}
	if err == nil {
		err = a.AIRoutes.Save(c.Request().Context(), r)
	}
	var msg string
	switch {
	case errors.Is(err, tutor.ErrNoCredentials):
		msg = t(c, "admin.err.no_creds", r.Provider, err.Error())
	case errors.Is(err, tutor.ErrUnknownProvider):
		msg = t(c, "admin.err.provider", r.Provider)
	case errors.Is(err, tutor.ErrNoEmbeddings):
		msg = t(c, "admin.err.no_embeddings", r.Provider)
	case errors.Is(err, models.ErrInvalidRoute):
		msg = t(c, "admin.err.route")
	case errors.Is(err, models.ErrInvalidDisplayName):
		msg = t(c, "admin.err.display_name")
	case err != nil:
		return err
	}
	if msg != "" {
		return a.renderAIRoutes(c, http.StatusUnprocessableEntity, views.AdminRoutesView{Error: msg})
	}
	if err := a.setFlash(c, t(c, "admin.route_saved", use, r.Provider+" "+r.Model)); err != nil {
		return err
	}
	return redirect(c, urls.AdminRoutes("route-"+use))
}

// adminTestRoute sends a short prompt through a use case's route; the
// routes page then shows the answer and its latency.
func (a *App) adminTestRoute(c echo.Context) error {
	use := c.Param("use")
	if !slices.Contains(models.UseCases, use) {
		return echo.ErrNotFound
	}
	answer, latency, err := a.testRoute(c, use)
	errMsg := ""
	if err != nil {
		errMsg = err.Error()
	}
	sess := session(c)
	sess.Values[testUseKey], sess.Values[testAnswerKey] = use, answer
	sess.Values[testLatencyKey], sess.Values[testErrorKey] = strconv.FormatInt(latency.Milliseconds(), 10), errMsg
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	return redirect(c, urls.AdminRoutes("route-test"))
}

// testRoute sends the route test through the saved route of a use case
// (the embeddings route embeds it and says the vector's length).
func (a *App) testRoute(c echo.Context, use string) (string, time.Duration, error) {
	ctx := c.Request().Context()
	r, err := a.AIRoutes.Get(ctx, use)
	if err != nil {
		return "", 0, err
	}
	if use == models.UseEmbeddings {
		dims, latency, err := a.Tutor.TestEmbeddings(ctx, *r)
		if err != nil {
			return "", latency, err
		}
		return t(c, "admin.embed_dims", dims), latency, nil
	}
	p, err := a.Tutor.OpenProvider(ctx, *r)
	if err != nil {
		return "", 0, fmt.Errorf("test route %s: %w", use, err)
	}
	return tutor.TestRoute(ctx, p, *r)
}

// takeRouteTest returns the last route test's result once, or nil.
func (a *App) takeRouteTest(c echo.Context) *views.RouteTest {
	sess := session(c)
	use, ok := sess.Values[testUseKey].(string)
	if !ok {
		return nil
	}
	rt := &views.RouteTest{UseCase: use}
	rt.Answer, _ = sess.Values[testAnswerKey].(string)
	rt.Error, _ = sess.Values[testErrorKey].(string)
	ms, _ := sess.Values[testLatencyKey].(string)
	n, _ := strconv.ParseInt(ms, 10, 64)
	rt.Latency = time.Duration(n) * time.Millisecond
	for _, k := range []string{testUseKey, testAnswerKey, testLatencyKey, testErrorKey} {
		delete(sess.Values, k)
	}
	_ = sess.Save(c.Request(), c.Response())
	return rt
}

// setFlash keeps a notice in the session for the page the post redirects to.
func (a *App) setFlash(c echo.Context, msg string) error {
	sess := session(c)
	sess.Values[flashKey] = msg
	return sess.Save(c.Request(), c.Response())
}

// takeFlash returns the session's notice once, "" when there is none.
func (a *App) takeFlash(c echo.Context) (string, error) {
	sess := session(c)
	msg, ok := sess.Values[flashKey].(string)
	if !ok {
		return "", nil
	}
	delete(sess.Values, flashKey)
	return msg, sess.Save(c.Request(), c.Response())
}
