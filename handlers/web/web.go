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
	Signups       *models.SignupThrottle
	Content       *models.Content
	Conversations *models.Conversations
	Messages      *models.Messages
	Quotas        *models.Quotas
	Attachments   *models.Attachments
	AIRoutes      *models.AIRoutes
	Tutor         *tutor.Service
	Streams       *stream.Broker
	Log           *slog.Logger
	AssetVersion  string
	// SlowAfter is how long a stream waits for a token before the `slow` notice.
	SlowAfter time.Duration

	// Stats, Audit and Suggestions serve the dashboards and the admin pages.
	Stats       *models.Stats
	Audit       *models.Audit
	Suggestions *models.Suggestions

	// Metrics counts the open answer streams.
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
	return &App{
		DB:            db,
		Users:         users,
		Sessions:      NewSessionStore(models.NewSessions(db), sessionKey),
		Throttle:      models.NewLoginThrottle(db),
		Signups:       models.NewSignupThrottle(db),
		Content:       models.NewContent(db),
		Conversations: models.NewConversations(db),
		Messages:      models.NewMessages(db),
		Quotas:        models.NewQuotas(db),
		Attachments:   models.NewAttachments(db),
		AIRoutes:      models.NewAIRoutes(db),
		Stats:         models.NewStats(db),
		Audit:         models.NewAudit(db),
		Suggestions:   models.NewSuggestions(db),
		Tutor:         svc,
		Streams:       svc.Streams(),
		Log:           log,
		AssetVersion:  static.Version(static.FS),
		SlowAfter:     8 * time.Second,
		Metrics:       m,
		Tokens:        models.NewTokens(db),
		Devices:       models.NewSessions(db),
		Resets:        resets,
		ResetThrottle: models.NewResetThrottle(db),
		onceCodec:     newOnceCodec(sessionKey),
	}
}

// sessionName is the cookie that carries the signed session id.
const sessionName = "aula_session"

// Routes registers every page and fragment of the site.
func (a *App) Routes(e *echo.Echo) {
	// Everything else is a page of the site: it has a session, a language and
	// CSRF checks, and is nobody's but its reader's to keep (no-store).
	site := e.Group("", handlers.NoStore, a.loadSession, a.checkCSRF)
	site.GET("/", a.home)
	site.GET("/signup", a.signupForm)
	site.POST("/signup", a.signup)
	site.GET("/login", a.loginForm)
	site.POST("/login", a.login)
	site.POST("/logout", a.logout)
	site.POST("/locale", a.setLocale)
	a.passwordRoutes(site)

	auth := site.Group("", a.requireUser)
	auth.GET("/learn", a.catalog)
	auth.GET("/learn/:path", a.path)
	auth.GET("/learn/:path/:lesson", a.lesson)
	auth.GET("/learn/:path/:lesson/sessions", a.sessions)

	auth.GET("/chat", a.chatIndex)
	auth.POST("/chat", a.createConversation)
	auth.GET("/chat/threads", a.threadsPage)
	auth.GET("/chat/:cid", a.chatThread)
	auth.GET("/chat/:cid/delete", a.deleteConfirm)
	auth.POST("/chat/:cid/delete", a.deleteConversation)
	auth.DELETE("/chat/:cid", a.deleteConversation)
	auth.POST("/chat/:cid/style", a.setStyle)
	auth.POST("/chat/:cid/messages", a.ask)
	auth.GET("/messages/:mid/stream", a.stream)
	auth.POST("/messages/:mid/rate", a.rate)
	auth.POST("/messages/:mid/cancel", a.cancel)
	auth.POST("/messages/:mid/retry", a.retry)
	auth.GET("/attachments/:id", a.downloadAttachment)

	a.studentRoutes(auth)
	a.settingsRoutes(auth)
	// Admin routes answer 404, not a sign-in redirect, to visitors too.
	a.adminRoutes(site)
}
