// Package web is aula's site: the browser pages and their HTMX fragments,
// one file per resource or screen, behind the cookie session and CSRF
// checks. Handlers parse, call tutor/ or models/, and render views/.
package web

import (
	"log/slog"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/labstack/echo/v4"
	"gorm.io/gorm"

	"aula/handlers"
	"aula/mail"
	"aula/models"
	"aula/static"
	"aula/tutor"
	"aula/tutor/stream"
)

// App holds every dependency of the site; cmd/aula builds it with New.
type App struct {
	DB       *gorm.DB
	Users    *models.Users
	Sessions *SessionStore
	Throttle *models.LoginThrottle
	// Signups limits how many accounts one address creates.
	Signups *models.AddressThrottle
	// Joins limits how many organization joins one address attempts.
	Joins *models.AddressThrottle
	// ClassSignups limits sign-ups on their way into an organization.
	ClassSignups *models.AddressThrottle
	// Orgs are the organizations, their members and join links.
	Orgs    *models.Organizations
	Content *models.Content
	// Chunks are the lessons' sections, for their "Check this section" buttons.
	Chunks *models.Chunks
	// Progress is what each student has read, opened last and mastered.
	Progress      *models.Progress
	Conversations *models.Conversations
	Messages      *models.Messages
	Quotas        *models.Quotas
	Attachments   *models.Attachments
	AIRoutes      *models.AIRoutes
	// Site is the settings a SUPER_ADMIN edits in Admin → Site.
	Site         *models.SiteSettings
	Tutor        *tutor.Service
	Streams      *stream.Broker
	Log          *slog.Logger
	AssetVersion string
	// SlowAfter is how long a stream waits for a token before the `slow` notice.
	SlowAfter time.Duration
	// NoJSWait is how long a plain form post of a question waits for its
	// answer before redirecting to the page that refreshes until it is done:
	// a fast answer fits in, a slow one shows its progress instead of a
	// browser spinning for up to the answer timeout.
	NoJSWait time.Duration
	// RenderEvery is the shortest pause between two renderings of an
	// answer's Markdown while it streams (see draft); tokens are not held.
	RenderEvery time.Duration

	// Stats, Audit and Suggestions serve the dashboards and the admin pages.
	Stats *models.Stats
	Audit *models.Audit
	// Upgrades holds students' requests for another plan.
	Upgrades    *models.Upgrades
	Suggestions *models.Suggestions

	// Metrics counts the open event streams (answers and checks).
	Metrics *handlers.Metrics

	// Tokens are the personal API tokens of the JSON API and MCP.
	Tokens *models.Tokens

	// Devices, Resets and ResetThrottle serve the account settings and
	// forgotten passwords; Post sends email (a nil or disabled Post sends
	// none, and the forgot page then says to ask an administrator).
	Devices       *models.Sessions
	Resets        *models.PasswordResets
	ResetThrottle *models.ResetThrottle
	Post          *mail.Post
	// BaseURL starts the reset links an admin hands out; "" uses the request's host.
	BaseURL string
	// onceCodec seals the secrets a page shows once (once.go).
	onceCodec *securecookie.SecureCookie
	// checkJobs are the answers to checks being graded (checkstream.go).
	checkJobs *checkJobs
}

