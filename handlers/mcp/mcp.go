// Package mcp is aula's MCP server: the tutor, the lessons and knowledge checks as tools
// for AI assistants, with the same personal tokens as the JSON API.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/labstack/echo/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"gorm.io/gorm"

	"aula/handlers"
	"aula/models"
	"aula/tutor"
	"aula/tutor/stream"
)

// mcpScope is the one scope a personal token grants; naming it makes the
// SDK's 401 carry a WWW-Authenticate: Bearer challenge.
const mcpScope = "tutor"

// App holds the MCP server's dependencies; cmd/aula builds it with New.
type App struct {
	Log     *slog.Logger
	Tutor   *tutor.Service
	Streams *stream.Broker
	Tokens  *models.Tokens
	Content *models.Content
	Outside *handlers.Outside
}

// New builds the MCP server's stores on db around the tutor service.
func New(db *gorm.DB, svc *tutor.Service, log *slog.Logger) *App {
	content, convs := models.NewContent(db), svc.Conversations()
	return &App{Log: log, Tutor: svc, Streams: svc.Streams(), Tokens: models.NewTokens(db), Content: content,
		Outside: &handlers.Outside{Tutor: svc, Content: content, Conversations: convs, Orgs: models.NewOrganizations(db)}}
}

// Routes serves the MCP server at /mcp over Streamable HTTP, stateless
// (every request carries its bearer token, so nothing is kept per session
// and any process can answer), with the same personal tokens as the API.
func (a *App) Routes(e *echo.Echo) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "aula", Title: "aula tutor", Version: "1"},
		&sdk.ServerOptions{Instructions: "aula's AI tutor. Use list_lessons and get_lesson to find material, then ask; " +
			"check_understanding quizzes the user on a lesson. Questions and checks count against the user's monthly plan. " +
			"An organization's admin reads its members' progress with org_progress."})
	sdk.AddTool(srv, &sdk.Tool{Name: "ask", Description: "Ask aula's tutor a question; the answer follows the question's language " +
		"unless lang is given. The question and answer are kept in the user's history.", InputSchema: askSchema()}, safeTool(a, a.mcpAsk))
	sdk.AddTool(srv, &sdk.Tool{Name: "list_lessons", Description: "List aula's lessons (id, title, summary, language, path, module)."}, safeTool(a, a.mcpListLessons))
	sdk.AddTool(srv, &sdk.Tool{Name: "get_lesson", Description: "Read one lesson: its Markdown text and suggested questions."}, safeTool(a, a.mcpGetLesson))
	sdk.AddTool(srv, &sdk.Tool{Name: "check_understanding", Description: checkDescription, InputSchema: checkSchema()}, safeTool(a, a.mcpCheck))
	sdk.AddTool(srv, &sdk.Tool{Name: "org_progress", Description: orgProgressDescription, InputSchema: orgProgressSchema()},
		safeTool(a, a.mcpOrgProgress))
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	protected := auth.RequireBearerToken(a.verifyMCPToken, &auth.RequireBearerTokenOptions{
		Scopes: []string{mcpScope}, AllowMissingExpiration: true})(h)
	e.Any("/mcp", echo.WrapHandler(protected), handlers.NoStore, a.checkToken)
}

// askSchema is the ask tool's input. history takes any value, since the
// contract (seed 000's bib_ask) is to drop what is malformed rather than
// refuse the call: a history that is not an array is no history.
func askSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:     "object",
		Required: []string{"question"},
		Properties: map[string]*jsonschema.Schema{
			"question": {Type: "string", Description: "The question, at most 4,000 characters."},
			"mode": {Type: "string", Enum: []any{models.ModeHelp, models.ModeTutor, models.ModeLesson},
				Description: "help: using aula; tutor: any topic; lesson: about lessonId. Default: lesson when lessonId is given, else tutor."},
			"lessonId": {Type: "string", Description: "A lesson id from list_lessons."},
			"history": {
				Description: "An array of earlier turns, oldest first, as {role, content}; the last 10 are used. Anything but an " +
					"array is taken as no history. Entries that are not objects " +
					"with a string role and a string content are dropped; any role other than assistant counts as user."},
			"lang": {Type: "string", Enum: []any{"en", "es"}, Description: "Answer language; detected from the question when absent."},
		},
	}
}

// askArgs is the ask tool's input as decoded.
type askArgs struct {
	Question string `json:"question"`
	Mode     string `json:"mode"`
	LessonID string `json:"lessonId"`
	History  any    `json:"history"` // an array, or anything else meaning none
	Lang     string `json:"lang"`
}

// askOutput is the ask tool's result.
type askOutput struct {
	Answer string `json:"answer"`
}

