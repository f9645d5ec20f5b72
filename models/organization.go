package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// MaxSeats bounds an organization's seats (the schema's check).
const MaxSeats = 100000

// Errors of organizations; the fronts translate them.
var (
	ErrOrgName      = errors.New("an organization's name has 1 to 100 characters")
	ErrOrgSlug      = errors.New("a slug has 1 to 64 lower-case letters, digits and inner hyphens")
	ErrOrgSlugTaken = errors.New("another organization has this slug")
	ErrOrgSeats     = fmt.Errorf("seats are a whole number from 1 to %d", MaxSeats)
	// ErrSeatsBelowMembers is fewer seats than the organization has members.
	ErrSeatsBelowMembers = errors.New("seats cannot be fewer than the members")
)

// slugPattern is the schema's check on organizations.slug.
var slugPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// Organization is a school or a company: its members share its seats.
type Organization struct {
	ID        string `gorm:"type:uuid;primaryKey;default:gen_random_uuid()"`
	Name      string
	Slug      string
	Seats     int
	CreatedAt time.Time
	UpdatedAt time.Time
	// Members is how many belong now (read with the organization, not a column).
	Members int `gorm:"->;-:migration"`
	// Admins is how many of them administer it: 0 once the only admin
	// deleted their account, for a SUPER_ADMIN to name another.
	Admins int `gorm:"->;-:migration"`
}

// NewOrganization is what a SUPER_ADMIN types to create an organization.
type NewOrganization struct {
	Name, Slug string
	Seats      int
}

// Validate trims and checks the fields in the order the form shows them.
func (n *NewOrganization) Validate() error {
	n.Name, n.Slug = strings.TrimSpace(n.Name), strings.TrimSpace(n.Slug)
	if !validName(n.Name) {
		return ErrOrgName
	}
	if len(n.Slug) > 64 || !slugPattern.MatchString(n.Slug) {
		return ErrOrgSlug
	}
	return validSeats(n.Seats)
}

func validSeats(n int) error {
	if n < 1 || n > MaxSeats {
		return ErrOrgSeats
	}
	return nil
}

// Organizations is the store of organizations, their members, join links,
// invitations, groups and assignments. Every method that serves an
// organization's admin takes the organization's id and touches nothing
// outside it: another organization's ids are ErrNotFound.
type Organizations struct{ db *gorm.DB }

// NewOrganizations returns the organizations store.
func NewOrganizations(db *gorm.DB) *Organizations { return &Organizations{db: db} }

// orgColumns reads an organization with its member count.
const orgColumns = `o.id, o.name, o.slug, o.seats, o.created_at, o.updated_at,
	(SELECT count(*) FROM organization_members m WHERE m.organization_id = o.id) AS members,
	(SELECT count(*) FROM organization_members m WHERE m.organization_id = o.id AND m.role = 'admin') AS admins`

// Create inserts an organization; a slug in use is ErrOrgSlugTaken.
func (s *Organizations) Create(ctx context.Context, n NewOrganization, now time.Time) (*Organization, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	o := &Organization{Name: n.Name, Slug: n.Slug, Seats: n.Seats, CreatedAt: now, UpdatedAt: now}
	if err := conn(ctx, s.db).Create(o).Error; err != nil {
		if uniqueViolation(err) {
			return nil, ErrOrgSlugTaken
		}
		return nil, fmt.Errorf("create organization: %w", err)
	}
	return o, nil
}

// Get returns the organization with id and its member count.
func (s *Organizations) Get(ctx context.Context, id string) (*Organization, error) {
	if !validID(id) {
		return nil, ErrNotFound
	}
	var o Organization
	err := conn(ctx, s.db).Raw(`SELECT `+orgColumns+` FROM organizations o WHERE o.id = ?`, id).Take(&o).Error
	if err != nil {
		return nil, fmt.Errorf("organization: %w", notFound(err))
	}
	return &o, nil
}

// TimeCursor is where a page ordered by a time and an id starts: after
// the row with these keys.
type TimeCursor struct {
	At time.Time
	ID string
}

// String writes the cursor for a page link.
func (c TimeCursor) String() string {
	return EncodeCursor(ConversationCursor{LastActivityAt: c.At, ID: c.ID})
}

// ParseTimeCursor reads a cursor String wrote ("" is the first page);
// anything else is ErrBadCursor.
func ParseTimeCursor(s string) (*TimeCursor, error) {
	if s == "" {
		return nil, nil
	}
	c, err := ParseCursor(s)
	if err != nil {
		return nil, err
	}
	return &TimeCursor{At: c.LastActivityAt, ID: c.ID}, nil
}

