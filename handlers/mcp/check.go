package mcp

import (
	"context"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"aula/handlers"
	"aula/models"
)

// checkDescription tells an assistant how to run a check with the tool.
const checkDescription = "Check the user's understanding of a lesson (or one of its sections) with aula's tutor: " +
	"call with lessonId (and optionally anchor) to start a check and get its first question (current); " +
	"then call with checkId and the user's answer to have it graded (last: verdict correct, partly or not_yet, " +
	"with feedback citing the section) and get the next question (current), until finished. " +
	"With checkId alone it returns the check as it stands. A check counts as one question of the user's monthly plan."

// checkSchema is check_understanding's input.
func checkSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"lessonId": {Type: "string", Description: "To start a check: a lesson id from list_lessons."},
			"anchor":   {Type: "string", Description: "To start a check of one section: its heading anchor in the lesson."},
			"checkId":  {Type: "string", Description: "The check to continue, from an earlier call."},
			"answer":   {Type: "string", Description: "The user's answer to the check's current question (with checkId); for a choice question, the choice's text."},
			"position": {Type: "integer", Description: "Optional, with answer: the position of the question answered; refused if it is no longer the current one."},
		},
	}
}

// checkArgs is check_understanding's input as decoded.
type checkArgs struct {
	LessonID string  `json:"lessonId"`
	Anchor   string  `json:"anchor"`
	CheckID  string  `json:"checkId"`
	Answer   *string `json:"answer"`
	Position int     `json:"position"`
}

// mcpCheck starts a check, answers its current question, or reads it,
// through the same engine as the browser and the JSON API.
func (a *App) mcpCheck(ctx context.Context, req *sdk.CallToolRequest, in checkArgs) (*sdk.CallToolResult, handlers.CheckJSON, error) {
	user := mcpUserRecord(ctx, req)
	var out handlers.CheckJSON
	switch {
	case in.CheckID == "" && in.Answer != nil:
		return nil, out, handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidParam, "an answer needs the checkId of the check it answers")
	case in.CheckID == "":
		st, err := a.Outside.StartCheck(ctx, user, in.LessonID, in.Anchor)
		if err != nil {
			return nil, out, err
		}
		return nil, handlers.CheckView(st), nil
	case in.Answer != nil:
		st, err := a.Outside.AnswerCheck(ctx, user, in.CheckID, in.Position, *in.Answer)
		if err != nil {
			return nil, out, err
		}
		return nil, handlers.CheckView(st), nil
	}
	st, err := a.Outside.Check(ctx, user.ID, in.CheckID)
	if err != nil {
		return nil, out, err
	}
	return nil, handlers.CheckView(st), nil
}

// mcpUserRecord is the token's user as checkToken read it; the engine
// needs only its id, which is all the SDK's token info carries otherwise.
func mcpUserRecord(ctx context.Context, req *sdk.CallToolRequest) *models.User {
	uid := mcpUser(req)
	if check, ok := ctx.Value(tokenCheckKey{}).(tokenCheck); ok && check.user != nil && check.user.ID == uid {
		return check.user
	}
	return &models.User{ID: uid}
}
