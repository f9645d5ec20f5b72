// Package urls builds the site's URLs. Views link with them and the web
// handlers redirect with them, so each path is spelled once, here, beside
// the route table (handlers/web Routes) that serves it.
package urls

import (
	"net/url"
	"strconv"
)

// Learn is the catalog of learning paths.
func Learn() string { return "/learn" }

// Path is a learning path's page.
func Path(slug string) string { return "/learn/" + url.PathEscape(slug) }

// Lesson is a lesson's page.
func Lesson(pathSlug, lessonID string) string { return Path(pathSlug) + "/" + url.PathEscape(lessonID) }

// Review starts a check over the sections due for review (POST).
func Review() string { return "/review" }

// LessonRead marks a lesson read (POST).
func LessonRead(pathSlug, lessonID string) string { return Lesson(pathSlug, lessonID) + "/read" }

// LessonSessions is the history drawer of a lesson's tutor panel.
func LessonSessions(pathSlug, lessonID string) string {
	return Lesson(pathSlug, lessonID) + "/sessions"
}

// LessonPanel is the lesson page with its tutor panel open on session cid.
func LessonPanel(pathSlug, lessonID, cid string) string {
	return LessonPanelQuery(pathSlug, lessonID, cid) + "#tutor"
}

// LessonPanelQuery is LessonPanel without the fragment (an HTMX get).
func LessonPanelQuery(pathSlug, lessonID, cid string) string {
	return Lesson(pathSlug, lessonID) + "?tutor=open&session=" + url.QueryEscape(cid)
}

// LessonPanelMessage is the lesson page with its panel open on session cid
// and scrolled to message mid.
func LessonPanelMessage(pathSlug, lessonID, cid, mid string) string {
	return LessonPanelQuery(pathSlug, lessonID, cid) + "#m-" + mid
}

// LessonHistory is the lesson page with the panel's history drawer open.
func LessonHistory(pathSlug, lessonID string) string {
	return Lesson(pathSlug, lessonID) + "?tutor=open&history=open#tutor"
}

// Chat is the chat screen; a POST there starts a conversation.
func Chat() string { return "/chat" }

// ChatAfter is the chat screen with the thread list continued after cursor.
func ChatAfter(cursor string) string { return Chat() + "?after=" + url.QueryEscape(cursor) }

// Threads is the next page of the thread list for HTMX, keeping active marked.
func Threads(cursor, active string) string {
	u := Chat() + "/threads?after=" + url.QueryEscape(cursor)
	if active != "" {
		u += "&active=" + url.QueryEscape(active)
	}
	return u
}

// Thread is a conversation on the chat screen.
func Thread(cid string) string { return Chat() + "/" + cid }

// ThreadMessage is a conversation scrolled to message mid.
func ThreadMessage(cid, mid string) string { return Thread(cid) + "#m-" + mid }

// ThreadMessages is where a question in conversation cid is posted.
func ThreadMessages(cid string) string { return Thread(cid) + "/messages" }

// ThreadStyle is where a conversation's teaching style is posted.
func ThreadStyle(cid string) string { return Thread(cid) + "/style" }

// ThreadDelete is a conversation's delete confirmation (GET) and delete (POST).
func ThreadDelete(cid string) string { return Thread(cid) + "/delete" }

// message is an answer's own resource.
func message(mid string) string { return "/messages/" + mid }

// MessageStream is an answer's SSE stream from byte offset.
func MessageStream(mid string, offset int) string {
	return message(mid) + "/stream?offset=" + strconv.Itoa(offset)
}

// MessageRate is where an answer's rating is posted.
func MessageRate(mid string) string { return message(mid) + "/rate" }

// NextAnswerStream is the stream a page opens for its next answer, under
// ticket, before the question is asked (the bubble's Markdown rendered).
func NextAnswerStream(ticket string, inPanel bool) string {
	u := "/answers/next/" + url.PathEscape(ticket) + "/stream?render=1"
	if inPanel {
		u += "&panel=1"
	}
	return u
}

// MessageCancel stops an answer being written.
func MessageCancel(mid string) string { return message(mid) + "/cancel" }

// MessageRetry asks a failed answer again.
func MessageRetry(mid string) string { return message(mid) + "/retry" }

// MessageContinue goes on with a stopped answer.
func MessageContinue(mid string) string { return message(mid) + "/continue" }

// MessageEdit sends an edited last question (mid is the question's id).
func MessageEdit(mid string) string { return message(mid) + "/edit" }