// New builds the site's dependencies on one database: every store, the
// session store signing with sessionKey, and the tutor service.
func New(db *gorm.DB, svc *tutor.Service, sessionKey []byte, log *slog.Logger, m *handlers.Metrics) *App {
	// Sign-in, sign-up and password changes share one bound on the
	// memory-hungry password hashing.
	users := models.NewUsers(db)
	users.Hashing = models.NewDefaultHashing()
	resets := models.NewPasswordResets(db)
	resets.Hashing = users.Hashing
	content := models.NewContent(db)
	content.Changed = svc.ContentChanged
	return &App{
		DB:            db,
		Users:         users,
		Sessions:      NewSessionStore(models.NewSessions(db), sessionKey),
		Throttle:      models.NewLoginThrottle(db),
		Signups:       models.NewSignupThrottle(db),
		Joins:         models.NewJoinThrottle(db),
		ClassSignups:  models.NewClassSignupThrottle(db),
		Orgs:          models.NewOrganizations(db),
		Content:       content,
		Chunks:        models.NewChunks(db),
		Progress:      models.NewProgress(db),
		Conversations: svc.Conversations(),
		Messages:      models.NewMessages(db),
		Quotas:        models.NewQuotas(db),
		Attachments:   models.NewAttachments(db),
		AIRoutes:      models.NewAIRoutes(db),
		Site:          models.NewSiteSettings(db),
		Stats:         models.NewStats(db),
		Audit:         models.NewAudit(db),
		Upgrades:      models.NewUpgrades(db),
		Suggestions:   models.NewSuggestions(db),
		Tutor:         svc,
		Streams:       svc.Streams(),
		Log:           log,
		AssetVersion:  static.Version(static.FS),
		SlowAfter:     8 * time.Second,
		NoJSWait:      2 * time.Second,
		RenderEvery:   100 * time.Millisecond,
		Metrics:       m,
		Tokens:        models.NewTokens(db),
		Devices:       models.NewSessions(db),
		Resets:        resets,
		ResetThrottle: models.NewResetThrottle(db),
		onceCodec:     newOnceCodec(sessionKey),
		checkJobs:     newCheckJobs(log),
	}
}

// sessionName is the cookie that carries the signed session id.
const sessionName = "aula_session"

// Routes registers every page and fragment of the site; urls builds their
// URLs for the views and the redirects.
func (a *App) Routes(e *echo.Echo) {
	// Every page: a session, a language, CSRF checks, no-store (it is its reader's).
	site := e.Group("", handlers.NoStore, a.loadSession, a.checkCSRF)
	site.GET("/", a.home)
	form(site, "/signup", a.signupForm, a.signup)
	form(site, "/login", a.loginForm, a.login)
	site.POST("/logout", a.logout)
	site.POST("/locale", a.setLocale)
	form(site, "/password/forgot", a.forgotForm, a.forgot)
	form(site, "/password/reset/:token", a.resetForm, a.reset)

	auth := site.Group("", a.requireUser)
	auth.GET("/learn", a.catalog)
	auth.GET("/learn/:path", a.path)
	auth.GET("/learn/:path/:lesson", a.lesson)
	auth.POST("/learn/:path/:lesson/read", a.markRead)
	auth.GET("/learn/:path/:lesson/sessions", a.sessions)
	form(auth, "/chat", a.chatIndex, a.createConversation)
	auth.GET("/chat/threads", a.threadsPage)
	auth.GET("/chat/:cid", a.chatThread)
	form(auth, "/chat/:cid/delete", a.deleteConfirm, a.deleteConversation)
	auth.DELETE("/chat/:cid", a.deleteConversation)
	auth.POST("/chat/:cid/style", a.setStyle)
	auth.POST("/chat/:cid/messages", a.ask)
	auth.GET("/messages/:mid/stream", a.stream, handlers.LimitStreams(a.Streams))
	auth.GET("/answers/next/:ticket/stream", a.streamNext, handlers.LimitStreams(a.Streams))
	auth.POST("/messages/:mid/rate", a.rate)
	auth.POST("/messages/:mid/cancel", a.cancel)
	auth.POST("/messages/:mid/retry", a.retry)
	auth.POST("/messages/:mid/continue", a.continueAnswer)
	auth.POST("/messages/:mid/edit", a.editQuestion)
	auth.POST("/messages/:mid/version", a.showVersion)
	auth.GET("/attachments/:id", a.downloadAttachment)
	auth.POST("/lessons/:id/check", a.startCheck)
	auth.GET("/checks/:id", a.showCheck)
	auth.POST("/checks/:id/answer", a.answerCheck)
	auth.GET("/checks/:id/stream", a.checkStream, handlers.LimitStreams(a.Streams))
	auth.POST("/review", a.review)
	auth.GET("/dashboard", a.dashboard)
	auth.GET("/dashboard/history", a.dashboardHistory)
	auth.GET("/upgrade", a.upgrade)
	auth.POST("/upgrade/request", a.requestUpgrade)
	auth.GET("/settings", a.settingsPage)
	auth.POST("/settings/tokens", a.createToken)
	auth.POST("/settings/tokens/:id/revoke", a.revokeToken)
	auth.POST("/settings/profile", a.saveProfile)
	auth.POST("/settings/password", a.changePassword)
	auth.POST("/settings/sessions/signout-others", a.signOutOthers)
	auth.POST("/settings/sessions/:handle/signout", a.signOutDevice)
	auth.POST("/settings/email", a.setOptionalEmail)
	auth.GET("/settings/export", a.exportData)
	form(auth, "/settings/delete", a.deleteAccountForm, a.deleteAccount)
	form(auth, "/settings/organization/leave", a.leaveOrgConfirm, a.leaveOrg)

	a.adminRoutes(site)
	a.contentRoutes(site)
	// Lesson images, to anyone with the URL: no session, cached (serveMedia says why).
	e.GET("/media/:file", a.serveMedia)
	a.orgRoutes(site)
}

