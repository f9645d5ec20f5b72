package models

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Weeks is how many weeks of activity the student dashboard charts.
const Weeks = 8

// ErrBadCursor is a page cursor that aula did not write.
var ErrBadCursor = errors.New("invalid page cursor")

// Stats answers the dashboards' questions: a student's own activity and
// the admins' views over everyone. Each method runs a small fixed number
// of statements, whatever the data's size.
type Stats struct{ db *gorm.DB }

// NewStats returns the dashboards' query store.
func NewStats(db *gorm.DB) *Stats { return &Stats{db: db} }

// WeekStart is the Monday 00:00 UTC that starts the week t falls in.
func WeekStart(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
}

// ActivityWeek is the questions asked in the week (Monday, UTC) starting at Start.
type ActivityWeek struct {
	Start     time.Time
	Questions int
}

// StudentStats is the student dashboard's tutor activity.
type StudentStats struct {
	// SessionsThisMonth is the number of distinct UTC days of the month with a question.
	SessionsThisMonth  int
	QuestionsThisMonth int
	// TopModule is the module asked about most this month ("" when none).
	TopModule          string
	TopModuleQuestions int
	// Weeks are the last Weeks weeks, oldest first, the current one last.
	Weeks []ActivityWeek
}

// Student computes a user's activity at now in one statement. A question
// whose answer failed was refunded, so it is not counted, the same as in
// the quota; questions in deleted threads still are: the activity happened.
func (s *Stats) Student(ctx context.Context, userID string, now time.Time) (*StudentStats, error) {
	st := &StudentStats{Weeks: make([]ActivityWeek, Weeks)}
	first := WeekStart(now).AddDate(0, 0, -7*(Weeks-1))
	for i := range st.Weeks {
		st.Weeks[i].Start = first.AddDate(0, 0, 7*i)
	}
	if !validID(userID) {
		return st, nil
	}
	month, nextMonth := Period(now), NextPeriod(now)
	from, to := first, WeekStart(now).AddDate(0, 0, 7)
	if month.Before(from) {
		from = month
	}
	if nextMonth.After(to) {
		to = nextMonth
	}
	rows, err := s.activity(ctx, userID, from, to)
	if err != nil {
		return nil, err
	}
	mods := map[int64]*moduleCount{}
	days := map[time.Time]bool{}
	for _, r := range rows {
		day := time.Date(r.Day.Year(), r.Day.Month(), r.Day.Day(), 0, 0, 0, 0, time.UTC)
		if !day.Before(month) && day.Before(nextMonth) {
			days[day] = true
			st.QuestionsThisMonth += r.N
			countModule(mods, r)
		}
		if i := int(day.Sub(first).Hours() / 24 / 7); !day.Before(first) && i < Weeks {
			st.Weeks[i].Questions += r.N
		}
	}
	st.SessionsThisMonth = len(days)
	st.TopModule, st.TopModuleQuestions = topModule(mods)
	return st, nil
}

// activityRow is the number of questions a student asked on one day in one module.
type activityRow struct {
	Day      time.Time
	ModuleID *int64
	Module   string
	N        int
}

// activity counts a student's answered questions per day and module in
// [from, to). A knowledge check is one question, on the day it started, as
// the plan counts it; its answers are not questions.
func (s *Stats) activity(ctx context.Context, userID string, from, to time.Time) ([]activityRow, error) {
	var rows []activityRow
	err := conn(ctx, s.db).Raw(`SELECT (m.created_at AT TIME ZONE 'UTC')::date AS day, c.module_id,
			coalesce(mo.title, '') AS module, count(*) AS n
		FROM messages m
		JOIN conversations c ON c.id = m.conversation_id
		LEFT JOIN modules mo ON mo.id = c.module_id
		WHERE m.user_id = ? AND m.role = 'user' AND m.created_at >= ? AND m.created_at < ? AND c.mode <> 'check'
		  AND NOT EXISTS (SELECT 1 FROM messages a WHERE a.conversation_id = m.conversation_id
		                  AND a.seq = m.seq + 1 AND a.status = 'failed')
		GROUP BY 1, 2, 3
		UNION ALL
		SELECT (k.created_at AT TIME ZONE 'UTC')::date, c.module_id, coalesce(mo.title, ''), count(*)
		FROM checks k
		JOIN conversations c ON c.id = k.conversation_id
		LEFT JOIN modules mo ON mo.id = c.module_id
		WHERE k.user_id = ? AND k.created_at >= ? AND k.created_at < ?
		GROUP BY 1, 2, 3`, userID, from, to, userID, from, to).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("student activity: %w", err)
	}
	return rows, nil
}

