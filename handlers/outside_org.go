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
