package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Errors of groups; the fronts translate them.
var (
	// ErrGroupName is a group name that is empty, over 100 characters,
	// not UTF-8 or holds a control character (NUL included).
	ErrGroupName = errors.New("a group's name has 1 to 100 printable characters")
	// ErrGroupTaken is a name another group of the organization has (any case).
	ErrGroupTaken = errors.New("another group of the organization has this name")
	// ErrNoneSelected is a bulk action with no member chosen.
	ErrNoneSelected = errors.New("no member selected")
)

// Group is one of an organization's groups (a class, a team) and how many members it has.
type Group struct {
	ID      int64
	Name    string
	Members int
}

// cleanGroupName trims a group name and checks it, ErrGroupName when unfit.
func cleanGroupName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if !utf8.ValidString(name) || !validName(name) || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return "", ErrGroupName
	}
	return name, nil
}

// groupWriteErr maps a group write's failure: a name in use is ErrGroupTaken.
func groupWriteErr(err error) error {
	if uniqueViolation(err) {
		return ErrGroupTaken
	}
	return fmt.Errorf("write group: %w", err)
}

// Groups lists an organization's groups by name, each with its member count.
func (s *Organizations) Groups(ctx context.Context, orgID string) ([]Group, error) {
	if !validID(orgID) {
		return nil, ErrNotFound
	}
	var out []Group
	err := conn(ctx, s.db).Raw(`SELECT g.id, g.name, count(gm.user_id) AS members
		FROM organization_groups g LEFT JOIN organization_group_members gm ON gm.group_id = g.id
		WHERE g.organization_id = ? GROUP BY g.id ORDER BY lower(g.name), g.id`, orgID).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("groups: %w", err)
	}
	return out, nil
}

// Group returns one group of the organization; another organization's is ErrNotFound.
func (s *Organizations) Group(ctx context.Context, orgID string, id int64) (*Group, error) {
	if !validID(orgID) {
		return nil, ErrNotFound
	}
	var g Group
	err := conn(ctx, s.db).Raw(`SELECT g.id, g.name, (SELECT count(*) FROM organization_group_members gm WHERE gm.group_id = g.id) AS members
		FROM organization_groups g WHERE g.organization_id = ? AND g.id = ?`, orgID, id).Take(&g).Error
	if err != nil {
		return nil, fmt.Errorf("group: %w", notFound(err))
	}
	return &g, nil
}

// CreateGroup adds a group to the organization.
func (s *Organizations) CreateGroup(ctx context.Context, orgID, name string, now time.Time) (*Group, error) {
	name, err := cleanGroupName(name)
	if err != nil {
		return nil, err
	}
	if !validID(orgID) {
		return nil, ErrNotFound
	}
	g := Group{Name: name}
	err = conn(ctx, s.db).Raw(`INSERT INTO organization_groups (organization_id, name, created_at, updated_at)
		VALUES (?, ?, ?, ?) RETURNING id`, orgID, name, now, now).Scan(&g.ID).Error
	if err != nil {
		return nil, groupWriteErr(err)
	}
	return &g, nil
}

// RenameGroup renames one of the organization's groups.
func (s *Organizations) RenameGroup(ctx context.Context, orgID string, id int64, name string, now time.Time) error {
	name, err := cleanGroupName(name)
	if err != nil {
		return err
	}
	if !validID(orgID) {
		return ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`UPDATE organization_groups SET name = ?, updated_at = ? WHERE organization_id = ? AND id = ?`,
		name, now, orgID, id)
	if res.Error != nil {
		return groupWriteErr(res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteGroup deletes one of the organization's groups; its memberships
// and assignments go with it (the members stay in the organization).
func (s *Organizations) DeleteGroup(ctx context.Context, orgID string, id int64) error {
	if !validID(orgID) {
		return ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`DELETE FROM organization_groups WHERE organization_id = ? AND id = ?`, orgID, id)
	if res.Error != nil {
		return fmt.Errorf("delete group: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// validMembers keeps the well-formed user ids of a bulk selection, ErrNoneSelected when none.
func validMembers(userIDs []string) ([]string, error) {
	ids := make([]string, 0, len(userIDs))
	for _, id := range userIDs {
		if validID(id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, ErrNoneSelected
	}
	return ids, nil
}

// AddToGroup puts the chosen members in one of the organization's groups,
// in one statement; ids of people outside the organization are skipped,
// members already in it stay. It returns how many joined the group.
func (s *Organizations) AddToGroup(ctx context.Context, orgID string, groupID int64, userIDs []string, now time.Time) (int, error) {
	ids, err := validMembers(userIDs)
	if err != nil {
		return 0, err
	}
	if _, err := s.Group(ctx, orgID, groupID); err != nil {
		return 0, err
	}
	res := conn(ctx, s.db).Exec(`INSERT INTO organization_group_members (organization_id, group_id, user_id, added_at)
		SELECT m.organization_id, ?, m.user_id, ? FROM organization_members m
		WHERE m.organization_id = ? AND m.user_id IN ?
		ON CONFLICT DO NOTHING`, groupID, now, orgID, ids)
	if res.Error != nil {
		return 0, fmt.Errorf("add to group: %w", res.Error)
	}
	return int(res.RowsAffected), nil
}

// RemoveFromGroup takes the chosen members out of one of the organization's
// groups; it returns how many left it.
func (s *Organizations) RemoveFromGroup(ctx context.Context, orgID string, groupID int64, userIDs []string) (int, error) {
	ids, err := validMembers(userIDs)
	if err != nil {
		return 0, err
	}
	if _, err := s.Group(ctx, orgID, groupID); err != nil {
		return 0, err
	}
	res := conn(ctx, s.db).Exec(`DELETE FROM organization_group_members
		WHERE organization_id = ? AND group_id = ? AND user_id IN ?`, orgID, groupID, ids)
	if res.Error != nil {
		return 0, fmt.Errorf("remove from group: %w", res.Error)
	}
	return int(res.RowsAffected), nil
}

// MemberGroups returns the names of the groups each of the given members
// of the organization is in, by user id, in one statement.
func (s *Organizations) MemberGroups(ctx context.Context, orgID string, userIDs []string) (map[string][]string, error) {
	out := map[string][]string{}
	if !validID(orgID) || len(userIDs) == 0 {
		return out, nil
	}
	var rows []struct{ UserID, Name string }
	err := conn(ctx, s.db).Raw(`SELECT gm.user_id, g.name FROM organization_group_members gm
		JOIN organization_groups g ON g.id = gm.group_id
		WHERE gm.organization_id = ? AND gm.user_id IN ? ORDER BY lower(g.name)`, orgID, userIDs).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("member groups: %w", err)
	}
	for _, r := range rows {
		out[r.UserID] = append(out[r.UserID], r.Name)
	}
	return out, nil
}