// List pages through the organizations, oldest first, on their keyset
// index; it returns the next page's cursor, nil on the last page.
func (s *Organizations) List(ctx context.Context, after *TimeCursor, limit int) ([]Organization, *TimeCursor, error) {
	limit = min(max(limit, 1), 100)
	q := conn(ctx, s.db).Table("organizations o").Select(orgColumns)
	if after != nil {
		q = q.Where("(o.created_at, o.id) > (?, ?)", after.At, after.ID)
	}
	var out []Organization
	if err := q.Order("o.created_at, o.id").Limit(limit + 1).Scan(&out).Error; err != nil {
		return nil, nil, fmt.Errorf("list organizations: %w", err)
	}
	out, next := page(out, limit, func(o Organization) TimeCursor { return TimeCursor{At: o.CreatedAt, ID: o.ID} })
	return out, next, nil
}

// page cuts rows read with one extra row (limit+1) to limit, and returns
// the next page's cursor from the last row kept, nil when nothing follows.
func page[T any](rows []T, limit int, key func(T) TimeCursor) ([]T, *TimeCursor) {
	if len(rows) <= limit {
		return rows, nil
	}
	next := key(rows[limit-1])
	return rows[:limit], &next
}

// uniqueViolation reports whether err is PostgreSQL's unique_violation.
func uniqueViolation(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505"
}

// Update renames an organization and sets its seats, never below its
// member count (ErrSeatsBelowMembers): the row is locked, so a join
// meanwhile is counted.
func (s *Organizations) Update(ctx context.Context, id, name string, seats int, now time.Time) error {
	name = strings.TrimSpace(name)
	if !validName(name) {
		return ErrOrgName
	}
	if err := validSeats(seats); err != nil {
		return err
	}
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		if _, err := s.lock(ctx, id); err != nil {
			return err
		}
		var members int
		tx := conn(ctx, s.db)
		if err := tx.Raw(`SELECT count(*) FROM organization_members WHERE organization_id = ?`, id).Scan(&members).Error; err != nil {
			return fmt.Errorf("count members: %w", err)
		}
		if seats < members {
			return ErrSeatsBelowMembers
		}
		return tx.Exec(`UPDATE organizations SET name = ?, seats = ?, updated_at = ? WHERE id = ?`, name, seats, now, id).Error
	})
}

// lock takes the organization's row lock, which every change of its
// membership holds: joins, removals and seat changes happen one at a time.
func (s *Organizations) lock(ctx context.Context, id string) (seats int, err error) {
	if !validID(id) {
		return 0, ErrNotFound
	}
	err = conn(ctx, s.db).Raw(`SELECT seats FROM organizations WHERE id = ? FOR UPDATE`, id).Row().Scan(&seats)
	if err != nil {
		return 0, fmt.Errorf("lock organization: %w", notFound(err))
	}
	return seats, nil
}

// Delete removes an organization after returning its members to FREE (an
// audited plan change by adminID); their threads, checks and progress are
// theirs and stay.
func (s *Organizations) Delete(ctx context.Context, adminID, id string, now time.Time) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		if _, err := s.lock(ctx, id); err != nil {
			return err
		}
		if err := s.returnToFree(ctx, adminID, id, "", now); err != nil {
			return err
		}
		return conn(ctx, s.db).Exec(`DELETE FROM organizations WHERE id = ?`, id).Error
	})
}

// returnToFree sets the plan of the organization's members (only userID
// when given) back to FREE, recording each change; a plan a SUPER_ADMIN
// set apart from the organization (not a corporate one) stays.
func (s *Organizations) returnToFree(ctx context.Context, byID, orgID, userID string, now time.Time) error {
	var by *string
	if validID(byID) {
		by = &byID
	}
	var only *string
	if userID != "" {
		only = &userID
	}
	err := conn(ctx, s.db).Exec(`WITH old AS (
			SELECT u.id, u.plan FROM users u JOIN organization_members m ON m.user_id = u.id
			WHERE m.organization_id = ? AND (CAST(? AS uuid) IS NULL OR u.id = ?) AND u.plan IN (?, ?)
			ORDER BY u.id FOR UPDATE OF u),
		upd AS (UPDATE users u SET plan = ?, updated_at = ? FROM old WHERE u.id = old.id RETURNING u.id, old.plan)
		INSERT INTO plan_changes (user_id, changed_by, from_plan, to_plan, created_at)
		SELECT id, ?, plan, ?, ? FROM upd`,
		orgID, only, only, PlanCorporateUser, PlanCorporateAdmin, PlanFree, now, by, PlanFree, now).Error
	if err != nil {
		return fmt.Errorf("return members to FREE: %w", err)
	}
	return nil
}