// mcpHistory keeps the turns of history that are objects with a string
// role and a string content; a role other than assistant is the user's.
// A history that is not an array gives none.
func mcpHistory(history any) []tutor.Turn {
	items, _ := history.([]any)
	var out []tutor.Turn
	for _, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			continue
		}
		role, rok := obj["role"].(string)
		content, cok := obj["content"].(string)
		if !rok || !cok {
			continue
		}
		if role != models.RoleAssistant {
			role = models.RoleUser
		}
		out = append(out, tutor.Turn{Role: role, Content: content})
	}
	return out
}

// mcpAsk records the question as a new conversation of the token's user
// (mode and lesson from the call, history as its context), waits for the
// answer and returns it: it shows in their history and counts in their quota.
func (a *App) mcpAsk(ctx context.Context, req *sdk.CallToolRequest, in askArgs) (*sdk.CallToolResult, askOutput, error) {
	uid := mcpUser(req)
	if in.Mode == models.ModeLesson && in.LessonID == "" {
		return nil, askOutput{}, handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeLessonRequired, "mode lesson needs a lessonId")
	}
	res, err := a.Outside.Ask(ctx, uid, handlers.OutsideQuestion{Mode: in.Mode, LessonID: in.LessonID, Message: in.Question,
		Seed: mcpHistory(in.History), Lang: in.Lang, Plan: mcpUserRecord(ctx, req).Plan})
	if err != nil {
		return nil, askOutput{}, err
	}
	m, err := a.Streams.Wait(ctx, uid, res.AssistantMessage.ID)
	if err != nil {
		return nil, askOutput{}, fmt.Errorf("wait for the answer: %w", err)
	}
	if m.Status == models.StatusFailed {
		return nil, askOutput{}, handlers.APIErr(http.StatusServiceUnavailable, handlers.StreamErrorCode(m.ErrorCode),
			"the tutor could not answer (%s); the question was not counted", m.ErrorCode)
	}
	return nil, askOutput{Answer: m.Content}, nil
}

// mcpUser is the user the request's token belongs to.
func mcpUser(req *sdk.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		return req.Extra.TokenInfo.UserID
	}
	return ""
}

// listLessonsArgs filters list_lessons.
type listLessonsArgs struct {
	Lang string `json:"lang,omitempty" jsonschema:"only lessons in this language (en or es)"`
}

// lessonSummary is one lesson in list_lessons.
type lessonSummary struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Summary  string `json:"summary"`
	Language string `json:"language"`
	Path     string `json:"path"`
	Module   string `json:"module"`
}

// lessonList is list_lessons' result.
type lessonList struct {
	Lessons []lessonSummary `json:"lessons"`
}

// mcpListLessons lists every lesson in catalog order.
func (a *App) mcpListLessons(ctx context.Context, _ *sdk.CallToolRequest, in listLessonsArgs) (*sdk.CallToolResult, lessonList, error) {
	paths, err := a.Content.Catalog(ctx)
	if err != nil {
		return nil, lessonList{}, fmt.Errorf("list lessons: %w", err)
	}
	out := lessonList{Lessons: []lessonSummary{}}
	for _, p := range paths {
		for _, m := range p.Modules {
			for _, l := range m.Lessons {
				if in.Lang != "" && l.Language != in.Lang {
					continue
				}
				out.Lessons = append(out.Lessons, lessonSummary{ID: l.ID, Title: l.Title, Summary: l.Summary,
					Language: l.Language, Path: p.Title, Module: m.Title})
			}
		}
	}
	return nil, out, nil
}

// getLessonArgs names the lesson to read.
type getLessonArgs struct {
	LessonID string `json:"lessonId" jsonschema:"a lesson id from list_lessons"`
}

// lessonText is get_lesson's result.
type lessonText struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Summary     string   `json:"summary"`
	Language    string   `json:"language"`
	Module      string   `json:"module"`
	Content     string   `json:"content"`
	Suggestions []string `json:"suggestions"`
}

// mcpGetLesson returns one lesson's text and suggested questions.
func (a *App) mcpGetLesson(ctx context.Context, _ *sdk.CallToolRequest, in getLessonArgs) (*sdk.CallToolResult, lessonText, error) {
	l, err := a.Content.Lesson(ctx, in.LessonID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, lessonText{}, handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeUnknownLesson, "lessonId %q names no lesson", in.LessonID)
	}
	if err != nil {
		return nil, lessonText{}, fmt.Errorf("get lesson: %w", err)
	}
	out := lessonText{ID: l.ID, Title: l.Title, Summary: l.Summary, Language: l.Language, Content: l.ContentMD, Suggestions: []string{}}
	if m, err := a.Content.Module(ctx, l.ModuleID); err == nil {
		out.Module = m.Title
	}
	sugg, err := a.Content.Suggestions(ctx, l.ID)
	if err != nil {
		return nil, lessonText{}, fmt.Errorf("lesson suggestions: %w", err)
	}
	for _, s := range sugg {
		out.Suggestions = append(out.Suggestions, s.Text)
	}
	return nil, out, nil
}