// contentRoutes registers the authors' pages under /admin/content
// (CONTENT_ADMIN and SUPER_ADMIN; 404 to anyone else, as under /admin).
func (a *App) contentRoutes(site *echo.Group) {
	cnt := site.Group("/admin/content", a.requireAdmin)

	// The catalog: paths, modules, lessons and help articles.
	cnt.GET("", a.contentCatalog)
	cnt.POST("/paths", a.contentCreatePath)
	cnt.POST("/paths/:slug", a.contentRenamePath)
	cnt.POST("/paths/:slug/modules", a.contentCreateModule)
	cnt.POST("/modules/:id", a.contentRenameModule)
	cnt.POST("/modules/:id/lessons", a.contentCreateLesson)
	cnt.POST("/paths/:slug/order", a.contentOrderPath)
	cnt.POST("/modules/:id/order", a.contentOrderModule)
	cnt.POST("/lessons/:id/order", a.contentOrderLesson)
	cnt.POST("/lessons/:id/module", a.contentMoveLesson)
	form(cnt, "/lessons/:id/delete", a.contentDeleteLessonConfirm, a.contentDeleteLesson)
	form(cnt, "/modules/:id/delete", a.contentDeleteModuleConfirm, a.contentDeleteModule)
	form(cnt, "/paths/:slug/delete", a.contentDeletePathConfirm, a.contentDeletePath)
	cnt.GET("/audit", a.contentAudit)

	// The lesson editor, its versions and history.
	cnt.GET("/lessons/:id", a.lessonEditor)
	cnt.POST("/lessons/:id", a.saveLesson)
	cnt.POST("/lessons/:id/unpublish", a.unpublishLesson)
	cnt.GET("/lessons/:id/history", a.lessonHistory)
	cnt.GET("/lessons/:id/diff", a.lessonDiff)
	cnt.POST("/lessons/:id/restore", a.restoreVersion)

	// Images.
	form(cnt, "/lessons/:id/images", a.lessonImagesPage, a.uploadImage)

	// Beside each section: what students struggle with; the tutor helping the author.
	cnt.GET("/lessons/:id/feedback", a.contentFeedback)
	cnt.POST("/lessons/:id/suggest", a.contentSuggest)
	cnt.POST("/lessons/:id/preview-check", a.contentPreviewCheck)

	// Round trip with the files: zip export and import.
	cnt.GET("/files", a.contentFiles)
	cnt.GET("/export.zip", a.contentExport)
	cnt.POST("/import", a.contentImport)
}