// MessageVersion puts an earlier version of a regenerated answer on display.
func MessageVersion(mid string) string { return message(mid) + "/version" }

// Attachment downloads a question's attached file.
func Attachment(id string) string { return "/attachments/" + id }

// Login is the sign-in page, returning to next (a local path) after.
func Login(next string) string {
	if next == "" {
		return "/login"
	}
	return "/login?next=" + url.QueryEscape(next)
}

// Dashboard is the student's dashboard.
func Dashboard() string { return "/dashboard" }

// DashboardHistory is the history list continued after cursor.
func DashboardHistory(cursor string) string {
	if cursor == "" {
		return Dashboard() + "/history"
	}
	return Dashboard() + "/history?after=" + url.QueryEscape(cursor)
}

// Settings is the account's settings page, at section (a fragment id) when given.
func Settings(section string) string {
	if section == "" {
		return "/settings"
	}
	return "/settings#" + section
}

// SettingsTokenRevoke revokes personal API token id.
func SettingsTokenRevoke(id string) string { return "/settings/tokens/" + id + "/revoke" }

// SettingsDeviceSignOut signs out the signed-in session named by handle.
func SettingsDeviceSignOut(handle string) string { return "/settings/sessions/" + handle + "/signout" }

// PasswordReset is the page a password reset link opens.
func PasswordReset(token string) string { return "/password/reset/" + url.PathEscape(token) }

// AdminUsers is the admin users page searching for q.
func AdminUsers(q string) string { return "/admin/users?q=" + url.QueryEscape(q) }

// AdminUserPlan is where a user's plan is changed.
func AdminUserPlan(id string) string { return "/admin/users/" + id + "/plan" }

// AdminUserReset makes a one-time password reset link for user id.
func AdminUserReset(id string) string { return "/admin/users/" + id + "/reset" }

// AdminSuggestions is the suggested questions page, at lesson's form when given.
func AdminSuggestions(lessonID string) string {
	if lessonID == "" {
		return "/admin/suggestions"
	}
	return "/admin/suggestions#sg-" + lessonID
}

// AdminSaveSuggestions is where a lesson's suggested questions are saved.
func AdminSaveSuggestions(lessonID string) string {
	return "/admin/suggestions/" + url.PathEscape(lessonID)
}

// AdminRoutes is the AI routes page, at fragment id anchor when given.
func AdminRoutes(anchor string) string {
	if anchor == "" {
		return "/admin/routes"
	}
	return "/admin/routes#" + anchor
}

// AdminRoute is where use case use's route is saved.
func AdminRoute(use string) string { return "/admin/routes/" + url.PathEscape(use) }

// AdminRouteTest tests use case use's route.
func AdminRouteTest(use string) string { return AdminRoute(use) + "/test" }

// SettingsRevoked is the settings page saying a token was revoked.
func SettingsRevoked() string { return "/settings?revoked=1" }

// PasswordForgot is the forgotten-password form; sent says a link went out.
func PasswordForgot(sent bool) string {
	if sent {
		return "/password/forgot?sent=1"
	}
	return "/password/forgot"
}

// UpgradeRequest is where a student asks for another plan.
func UpgradeRequest() string { return "/upgrade/request" }

// AdminUpgradeDecision approves (or declines) upgrade request id.
func AdminUpgradeDecision(id int64, approve bool) string {
	base := "/admin/upgrades/" + strconv.FormatInt(id, 10)
	if approve {
		return base + "/approve"
	}
	return base + "/decline"
}

// Upgrade is the plans page.
func Upgrade() string { return "/upgrade" }

// Signup is the sign-up page and form.
func Signup() string { return "/signup" }

// Logout signs the session out.
func Logout() string { return "/logout" }

// Locale switches the interface language.
func Locale() string { return "/locale" }

// SettingsProfile saves the display name and interface language.
func SettingsProfile() string { return "/settings/profile" }

// SettingsPassword changes the password.
func SettingsPassword() string { return "/settings/password" }

// SettingsSignOutOthers signs out every other session of the account.
func SettingsSignOutOthers() string { return "/settings/sessions/signout-others" }

// SettingsEmail sets whether non-essential email is sent.
func SettingsEmail() string { return "/settings/email" }

// SettingsExport downloads everything aula keeps about the account.
func SettingsExport() string { return "/settings/export" }

// SettingsDelete confirms and deletes the account.
func SettingsDelete() string { return "/settings/delete" }