type moduleCount struct {
	title string
	n     int
}

func countModule(mods map[int64]*moduleCount, r activityRow) {
	if r.ModuleID == nil {
		return
	}
	if mods[*r.ModuleID] == nil {
		mods[*r.ModuleID] = &moduleCount{title: r.Module}
	}
	mods[*r.ModuleID].n += r.N
}

// topModule is the module asked about most; ties go to the title first in
// the alphabet, so the figure is stable.
func topModule(mods map[int64]*moduleCount) (title string, n int) {
	for _, m := range mods {
		if m.n > n || m.n == n && m.title < title {
			title, n = m.title, m.n
		}
	}
	return title, n
}

// HistoryItem is one earlier conversation on the student dashboard.
type HistoryItem struct {
	ID             string
	Title          string
	Mode           string
	LessonID       *string
	LessonTitle    string
	ModuleTitle    string
	CreatedAt      time.Time
	LastActivityAt time.Time
}

// EncodeCursor writes a page cursor for the links of the next page.
func EncodeCursor(c ConversationCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.LastActivityAt.UnixMicro(), 10) + "." + c.ID))
}

// ParseCursor reads a cursor EncodeCursor wrote; anything else is ErrBadCursor.
func ParseCursor(s string) (*ConversationCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrBadCursor
	}
	ts, id, ok := strings.Cut(string(b), ".")
	micros, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil || !validID(id) {
		return nil, ErrBadCursor
	}
	return &ConversationCursor{LastActivityAt: time.UnixMicro(micros).UTC(), ID: id}, nil
}

// History pages through the user's live conversations, most recently
// active first, with their module and lesson: one statement per page, on
// the thread list's keyset index. It returns the next page's cursor, nil
// on the last page.
func (s *Stats) History(ctx context.Context, userID string, after *ConversationCursor, limit int) ([]HistoryItem, *ConversationCursor, error) {
	if !validID(userID) {
		return nil, nil, nil
	}
	limit = min(max(limit, 1), 100)
	q := `SELECT c.id, c.title, c.mode, c.lesson_id, coalesce(l.title, '') AS lesson_title,
			coalesce(mo.title, '') AS module_title, c.created_at, c.last_activity_at
		FROM conversations c
		LEFT JOIN lessons l ON l.id = c.lesson_id
		LEFT JOIN modules mo ON mo.id = c.module_id
		WHERE c.user_id = ? AND c.deleted_at IS NULL AND c.next_seq > 0`
	args := []any{userID}
	if after != nil {
		q += ` AND (c.last_activity_at, c.id) < (?, ?)`
		args = append(args, after.LastActivityAt, after.ID)
	}
	q += ` ORDER BY c.last_activity_at DESC, c.id DESC LIMIT ?`
	args = append(args, limit+1)
	var items []HistoryItem
	if err := conn(ctx, s.db).Raw(q, args...).Scan(&items).Error; err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	if len(items) <= limit {
		return items, nil, nil
	}
	items = items[:limit]
	last := items[limit-1]
	return items, &ConversationCursor{LastActivityAt: last.LastActivityAt, ID: last.ID}, nil
}

// DayCount is the questions asked on one UTC day.
type DayCount struct {
	Day       time.Time
	Questions int
}

// PlanCount is one plan's users and this month's questions.
type PlanCount struct {
	Plan      string
	Users     int
	Questions int
}

