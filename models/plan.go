package models

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Plan names, as stored in users.plan.
const (
	PlanFree           = "FREE"
	PlanStarter        = "STARTER"
	PlanPro            = "PRO"
	PlanElite          = "ELITE"
	PlanCorporateUser  = "CORPORATE_USER"
	PlanCorporateAdmin = "CORPORATE_ADMIN"
	PlanContentAdmin   = "CONTENT_ADMIN"
	PlanSuperAdmin     = "SUPER_ADMIN"
)

// Plans lists every plan in the order the upgrade page shows them.
var Plans = []string{PlanFree, PlanStarter, PlanPro, PlanElite, PlanCorporateUser,
	PlanCorporateAdmin, PlanContentAdmin, PlanSuperAdmin}

// ErrUnknownPlan is returned for a plan name that does not exist.
var ErrUnknownPlan = fmt.Errorf("unknown plan (one of %v)", Plans)

// ValidPlan reports whether name is one of Plans.
func ValidPlan(name string) bool { return slices.Contains(Plans, name) }

// PlanLimit is the number of questions a month the plan allows; 0 means unlimited.
func PlanLimit(plan string) int {
	switch plan {
	case PlanFree:
		return 3
	case PlanStarter:
		return 40
	default:
		return 0
	}
}

// planLimitSQL is PlanLimit as an SQL expression on the plan column col,
// for statements that read the plan and check the quota at once.
func planLimitSQL(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for _, p := range Plans {
		if n := PlanLimit(p); n != 0 {
			fmt.Fprintf(&b, " WHEN '%s' THEN %d", p, n)
		}
	}
	b.WriteString(" ELSE 0 END")
	return b.String()
}

// IsAdminPlan reports whether the plan may open the admin dashboard.
func IsAdminPlan(plan string) bool { return plan == PlanContentAdmin || plan == PlanSuperAdmin }

// Period is the first day (UTC) of the calendar month t falls in: the key of plan_usage.
func Period(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// NextPeriod is when the quota of the month t falls in resets.
func NextPeriod(t time.Time) time.Time { return Period(t).AddDate(0, 1, 0) }

// lockSuperAdmins locks every SUPER_ADMIN row, in id order, and returns
// their ids. Taken before any other user row, the lock serialises two
// admins demoting or deleting each other at once: the second sees the
// first one's change, so the last SUPER_ADMIN always stays.
func lockSuperAdmins(tx *gorm.DB) ([]string, error) {
	var admins []string
	if err := tx.Raw(`SELECT id FROM users WHERE plan = ? ORDER BY id FOR UPDATE`, PlanSuperAdmin).
		Scan(&admins).Error; err != nil {
		return nil, fmt.Errorf("lock the SUPER_ADMIN accounts: %w", err)
	}
	return admins, nil
}
