package models

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/crypto/argon2"
	"gorm.io/gorm"
)

// User is a person with an account.
type User struct {
	ID                   string `gorm:"type:uuid;primaryKey;default:gen_random_uuid()"`
	Email                string
	PasswordHash         string
	Name                 string
	Plan                 string
	Locale               string
	ActiveConversationID *string `gorm:"type:uuid"`
	// OptionalEmail is whether the user still accepts non-essential email.
	OptionalEmail bool `gorm:"default:true"`
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// FirstName is the first word of the user's name, for greetings.
func (u *User) FirstName() string {
	first, _, _ := strings.Cut(strings.TrimSpace(u.Name), " ")
	return first
}

// Validation errors for sign-up; the fronts translate them.
var (
	ErrEmailTaken     = errors.New("an account with this email already exists")
	ErrInvalidEmail   = errors.New("invalid email address")
	ErrInvalidName    = errors.New("name must have between 1 and 100 characters")
	ErrBadCredentials = errors.New("wrong email or password")
	ErrUnknownLocale  = errors.New("unknown locale")
)

// Users is the store of accounts.
type Users struct {
	db *gorm.DB
	// Hashing bounds the password hashing of this store's methods; nil
	// hashes without a bound (command-line tools).
	Hashing *Hashing
}

// NewUsers returns the users store.
func NewUsers(db *gorm.DB) *Users { return &Users{db: db} }

// NormalizeEmail trims and lower-cases an address.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// validEmail reports whether a normalized address is a plain one
// (ana@example.com: no display name, a dot in the domain, at most 254 bytes).
func validEmail(email string) bool {
	addr, err := mail.ParseAddress(email)
	return err == nil && addr.Address == email && len(email) <= 254 &&
		strings.Contains(email[strings.LastIndexByte(email, '@')+1:], ".")
}

// NewUser is what sign-up and `aula user create` provide.
type NewUser struct {
	Email, Name, Password, Plan, Locale string
}

// Validate checks the fields a person typed, in the order a form shows them.
func (n *NewUser) Validate() error {
	n.Email = NormalizeEmail(n.Email)
	n.Name = strings.TrimSpace(n.Name)
	if !validName(n.Name) {
		return ErrInvalidName
	}
	if !validEmail(n.Email) {
		return ErrInvalidEmail
	}
	if err := ValidatePassword(n.Password); err != nil {
		return err
	}
	if n.Plan == "" {
		n.Plan = PlanFree
	}
	if !ValidPlan(n.Plan) {
		return ErrUnknownPlan
	}
	// A new account belongs to no organization yet: it joins one first.
	if n.Plan == PlanCorporateUser || n.Plan == PlanCorporateAdmin {
		return ErrCorporateNeedsOrg
	}
	if n.Locale != "" && n.Locale != "en" && n.Locale != "es" {
		return ErrUnknownLocale
	}
	return nil
}

// validName reports whether a trimmed display name has 1 to 100 characters.
func validName(name string) bool {
	l := utf8.RuneCountInString(name)
	return l >= 1 && l <= 100
}

// Create validates and inserts a user; an existing email (any case) is ErrEmailTaken.
func (s *Users) Create(ctx context.Context, n NewUser) (*User, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	hash, err := s.Hashing.hash(ctx, n.Password)
	if err != nil {
		return nil, err
	}
	u := &User{Email: n.Email, Name: n.Name, Plan: n.Plan, Locale: n.Locale, PasswordHash: hash}
	if err := conn(ctx, s.db).Create(u).Error; err != nil {
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == "23505" {
			return nil, ErrEmailTaken
		}
		return nil, fmt.Errorf("create user: %w", err)
	}
	return u, nil
}

// Get returns the user with id.
func (s *Users) Get(ctx context.Context, id string) (*User, error) { return userByID(ctx, s.db, id) }

// userByID is Get for every store that needs a user's row.
func userByID(ctx context.Context, db *gorm.DB, id string) (*User, error) {
	if !validID(id) {
		return nil, ErrNotFound
	}
	var u User
	if err := conn(ctx, db).Where("id = ?", id).Take(&u).Error; err != nil {
		return nil, notFound(err)
	}
	return &u, nil
}

// GetByEmail returns the user with that email, in any case.
func (s *Users) GetByEmail(ctx context.Context, email string) (*User, error) {
	var u User
	if err := conn(ctx, s.db).Where("email = ?", NormalizeEmail(email)).Take(&u).Error; err != nil {
		return nil, notFound(err)
	}
	return &u, nil
}

// dummyHash is compared against when the email is unknown, so both paths take the same time.
var dummyHash = HashPassword("not a password of anyone")

// Authenticate checks an email and password; any mismatch is ErrBadCredentials.
func (s *Users) Authenticate(ctx context.Context, email, password string) (*User, error) {
	u, err := s.GetByEmail(ctx, email)
	hash := dummyHash
	switch {
	case err == nil:
		hash = u.PasswordHash
	case !errors.Is(err, ErrNotFound):
		return nil, err
	}
	ok, err := s.Hashing.check(ctx, hash, password)
	if err != nil {
		return nil, err
	}
	if !ok || u == nil {
		return nil, ErrBadCredentials
	}
	return u, nil
}

// SetPlan changes the plan of the user with that email; demoting the last
// SUPER_ADMIN is ErrLastSuperAdmin, and a plan that disagrees with
// membership ErrPlanFollowsOrg or ErrCorporateNeedsOrg.
func (s *Users) SetPlan(ctx context.Context, email, plan string) (*User, error) {
	if !ValidPlan(plan) {
		return nil, ErrUnknownPlan
	}
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		admins, err := lockSuperAdmins(tx)
		if err != nil {
			return err
		}
		var from string
		var role *string
		if err := tx.Raw(`SELECT u.plan, m.role FROM users u LEFT JOIN organization_members m ON m.user_id = u.id
			WHERE u.email = ? FOR UPDATE OF u`, NormalizeEmail(email)).Row().Scan(&from, &role); err != nil {
			return notFound(err)
		}
		if from == PlanSuperAdmin && plan != PlanSuperAdmin && len(admins) <= 1 {
			return ErrLastSuperAdmin
		}
		if err := planFitsMembership(plan, role); from != plan && err != nil {
			return err
		}
		return tx.Model(&User{}).Where("email = ?", NormalizeEmail(email)).
			Updates(map[string]any{"plan": plan, "updated_at": time.Now()}).Error
	})
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrLastSuperAdmin) ||
		errors.Is(err, ErrPlanFollowsOrg) || errors.Is(err, ErrCorporateNeedsOrg) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("set plan: %w", err)
	}
	return s.GetByEmail(ctx, email)
}

// SetLocale stores the user's language choice.
func (s *Users) SetLocale(ctx context.Context, id, locale string) error {
	if locale != "en" && locale != "es" {
		return ErrUnknownLocale
	}
	return conn(ctx, s.db).Model(&User{}).Where("id = ?", id).
		Updates(map[string]any{"locale": locale, "updated_at": time.Now()}).Error
}

// List returns every user by email.
func (s *Users) List(ctx context.Context) ([]User, error) {
	var us []User
	err := conn(ctx, s.db).Order("email").Find(&us).Error
	return us, err
}

// argon2id parameters: OWASP's recommendation of 19 MiB, 2 passes, 1 lane.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// HashPassword returns an argon2id hash in the PHC string format.
func HashPassword(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// CheckPassword reports whether password matches an argon2id hash, in constant time.
func CheckPassword(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
