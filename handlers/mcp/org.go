package mcp

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"aula/handlers"
	"aula/i18n"
	"aula/models"
)

// orgProgressDescription tells an assistant what org_progress gives and to whom.
const orgProgressDescription = "For an organization's admin only: the completion matrix of their organization, " +
	"the same as GET /api/v1/org/progress. lessons are the lessons assigned (to the whole organization or the group); " +
	"members are a page of members, each with done and assigned counts and one cell per lesson, in the order of lessons: " +
	"state (not_started, read, checked, mastered; null where that lesson is not assigned to them), passed (a knowledge " +
	"check passed), checkRequired and done. Pass nextCursor back as cursor for the next page (null on the last). " +
	"Progress and counts only, never the text of anyone's threads. Anyone else gets a NOT_ORGANIZATION_ADMIN error."

// orgProgressSchema is org_progress's input.
func orgProgressSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"groupId": {Type: "integer", Description: "Only this group's members and the lessons assigned to them or to everyone; absent: the whole organization."},
			"sort":    {Type: "string", Enum: []any{models.MatrixByName, models.MatrixByDone}, Description: "Order of the members: by name (default) or by lessons done."},
			"desc":    {Type: "boolean", Description: "Reverse the order."},
			"limit":   {Type: "integer", Description: "Members per page, 1 to 200 (default 50)."},
			"cursor":  {Type: "string", Description: "nextCursor of the previous page, with the same sort and desc."},
		},
	}
}

// orgProgressArgs is org_progress's input as decoded.
type orgProgressArgs struct {
	GroupID int64  `json:"groupId"`
	Sort    string `json:"sort"`
	Desc    bool   `json:"desc"`
	Limit   int    `json:"limit"`
	Cursor  string `json:"cursor"`
}

// mcpOrgProgress gives a page of the completion matrix of the organization
// the token's owner administers, through the same code as the JSON API;
// refusals are tool errors in the owner's language.
func (a *App) mcpOrgProgress(ctx context.Context, req *sdk.CallToolRequest, in orgProgressArgs) (*sdk.CallToolResult, *handlers.ProgressJSON, error) {
	user := mcpUserRecord(ctx, req)
	m, err := a.Outside.OrgAdmin(ctx, user)
	if err != nil {
		return nil, nil, err
	}
	lang := i18n.Normalize(user.Locale)
	if in.Limit == 0 {
		in.Limit = models.MatrixPageSize
	}
	out, err := a.Outside.Progress(ctx, lang, m.OrganizationID, models.MatrixQuery{GroupID: in.GroupID, Sort: in.Sort,
		Desc: in.Desc, Limit: in.Limit, After: in.Cursor})
	if err != nil {
		return nil, nil, err
	}
	return nil, out, nil
}