// Overview is the admin overview.
type Overview struct {
	// Active7 and Active30 count students (users on a non-admin plan) with
	// a question in the last 7 and 30 days.
	Active7, Active30 int
	// Days are the last 30 UTC days, oldest first, today last.
	Days []DayCount
	// ByPlan lists every plan, in Plans order, with this month's questions.
	ByPlan []PlanCount
}

// AdminOverview computes the overview at now in three statements.
func (s *Stats) AdminOverview(ctx context.Context, now time.Time) (*Overview, error) {
	now = now.UTC()
	db := conn(ctx, s.db)
	o := &Overview{Days: make([]DayCount, 30)}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	first := today.AddDate(0, 0, -29)
	for i := range o.Days {
		o.Days[i].Day = first.AddDate(0, 0, i)
	}
	err := db.Raw(`SELECT count(DISTINCT m.user_id) FILTER (WHERE m.created_at > ?),
			count(DISTINCT m.user_id)
		FROM messages m JOIN users u ON u.id = m.user_id
		WHERE m.role = 'user' AND m.created_at > ? AND m.created_at <= ?
		  AND u.plan NOT IN ('CONTENT_ADMIN', 'SUPER_ADMIN')`,
		now.Add(-7*24*time.Hour), now.Add(-30*24*time.Hour), now).Row().Scan(&o.Active7, &o.Active30)
	if err != nil {
		return nil, fmt.Errorf("active students: %w", err)
	}
	var days []DayCount
	// A knowledge check is one question, however many answers it takes.
	err = db.Raw(`SELECT day, sum(n) AS questions FROM (
			SELECT (m.created_at AT TIME ZONE 'UTC')::date AS day, count(*) AS n
			FROM messages m WHERE m.role = 'user' AND m.created_at >= ? AND m.created_at < ?
			  AND NOT EXISTS (SELECT 1 FROM checks k WHERE k.conversation_id = m.conversation_id)
			GROUP BY 1
			UNION ALL
			SELECT (created_at AT TIME ZONE 'UTC')::date, count(*) FROM checks
			WHERE created_at >= ? AND created_at < ? GROUP BY 1) d
		GROUP BY day`, first, today.AddDate(0, 0, 1), first, today.AddDate(0, 0, 1)).Scan(&days).Error
	if err != nil {
		return nil, fmt.Errorf("questions per day: %w", err)
	}
	for _, d := range days {
		if i := int(d.Day.Sub(first).Hours() / 24); i >= 0 && i < len(o.Days) {
			o.Days[i].Questions = d.Questions
		}
	}
	var plans []PlanCount
	err = db.Raw(`SELECT u.plan, count(*) AS users, coalesce(sum(p.questions), 0) AS questions
		FROM users u LEFT JOIN plan_usage p ON p.user_id = u.id AND p.period = ?
		GROUP BY u.plan`, Period(now)).Scan(&plans).Error
	if err != nil {
		return nil, fmt.Errorf("questions by plan: %w", err)
	}
	byName := map[string]PlanCount{}
	for _, p := range plans {
		byName[p.Plan] = p
	}
	for _, name := range Plans {
		p := byName[name]
		p.Plan = name
		o.ByPlan = append(o.ByPlan, p)
	}
	return o, nil
}

// LessonRating is the ratings of the answers given in one lesson's threads.
type LessonRating struct {
	LessonID string
	Title    string
	Up, Down int
	// Unclear, Wrong and Other split Down by reason: the lesson is unclear,
	// the answer is wrong, anything else (or no reason).
	Unclear, Wrong, Other int
}

// SectionRating is the 👎 of the answers that cited one lesson section.
type SectionRating struct {
	LessonID, LessonTitle, Heading, Anchor string
	Down, Unclear, Wrong, Other            int
}

// RatingComment is a comment left with a 👎.
type RatingComment struct {
	MessageID   string
	LessonID    *string
	LessonTitle string
	Reason      string
	Comment     string
	RatedAt     time.Time
}