// SettingsTokens creates a personal API token.
func SettingsTokens() string { return "/settings/tokens" }

// Admin is the admin overview.
func Admin() string { return "/admin" }

// AdminUnderstanding is the admin Understanding page, its sections after
// the cursor when given.
func AdminUnderstanding(after string) string {
	if after == "" {
		return "/admin/understanding"
	}
	return "/admin/understanding?after=" + url.QueryEscape(after) + "#sections"
}

// AdminUsersSearch is the admin users page, where its search form submits.
func AdminUsersSearch() string { return "/admin/users" }

// AdminSite is the site's settings page (and its form's action).
func AdminSite() string { return "/admin/site" }

// OpenAPI is the JSON API's OpenAPI document.
func OpenAPI() string { return "/api/v1/openapi.json" }

// LessonCheck starts a knowledge check on a lesson (a POST; an anchor
// field narrows it to one section).
func LessonCheck(lessonID string) string { return "/lessons/" + url.PathEscape(lessonID) + "/check" }

// Check is a knowledge check's own page.
func Check(cid string) string { return "/checks/" + cid }

// CheckAnswer takes an answer to a check's current question (a POST).
func CheckAnswer(cid string) string { return Check(cid) + "/answer" }

// CheckStream is the SSE stream of the grading of try number try (0 for
// the first) of question position, shown in the lesson's panel when
// pathSlug is set.
func CheckStream(cid string, position, try int, pathSlug string) string {
	q := url.Values{"question": {strconv.Itoa(position)}, "try": {strconv.Itoa(try)}}
	if pathSlug != "" {
		q.Set("path", pathSlug)
	}
	return Check(cid) + "/stream?" + q.Encode()
}

// LessonPanelCheck is the lesson page with its panel open on check cid.
func LessonPanelCheck(pathSlug, lessonID, cid string) string {
	return LessonPanelQuery(pathSlug, lessonID, cid) + "#check"
}

// AdminOrgs is the SUPER_ADMIN's list of organizations; a POST creates one.
func AdminOrgs() string { return "/admin/organizations" }

// AdminOrgsAfter is the list of organizations continued after cursor.
func AdminOrgsAfter(cursor string) string { return AdminOrgs() + "?after=" + url.QueryEscape(cursor) }

// AdminOrg is one organization's admin page; a POST renames it and sets its seats.
func AdminOrg(id string) string { return AdminOrgs() + "/" + url.PathEscape(id) }

// AdminOrgAdmins names an organization's admin (POST, field email).
func AdminOrgAdmins(id string) string { return AdminOrg(id) + "/admins" }

// AdminOrgDelete is an organization's delete confirmation (GET) and delete (POST).
func AdminOrgDelete(id string) string { return AdminOrg(id) + "/delete" }

// AdminOrgAfter is an organization's admin page with its pending admin
// invitations continued after cursor.
func AdminOrgAfter(id, cursor string) string {
	return AdminOrg(id) + "?inv_after=" + url.QueryEscape(cursor) + "#admin-invitations"
}

// adminOrgInvitation is one pending invitation of an organization, for a SUPER_ADMIN.
func adminOrgInvitation(orgID string, id int64) string {
	return AdminOrg(orgID) + "/invitations/" + strconv.FormatInt(id, 10)
}

// AdminOrgInvitationResend sends an admin invitation again with a new link (POST).
func AdminOrgInvitationResend(orgID string, id int64) string {
	return adminOrgInvitation(orgID, id) + "/resend"
}

// AdminOrgInvitationCancel is an admin invitation's cancel confirmation (GET) and cancel (POST).
func AdminOrgInvitationCancel(orgID string, id int64) string {
	return adminOrgInvitation(orgID, id) + "/cancel"
}

// Org is the organization admin's home, its member list continued after
// cursor when one is given.
func Org(cursor string) string {
	if cursor == "" {
		return "/org"
	}
	return "/org?after=" + url.QueryEscape(cursor)
}

// OrgMember is the report on one member of the organization, and the
// resource its actions hang from.
func OrgMember(userID string) string { return "/org/members/" + url.PathEscape(userID) }

// OrgProgress is the completion matrix for a group (0: everyone), in an
// order (sort "name" or "done", desc for the reverse), from the page
// after cursor ("" the first).
func OrgProgress(group int64, sort string, desc bool, cursor string) string {
	return "/org/progress" + progressQuery(group, sort, desc, cursor)
}

