package handlers

import (
	"context"
	"errors"
	"net/http"

	"aula/i18n"
	"aula/models"
)

// Codes of the organization endpoints' errors (API and MCP).
const (
	CodeNotOrgAdmin       = "NOT_ORGANIZATION_ADMIN"
	CodeInvalidAssignment = "INVALID_ASSIGNMENT"
	CodeUnknownPath       = "UNKNOWN_PATH"
	CodeAlreadyAssigned   = "ALREADY_ASSIGNED"
)

// LangErr is a refusal whose message is the i18n key's text in lang: the
// organization endpoints answer in the language of the token's owner.
func LangErr(lang string, status int, code, key string, args ...any) *APIError {
	return &APIError{Status: status, Code: code, Message: i18n.In(lang, key, args...)}
}

// OrgAdmin is the membership of u in the organization they administer:
// only its admins read an organization's members and progress through
// the API or MCP. Anyone else (a member, a user of no organization) is a
// 403 NOT_ORGANIZATION_ADMIN in their language; the endpoints are public
// knowledge, so the refusal tells nothing a 404 would hide.
func (a *Outside) OrgAdmin(ctx context.Context, u *models.User) (*models.Membership, error) {
	m, err := a.Orgs.MembershipOf(ctx, u.ID)
	if err != nil && !errors.Is(err, models.ErrNotFound) {
		return nil, err
	}
	if !m.IsAdmin() {
		return nil, LangErr(i18n.Normalize(u.Locale), http.StatusForbidden, CodeNotOrgAdmin, "api.err.not_org_admin")
	}
	return m, nil
}

// GroupOf checks that group (0: none) is one of the organization's; any
// other id is a 404 in lang, whether it is another organization's or nobody's.
func (a *Outside) GroupOf(ctx context.Context, lang, orgID string, group int64) error {
	if group == 0 {
		return nil
	}
	_, err := a.Orgs.Group(ctx, orgID, group)
	if errors.Is(err, models.ErrNotFound) {
		return LangErr(lang, http.StatusNotFound, CodeNotFound, "api.err.group_unknown", group)
	}
	return err
}

// ProgressJSON is a page of the completion matrix as the API and MCP give
// it: the lessons assigned (columns) and each member's state on each.
type ProgressJSON struct {
	Group      *OrgGroupJSON        `json:"group"` // null: the whole organization
	Lessons    []ProgressLessonJSON `json:"lessons"`
	Members    []ProgressMemberJSON `json:"members"`
	NextCursor *string              `json:"nextCursor"` // null on the last page
}

// OrgGroupJSON is one of the organization's groups.
type OrgGroupJSON struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Members int    `json:"members"`
}

// ProgressLessonJSON is one column of the matrix: a lesson assigned.
type ProgressLessonJSON struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Language string `json:"language"`
	PathSlug string `json:"pathSlug"`
}

// ProgressMemberJSON is one member and their cells, one per lesson, in
// the order of lessons.
type ProgressMemberJSON struct {
	ID       string             `json:"id"`
	Name     string             `json:"name"`
	Email    string             `json:"email"`
	Done     int                `json:"done"`
	Assigned int                `json:"assigned"`
	Cells    []ProgressCellJSON `json:"cells"`
}

// ProgressCellJSON is a member's state on one lesson; state is null where
// the lesson is not assigned to them (only to another group).
type ProgressCellJSON struct {
	Assigned      bool    `json:"assigned"`
	State         *string `json:"state"`
	Passed        bool    `json:"passed"`
	CheckRequired bool    `json:"checkRequired"`
	Done          bool    `json:"done"`
}

// ProgressLessons are the matrix's columns as the API gives them.
func ProgressLessons(m *models.OrgMatrix) []ProgressLessonJSON {
	out := make([]ProgressLessonJSON, 0, len(m.Lessons))
	for _, l := range m.Lessons {
		out = append(out, ProgressLessonJSON(l))
	}
	return out
}

// ProgressMember is one row of the matrix as the API gives it.
func ProgressMember(r models.MatrixRow) ProgressMemberJSON {
	out := ProgressMemberJSON{ID: r.UserID, Name: r.Name, Email: r.Email, Done: r.Done, Assigned: r.Assigned,
		Cells: make([]ProgressCellJSON, 0, len(r.Cells))}
	for _, c := range r.Cells {
		cell := ProgressCellJSON{Assigned: c.Assigned, Passed: c.Passed, CheckRequired: c.CheckRequired, Done: c.Done()}
		if c.Assigned {
			cell.State = &c.State
		}
		out.Cells = append(out.Cells, cell)
	}
	return out
}

// Progress is a page of the organization's completion matrix in lang's
// refusals: another organization's group is a 404, a cursor this API did
// not give (or of another order) a 422.
func (a *Outside) Progress(ctx context.Context, lang, orgID string, q models.MatrixQuery) (*ProgressJSON, error) {
	if err := CheckMatrixQuery(lang, q); err != nil {
		return nil, err
	}
	m, err := a.Orgs.Matrix(ctx, orgID, q)
	if err != nil {
		return nil, MatrixRefusal(lang, q, err)
	}
	out := &ProgressJSON{Lessons: ProgressLessons(m), Members: make([]ProgressMemberJSON, 0, len(m.Rows))}
	if m.Group != nil {
		g := OrgGroupJSON(*m.Group)
		out.Group = &g
	}
	for _, r := range m.Rows {
		out.Members = append(out.Members, ProgressMember(r))
	}
	if m.Next != "" {
		out.NextCursor = &m.Next
	}
	return out, nil
}

// CheckMatrixQuery refuses, in lang, an order or a page size the matrix
// does not have (the model would quietly clamp the size).
func CheckMatrixQuery(lang string, q models.MatrixQuery) error {
	if q.Sort != "" && q.Sort != models.MatrixByName && q.Sort != models.MatrixByDone {
		return LangErr(lang, http.StatusUnprocessableEntity, CodeInvalidParam, "api.err.sort")
	}
	if q.Limit < 0 || q.Limit > MaxProgressPage {
		return LangErr(lang, http.StatusUnprocessableEntity, CodeInvalidParam, "api.err.int_range", "limit", 1, MaxProgressPage)
	}
	if q.GroupID < 0 {
		return LangErr(lang, http.StatusNotFound, CodeNotFound, "api.err.group_unknown", q.GroupID)
	}
	return nil
}

// MaxProgressPage is the most members a page of the matrix holds.
const MaxProgressPage = 200

// MatrixRefusal is the API's answer, in lang, to a matrix the model refused.
func MatrixRefusal(lang string, q models.MatrixQuery, err error) error {
	switch {
	case errors.Is(err, models.ErrNotFound):
		return LangErr(lang, http.StatusNotFound, CodeNotFound, "api.err.group_unknown", q.GroupID)
	case errors.Is(err, models.ErrBadCursor):
		return LangErr(lang, http.StatusUnprocessableEntity, CodeInvalidParam, "api.err.cursor")
	}
	return err
}