// Ratings is the admin ratings page.
type Ratings struct {
	Up, Down int
	Lessons  []LessonRating  // most 👎 first
	Sections []SectionRating // most 👎 first
	// Unclear are comments on "the lesson is unclear" (the content needs
	// work), Wrong on "the answer is wrong" (the model does); newest first.
	Unclear, Wrong []RatingComment
	// Lesson is the lesson the page is narrowed to ("" every lesson).
	Lesson string
}

// RatingsTop is how many lessons, sections and comments the ratings page lists.
const RatingsTop = 20

// AdminRatings computes the ratings page in four statements. The counts
// come from the running totals a trigger keeps (migration 00008), so the
// page costs the same however many answers were ever rated.
func (s *Stats) AdminRatings(ctx context.Context) (*Ratings, error) {
	return s.LessonRatings(ctx, "")
}

// ofLessonSQL narrows a rating statement to one lesson (@lesson; empty is
// every lesson): a comment belongs to it when its thread is the lesson's
// or its answer cites the lesson (the editor's evidence links, by the
// index of migration 00104).
const ofLessonSQL = `(@lesson = '' OR c.lesson_id = @lesson OR (m.role = 'assistant'
	AND m.metadata->'citations' @> jsonb_build_array(jsonb_build_object('lessonId', CAST(@lesson AS text)))))`

// LessonRatings is the ratings page narrowed to one lesson (lessonID ""
// is every lesson), in the same four statements.
func (s *Stats) LessonRatings(ctx context.Context, lessonID string) (*Ratings, error) {
	db := conn(ctx, s.db)
	r := &Ratings{Lesson: lessonID}
	args := map[string]any{"lesson": lessonID, "top": RatingsTop}
	err := db.Raw(`SELECT coalesce(sum(up), 0), coalesce(sum(down), 0) FROM lesson_rating_totals
		WHERE @lesson = '' OR lesson_id = @lesson`, args).Row().Scan(&r.Up, &r.Down)
	if err != nil {
		return nil, fmt.Errorf("rating totals: %w", err)
	}
	err = db.Raw(`SELECT t.lesson_id, l.title, t.up, t.down, t.unclear, t.wrong, t.other
		FROM lesson_rating_totals t JOIN lessons l ON l.id = t.lesson_id
		WHERE (t.up > 0 OR t.down > 0) AND (@lesson = '' OR t.lesson_id = @lesson)
		ORDER BY t.down DESC, t.up DESC, t.lesson_id LIMIT @top`, args).Scan(&r.Lessons).Error
	if err != nil {
		return nil, fmt.Errorf("ratings per lesson: %w", err)
	}
	err = db.Raw(`SELECT t.lesson_id, coalesce(l.title, '') AS lesson_title, t.heading, t.anchor,
			t.down, t.unclear, t.wrong, t.other
		FROM section_rating_totals t LEFT JOIN lessons l ON l.id = t.lesson_id
		WHERE t.down > 0 AND (@lesson = '' OR t.lesson_id = @lesson)
		ORDER BY t.down DESC, t.lesson_id, t.anchor LIMIT @top`, args).Scan(&r.Sections).Error
	if err != nil {
		return nil, fmt.Errorf("ratings per section: %w", err)
	}
	var comments []RatingComment
	err = db.Raw(`(SELECT m.id AS message_id, c.lesson_id, coalesce(l.title, '') AS lesson_title,
			m.rating_reason AS reason, m.rating_comment AS comment, m.rated_at
		FROM messages m JOIN conversations c ON c.id = m.conversation_id LEFT JOIN lessons l ON l.id = c.lesson_id
		WHERE m.rating = 'down' AND m.rating_reason = 'lesson_unclear' AND m.rating_comment <> '' AND `+ofLessonSQL+`
		ORDER BY m.rated_at DESC LIMIT @top)
		UNION ALL
		(SELECT m.id, c.lesson_id, coalesce(l.title, ''), m.rating_reason, m.rating_comment, m.rated_at
		FROM messages m JOIN conversations c ON c.id = m.conversation_id LEFT JOIN lessons l ON l.id = c.lesson_id
		WHERE m.rating = 'down' AND m.rating_reason = 'answer_wrong' AND m.rating_comment <> '' AND `+ofLessonSQL+`
		ORDER BY m.rated_at DESC LIMIT @top)`, args).Scan(&comments).Error
	if err != nil {
		return nil, fmt.Errorf("rating comments: %w", err)
	}
	for _, c := range comments {
		if c.Reason == "lesson_unclear" {
			r.Unclear = append(r.Unclear, c)
		} else {
			r.Wrong = append(r.Wrong, c)
		}
	}
	return r, nil
}

