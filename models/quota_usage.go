package models

import (
	"gorm.io/gorm"
)

// usageKey is one count to read: a user (canonical uuid) and a period
// (its first day, YYYY-MM-DD).
type usageKey struct {
	UserID string `json:"u"`
	Period string `json:"p"`
}

// usageRow is a user's plan and count in one period.
type usageRow struct {
	UserID string
	Period string
	Plan   string
	Used   int
	Lim    int // the limit, 0: unlimited (see limitSQL)
}

// findUsages reads many users' counts in one statement; found[i] is nil
// when keys[i] names no user. A key named twice is read once.
func findUsages(db *gorm.DB, keys []usageKey) ([]*usageRow, error) {
	rows, err := jsonRows[usageRow](db, "find usages", findUsagesSQL, keys)
	if err != nil {
		return nil, err
	}
	return matched(keys, rows, func(r *usageRow) usageKey { return usageKey{UserID: r.UserID, Period: r.Period} }), nil
}

// findUsagesSQL reads the counts of a JSON list of keys.
var findUsagesSQL = `SELECT u.id AS user_id, to_char(r.p, 'YYYY-MM-DD') AS period, u.plan, coalesce(p.questions, 0) AS used, ` + limitSQL("u") + ` AS lim
		FROM (SELECT DISTINCT u, p FROM json_to_recordset(?::json) AS r(u uuid, p date)) r
		JOIN users u ON u.id = r.u
		LEFT JOIN plan_usage p ON p.user_id = u.id AND p.period = r.p`