// orgRoutes registers the organization admin's pages (404 to anyone else,
// as under /admin) and the join link's page, which visitors open too.
func (a *App) orgRoutes(site *echo.Group) {
	site.GET("/join/:token", a.joinPage)
	site.POST("/join/:token", a.join)
	site.GET("/join/invite/:token", a.invitePage)
	site.POST("/join/invite/:token", a.acceptInvite)
	org := site.Group("/org", a.requireOrgAdmin)
	org.GET("", a.orgHome)
	org.POST("/link", a.orgNewLink)
	org.POST("/link/revoke", a.orgRevokeLink)
	org.POST("/members/:uid/role", a.orgMemberRole)
	form(org, "/members/:uid/remove", a.orgRemoveConfirm, a.orgRemove)
	org.POST("/groups", a.orgGroupCreate)
	org.POST("/groups/members", a.orgGroupMembers)
	org.POST("/groups/:gid", a.orgGroupRename)
	form(org, "/groups/:gid/delete", a.orgGroupDeleteConfirm, a.orgGroupDelete)
	org.POST("/assignments", a.orgAssign)
	org.POST("/assignments/:aid/delete", a.orgUnassign)
	org.POST("/invitations", a.orgInvite)
	org.POST("/invitations/:id/resend", a.orgResendInvitation)
	form(org, "/invitations/:id/cancel", a.orgCancelInvitationConfirm, a.orgCancelInvitation)
	form(org, "/settings", a.orgSettings, a.orgSaveSettings)
	org.GET("/progress", a.orgProgress)
	org.GET("/progress.csv", a.orgProgressCSV)
	org.GET("/members/:uid", a.orgMemberReport)
	org.GET("/understanding", a.orgUnderstanding)
	org.POST("/digest", a.orgDigest)
}

// adminRoutes registers the admin pages. Under /admin everyone else gets
// 404, visitors included, so the pages stay unrevealed; users, upgrades
// and AI routes are SUPER_ADMIN's alone.
func (a *App) adminRoutes(site *echo.Group) {
	adm := site.Group("/admin", a.requireAdmin)
	adm.GET("", a.adminOverview)
	adm.GET("/ratings", a.adminRatings)
	adm.GET("/understanding", a.adminUnderstanding)
	adm.GET("/latency", a.adminLatency)
	adm.GET("/suggestions", a.adminSuggestions)
	adm.POST("/suggestions/:lesson", a.adminSaveSuggestions)
	adm.GET("/users", a.adminUsers, a.requireSuperAdmin)
	adm.POST("/users/:id/plan", a.adminSetPlan, a.requireSuperAdmin)
	adm.POST("/users/:id/reset", a.adminResetPassword, a.requireSuperAdmin)
	adm.POST("/upgrades/:id/:decision", a.adminDecideUpgrade, a.requireSuperAdmin)
	form(adm, "/organizations", a.adminOrgs, a.adminCreateOrg, a.requireSuperAdmin)
	form(adm, "/organizations/:id", a.adminOrg, a.adminUpdateOrg, a.requireSuperAdmin)
	adm.POST("/organizations/:id/admins", a.adminNameOrgAdmin, a.requireSuperAdmin)
	adm.POST("/organizations/:id/invitations/:inv/resend", a.adminResendOrgInvitation, a.requireSuperAdmin)
	form(adm, "/organizations/:id/invitations/:inv/cancel", a.adminCancelOrgInvitationConfirm, a.adminCancelOrgInvitation, a.requireSuperAdmin)
	form(adm, "/organizations/:id/delete", a.adminDeleteOrgConfirm, a.adminDeleteOrg, a.requireSuperAdmin)
	adm.GET("/routes", a.adminAIRoutes, a.requireSuperAdmin)
	adm.POST("/routes/:use", a.adminSaveRoute, a.requireSuperAdmin)
	adm.POST("/routes/:use/test", a.adminTestRoute, a.requireSuperAdmin)
	adm.GET("/site", a.adminSite, a.requireSuperAdmin)
	adm.POST("/site", a.adminSaveSite, a.requireSuperAdmin)
}

// form registers a page that shows a form (GET) and takes it (POST).
func form(g *echo.Group, path string, show, submit echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	g.GET(path, show, mw...)
	g.POST(path, submit, mw...)
}