// LatencyRow is one provider and model's answers over the window.
type LatencyRow struct {
	Provider, Model string
	Answers         int // finished answers: complete, failed or cancelled
	Failed          int
	// Percentiles in milliseconds, of complete answers; nil with none.
	TTFTp50  *float64 `gorm:"column:ttft_p50"`
	TTFTp95  *float64 `gorm:"column:ttft_p95"`
	Totalp50 *float64 `gorm:"column:total_p50"`
	Totalp95 *float64 `gorm:"column:total_p95"`
}

// FailedAnswer is one recent failure.
type FailedAnswer struct {
	ID, Provider, Model, ErrorCode string
	CreatedAt                      time.Time
}

// Latency is the admin latency and reliability page.
type Latency struct {
	Since  time.Time
	Rows   []LatencyRow
	Failed int // failures in the window
	Recent []FailedAnswer
}

// AdminLatency computes the latency page for the 7 days before now in two statements.
func (s *Stats) AdminLatency(ctx context.Context, now time.Time) (*Latency, error) {
	db := conn(ctx, s.db)
	l := &Latency{Since: now.UTC().Add(-7 * 24 * time.Hour)}
	err := db.Raw(`SELECT provider, model, count(*) AS answers,
			count(*) FILTER (WHERE status = 'failed') AS failed,
			percentile_cont(0.5) WITHIN GROUP (ORDER BY ttft_ms) FILTER (WHERE status = 'complete') AS ttft_p50,
			percentile_cont(0.95) WITHIN GROUP (ORDER BY ttft_ms) FILTER (WHERE status = 'complete') AS ttft_p95,
			percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) FILTER (WHERE status = 'complete') AS total_p50,
			percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) FILTER (WHERE status = 'complete') AS total_p95
		FROM messages
		WHERE role = 'assistant' AND created_at > ? AND created_at <= ? AND status <> 'streaming'
		GROUP BY provider, model ORDER BY provider, model`, l.Since, now).Scan(&l.Rows).Error
	if err != nil {
		return nil, fmt.Errorf("latency: %w", err)
	}
	for _, r := range l.Rows {
		l.Failed += r.Failed
	}
	err = db.Raw(`SELECT id, provider, model, error_code, created_at FROM messages
		WHERE status = 'failed' ORDER BY created_at DESC LIMIT ?`, RatingsTop).Scan(&l.Recent).Error
	if err != nil {
		return nil, fmt.Errorf("recent failures: %w", err)
	}
	return l, nil
}

// UserRow is one user in the admin user search.
type UserRow struct {
	ID, Email, Name, Plan string
	CreatedAt             time.Time
}

// SearchUsers finds users whose email or name contains q (case-insensitive),
// by email, at most limit; an empty q lists the first ones.
func (s *Stats) SearchUsers(ctx context.Context, q string, limit int) ([]UserRow, error) {
	limit = min(max(limit, 1), 200)
	q = strings.TrimSpace(q)
	db := conn(ctx, s.db).Table("users").Select("id, email, name, plan, created_at")
	if q != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(q) + "%"
		db = db.Where("email ILIKE ? OR name ILIKE ?", like, like)
	}
	var rows []UserRow
	if err := db.Order("email").Limit(limit).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("search users: %w", err)
	}
	return rows, nil
}