// OrgProgressCSV is the whole completion matrix for a group, in an order, as CSV.
func OrgProgressCSV(group int64, sort string, desc bool) string {
	return "/org/progress.csv" + progressQuery(group, sort, desc, "")
}

// progressQuery is the query string of the matrix's links, its defaults left out.
func progressQuery(group int64, sort string, desc bool, cursor string) string {
	q := url.Values{}
	if group != 0 {
		q.Set("group", strconv.FormatInt(group, 10))
	}
	if sort != "" && sort != "name" {
		q.Set("sort", sort)
	}
	if desc {
		q.Set("dir", "desc")
	}
	if cursor != "" {
		q.Set("after", cursor)
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// OrgMemberRemove is a member's removal confirmation (GET) and removal (POST).
func OrgMemberRemove(userID string) string { return OrgMember(userID) + "/remove" }

// OrgMemberRole promotes (role=admin) or demotes (role=member) a member (POST).
func OrgMemberRole(userID string) string { return OrgMember(userID) + "/role" }

// OrgLink makes (or regenerates) the join link (POST, field expires).
func OrgLink() string { return "/org/link" }

// OrgLinkRevoke revokes the join link (POST).
func OrgLinkRevoke() string { return OrgLink() + "/revoke" }

// Join is the page a join link opens; a POST there joins.
func Join(token string) string { return "/join/" + url.PathEscape(token) }

// JoinInvite is the page an email invitation's link opens; a POST there joins.
func JoinInvite(token string) string { return "/join/invite/" + url.PathEscape(token) }

// OrgInvitations invites by email (POST, a pasted list or a CSV file).
func OrgInvitations() string { return "/org/invitations" }

// OrgInvitationsAfter is /org with its pending invitations continued after cursor.
func OrgInvitationsAfter(cursor string) string {
	return "/org?inv_after=" + url.QueryEscape(cursor) + "#invitations"
}

// orgInvitation is one invitation's resource on /org.
func orgInvitation(id int64) string { return OrgInvitations() + "/" + strconv.FormatInt(id, 10) }

// OrgInvitationResend sends an invitation again with a new link (POST).
func OrgInvitationResend(id int64) string { return orgInvitation(id) + "/resend" }

// OrgInvitationCancel is an invitation's cancel confirmation (GET) and cancel (POST).
func OrgInvitationCancel(id int64) string { return orgInvitation(id) + "/cancel" }

// SignupNext is the sign-up page, returning to next (a local path) after.
func SignupNext(next string) string {
	if next == "" {
		return Signup()
	}
	return Signup() + "?next=" + url.QueryEscape(next)
}

// SettingsLeaveOrg is the confirmation (GET) and the leaving (POST) of one's organization.
func SettingsLeaveOrg() string { return "/settings/organization/leave" }

// OrgGroups creates a group (POST, field name).
func OrgGroups() string { return "/org/groups" }

// OrgGroup renames a group (POST, field name).
func OrgGroup(id int64) string { return OrgGroups() + "/" + strconv.FormatInt(id, 10) }

// OrgGroupDelete is a group's delete confirmation (GET) and delete (POST).
func OrgGroupDelete(id int64) string { return OrgGroup(id) + "/delete" }

// OrgGroupMembers adds the chosen members to a group or removes them
// (POST, fields member (repeated), group, action add or remove).
func OrgGroupMembers() string { return OrgGroups() + "/members" }

// OrgAssignments assigns a path or lessons (POST, fields group, path,
// lesson (repeated), due, check).
func OrgAssignments() string { return "/org/assignments" }

// OrgAssignmentDelete deletes an assignment (POST).
func OrgAssignmentDelete(id int64) string {
	return OrgAssignments() + "/" + strconv.FormatInt(id, 10) + "/delete"
}

// OrgSettings is the organization's tutor policy (GET form, POST save).
func OrgSettings() string { return "/org/settings" }

// OrgUnderstanding is the organization's Understanding page, for one of
// its groups when group > 0, its sections after the cursor when given.
func OrgUnderstanding(group int64, after string) string {
	q := url.Values{}
	if group > 0 {
		q.Set("group", strconv.FormatInt(group, 10))
	}
	if after != "" {
		q.Set("after", after)
	}
	if len(q) == 0 {
		return "/org/understanding"
	}
	return "/org/understanding?" + q.Encode() + "#sections"
}

// OrgDigest turns the admin's weekly digest letter on or off (POST, field digest).
func OrgDigest() string { return "/org/digest" }
