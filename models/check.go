package models

import (
	"context"
	"crypto/sha256"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"gorm.io/gorm"
)

// ModeCheck is the mode of a knowledge check's conversation.
const ModeCheck = "check"

// Kinds of check question, as stored in check_items.kind.
const (
	KindBlank  = "blank"  // a key term or value blanked out of a sentence
	KindChoice = "choice" // which of these
	KindOpen   = "open"   // answered in the student's words
)

// MaxCheckItems is the most questions one check asks.
const MaxCheckItems = 5

// Errors of checks; the fronts translate them.
var (
	ErrCheckFinished = errors.New("the check is finished")
	ErrCheckGraded   = errors.New("that question is already graded")
	// ErrCheckAsked means the check got its next question meanwhile (a
	// parallel answer asked it): read the check again instead.
	ErrCheckAsked = errors.New("the check's next question is asked already")
	ErrNoSections = errors.New("a check needs at least one section")
)

// SectionRef names one lesson section: a lesson and a heading anchor.
type SectionRef struct {
	LessonID string
	Anchor   string
}

// TextList is a text[] column.
type TextList []string

// Value sends the list as a PostgreSQL array literal (GORM would expand a
// bare []string into a parenthesised list).
func (l TextList) Value() (driver.Value, error) {
	parts := make([]string, len(l))
	for i, s := range l {
		s = strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`)
		parts[i] = `"` + s + `"`
	}
	return "{" + strings.Join(parts, ",") + "}", nil
}

// Scan reads a text[] column.
func (l *TextList) Scan(src any) error {
	var out []string
	if err := pgtype.NewMap().SQLScanner(&out).Scan(src); err != nil {
		return fmt.Errorf("scan text list: %w", err)
	}
	*l = out
	return nil
}

// Check is a knowledge check: its conversation, its scope and its questions.
type Check struct {
	ConversationID string `gorm:"type:uuid;primaryKey"`
	UserID         string `gorm:"type:uuid"`
	MaxItems       int
	QuotaPeriod    *time.Time
	FinishedAt     *time.Time
	CreatedAt      time.Time
	Conversation   Conversation `gorm:"-"`
	Sections       []SectionRef `gorm:"-"`
	Items          []CheckItem  `gorm:"-"`
}

// CheckItem is one question of a check and, once answered, its verdict.
type CheckItem struct {
	ID             int64
	ConversationID string `gorm:"type:uuid"`
	UserID         string `gorm:"type:uuid"`
	Position       int
	LessonID       string
	Anchor         string
	SectionHash    string
	Kind           string
	Question       string
	Choices        TextList `gorm:"type:text[]"`
	Expected       string
	Answer         string
	Verdict        *string
	Feedback       string
	Attempts       int
	AskedAt        time.Time
	GradedAt       *time.Time
	// Fallback marks a question written offline because the quiz model failed.
	Fallback bool
}

// Graded reports whether the item has its verdict.
func (it CheckItem) Graded() bool { return it.Verdict != nil }

// Current is the question waiting for an answer, or nil.
func (c *Check) Current() *CheckItem {
	for i := range c.Items {
		if !c.Items[i].Graded() {
			return &c.Items[i]
		}
	}
	return nil
}

// Checks is the store of knowledge checks and mastery; every query is scoped by user.
type Checks struct{ db *gorm.DB }

// NewChecks returns the checks store.
func NewChecks(db *gorm.DB) *Checks { return &Checks{db: db} }

// CheckStart is a check to open.
type CheckStart struct {
	UserID   string
	LessonID string // "" for a review across lessons
	Title    string
	Style    string
	Sections []SectionRef
	MaxItems int // 0 means MaxCheckItems
	Now      time.Time
}

// Start opens a check in one transaction: one question of the plan is
// counted (a *QuotaError when none is left), and the conversation, the
// check and its scope are created.
func (s *Checks) Start(ctx context.Context, in CheckStart) (*Check, error) {
	if !validID(in.UserID) {
		return nil, ErrNotFound
	}
	if len(in.Sections) == 0 {
		return nil, ErrNoSections
	}
	if in.MaxItems <= 0 || in.MaxItems > MaxCheckItems {
		in.MaxItems = MaxCheckItems
	}
	if !ValidStyle(in.Style) {
		in.Style = StyleExplain
	}
	var c Check
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		period, err := reserveQuota(ctx, s.db, in.UserID, "", in.Now)
		if err != nil {
			return err
		}
		tx := conn(ctx, s.db)
		var lesson *string
		if in.LessonID != "" {
			lesson = &in.LessonID
		}
		cv := &c.Conversation
		err = tx.Raw(`INSERT INTO conversations (user_id, mode, style, lesson_id, module_id, title, created_at, last_activity_at)
			VALUES (?, 'check', ?, ?::text, (SELECT module_id FROM lessons WHERE id = ?::text), ?, ?, ?)
			RETURNING id, user_id, title, mode, style, lesson_id, module_id, next_seq, created_at, last_activity_at`,
			in.UserID, in.Style, lesson, lesson, TitleFrom(in.Title), in.Now, in.Now).
			Row().Scan(&cv.ID, &cv.UserID, &cv.Title, &cv.Mode, &cv.Style, &cv.LessonID, &cv.ModuleID, &cv.NextSeq,
			&cv.CreatedAt, &cv.LastActivityAt)
		if err != nil {
			return fmt.Errorf("create check conversation: %w", notFound(err))
		}
		c = Check{ConversationID: cv.ID, UserID: in.UserID, MaxItems: in.MaxItems, QuotaPeriod: &period,
			CreatedAt: in.Now, Conversation: *cv, Sections: in.Sections}
		if err := tx.Exec(`INSERT INTO checks (conversation_id, user_id, max_items, quota_period, created_at) VALUES (?, ?, ?, ?, ?)`,
			c.ConversationID, c.UserID, c.MaxItems, period, in.Now).Error; err != nil {
			return fmt.Errorf("create check: %w", err)
		}
		for i, sec := range in.Sections {
			if err := tx.Exec(`INSERT INTO check_sections (conversation_id, position, lesson_id, anchor) VALUES (?, ?, ?, ?)`,
				c.ConversationID, i+1, sec.LessonID, sec.Anchor).Error; err != nil {
				return fmt.Errorf("add check section: %w", err)
			}
		}
		return tx.Exec(`UPDATE users SET active_conversation_id = ? WHERE id = ?`, c.ConversationID, in.UserID).Error
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// Get returns the user's check with its scope and questions; ErrNotFound
// when it is someone else's, deleted, or not a check.
func (s *Checks) Get(ctx context.Context, userID, conversationID string) (*Check, error) {
	cv, err := liveConversation(ctx, s.db, userID, conversationID)
	if err != nil {
		return nil, err
	}
	db := conn(ctx, s.db)
	var c Check
	if err := db.Where("conversation_id = ? AND user_id = ?", cv.ID, userID).Take(&c).Error; err != nil {
		return nil, fmt.Errorf("read check: %w", notFound(err))
	}
	c.Conversation = *cv
	if err := db.Raw(`SELECT lesson_id, anchor FROM check_sections WHERE conversation_id = ? ORDER BY position`, cv.ID).
		Scan(&c.Sections).Error; err != nil {
		return nil, fmt.Errorf("read check sections: %w", err)
	}
	if err := db.Where("conversation_id = ? AND user_id = ?", cv.ID, userID).Order("position").Find(&c.Items).Error; err != nil {
		return nil, fmt.Errorf("read check items: %w", err)
	}
	return &c, nil
}

// checkMessage is one message a check adds to its thread.
type checkMessage struct {
	role, content string
	meta          JSON // an assistant message's receipt
}

// appendMessages adds messages to the user's thread in order, taking their
// seqs from next_seq (which locks the thread), and touches it.
func appendMessages(tx *gorm.DB, userID, conversationID string, now time.Time, turns ...checkMessage) error {
	var next int
	err := tx.Raw(`UPDATE conversations SET next_seq = next_seq + ?, last_activity_at = ?
		WHERE id = ? AND user_id = ? AND deleted_at IS NULL RETURNING next_seq`,
		len(turns), now, conversationID, userID).Row().Scan(&next)
	if err != nil {
		return fmt.Errorf("allocate seq: %w", notFound(err))
	}
	seq := next - len(turns)
	for i, t := range turns {
		if err := tx.Exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status, metadata, created_at, completed_at)
			VALUES (?, ?, ?, ?, ?, 'complete', ?, ?, ?)`, conversationID, userID, seq+i, t.role, t.content, t.meta, now, now).Error; err != nil {
			return fmt.Errorf("insert check message: %w", err)
		}
	}
	return nil
}

// Ask records the next question of the user's open check, and the text
// the tutor shows for it as an assistant message (meta its receipt), in
// one transaction.
func (s *Checks) Ask(ctx context.Context, item CheckItem, text string, meta JSON, now time.Time) (*CheckItem, error) {
	if !validID(item.UserID) || !validID(item.ConversationID) {
		return nil, ErrNotFound
	}
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if err := lockOpenCheck(tx, item.UserID, item.ConversationID, now); err != nil {
			return err
		}
		if err := appendMessages(tx, item.UserID, item.ConversationID, now, checkMessage{RoleAssistant, text, meta}); err != nil {
			return err
		}
		item.AskedAt, item.Verdict, item.GradedAt = now, nil, nil
		return tx.Raw(`INSERT INTO check_items (conversation_id, user_id, position, lesson_id, anchor, section_hash, kind,
				question, choices, expected, asked_at, fallback)
			VALUES (?, ?, (SELECT count(*) + 1 FROM check_items WHERE conversation_id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?)
			RETURNING id, position`,
			item.ConversationID, item.UserID, item.ConversationID, item.LessonID, item.Anchor, item.SectionHash, item.Kind,
			item.Question, item.Choices, item.Expected, now, item.Fallback).Row().Scan(&item.ID, &item.Position)
	})
	if err != nil {
		return nil, fmt.Errorf("ask check question: %w", err)
	}
	return &item, nil
}

// lockOpenCheck locks the check's row for the transaction, so that the
// answers and questions of one check are written one after another, and
// says whether a next question may be asked: not when the check has
// ended (ErrCheckFinished), nor while a question waits for its answer
// (ErrCheckAsked). A check that has asked all its questions is ended here.
func lockOpenCheck(tx *gorm.DB, userID, conversationID string, now time.Time) error {
	var c struct {
		Open     bool
		MaxItems int
	}
	if err := tx.Raw(`SELECT finished_at IS NULL AS open, max_items FROM checks
		WHERE conversation_id = ? AND user_id = ? FOR UPDATE`, conversationID, userID).Scan(&c).Error; err != nil {
		return fmt.Errorf("lock check: %w", err)
	}
	if c.MaxItems == 0 {
		return ErrNotFound
	}
	if !c.Open {
		return ErrCheckFinished
	}
	var items, waiting int
	if err := tx.Raw(`SELECT count(*), count(*) FILTER (WHERE verdict IS NULL) FROM check_items WHERE conversation_id = ?`,
		conversationID).Row().Scan(&items, &waiting); err != nil {
		return fmt.Errorf("count check items: %w", err)
	}
	if waiting > 0 {
		return ErrCheckAsked
	}
	if items >= c.MaxItems {
		if err := finishCheck(tx, conversationID, now); err != nil {
			return err
		}
		return ErrCheckFinished
	}
	return nil
}

// finishCheck ends the check at now; the caller holds the check's row lock.
func finishCheck(tx *gorm.DB, conversationID string, now time.Time) error {
	if err := tx.Exec(`UPDATE checks SET finished_at = ? WHERE conversation_id = ?`, now, conversationID).Error; err != nil {
		return fmt.Errorf("finish check: %w", err)
	}
	return nil
}

// CheckGrade is one answer to a check question and what the tutor made of it.
type CheckGrade struct {
	UserID         string
	ConversationID string
	ItemID         int64
	Answer         string
	// Verdict is correct, partly or not_yet; "" records a try that got a
	// hint (the item stays open for a second answer).
	Verdict  string
	Feedback string
	Metadata JSON // the feedback message's receipt
	Finish   bool // the check ends with this answer
	Now      time.Time
}

// Grade records an answer in one transaction: the student's answer and the
// tutor's feedback join the thread, and a verdict updates the item, the
// student's mastery of the section and the admin totals. ErrCheckGraded
// when the item has its verdict already (a double submit).
func (s *Checks) Grade(ctx context.Context, g CheckGrade) error {
	if !validID(g.UserID) || !validID(g.ConversationID) {
		return ErrNotFound
	}
	if g.Verdict != "" && !ValidVerdict(g.Verdict) {
		return fmt.Errorf("grade: unknown verdict %q", g.Verdict)
	}
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		// One answer of a check at a time: a parallel one waits here, then
		// finds its question graded.
		if err := tx.Exec(`SELECT 1 FROM checks WHERE conversation_id = ? AND user_id = ? FOR UPDATE`,
			g.ConversationID, g.UserID).Error; err != nil {
			return fmt.Errorf("lock check: %w", err)
		}
		if err := appendMessages(tx, g.UserID, g.ConversationID, g.Now,
			checkMessage{RoleUser, g.Answer, nil}, checkMessage{RoleAssistant, g.Feedback, g.Metadata}); err != nil {
			return err
		}
		var it CheckItem
		if err := tx.Raw(`SELECT * FROM check_items WHERE id = ? AND conversation_id = ? AND user_id = ? FOR UPDATE`,
			g.ItemID, g.ConversationID, g.UserID).Scan(&it).Error; err != nil {
			return fmt.Errorf("read check item: %w", err)
		}
		if it.ID == 0 {
			return ErrNotFound
		}
		if it.Graded() {
			return ErrCheckGraded
		}
		if err := tx.Exec(`UPDATE check_items SET answer = ?, attempts = attempts + 1, feedback = ?,
				verdict = nullif(?, ''), graded_at = CASE WHEN ? = '' THEN NULL ELSE ?::timestamptz END
			WHERE id = ?`, g.Answer, g.Feedback, g.Verdict, g.Verdict, g.Now, it.ID).Error; err != nil {
			return fmt.Errorf("grade check item: %w", err)
		}
		if g.Verdict != "" {
			if err := applyMastery(ctx, s.db, g.UserID, it.LessonID, it.Anchor, g.Verdict, g.Now); err != nil {
				return err
			}
			if err := addTotals(tx, it, g.Verdict); err != nil {
				return err
			}
		}
		if g.Finish {
			return finishCheck(tx, g.ConversationID, g.Now)
		}
		return nil
	})
}

// addTotals counts one graded answer in the section and question totals.
func addTotals(tx *gorm.DB, it CheckItem, verdict string) error {
	c, p, n := 0, 0, 0
	switch verdict {
	case VerdictCorrect:
		c = 1
	case VerdictPartly:
		p = 1
	default:
		n = 1
	}
	if err := tx.Exec(`INSERT INTO section_check_totals AS t (lesson_id, anchor, section_hash, answers, correct, partly, not_yet)
		VALUES (?, ?, ?, 1, ?, ?, ?)
		ON CONFLICT (lesson_id, anchor, section_hash) DO UPDATE SET answers = t.answers + 1,
		    correct = t.correct + excluded.correct, partly = t.partly + excluded.partly, not_yet = t.not_yet + excluded.not_yet`,
		it.LessonID, it.Anchor, it.SectionHash, c, p, n).Error; err != nil {
		return fmt.Errorf("section check totals: %w", err)
	}
	if err := tx.Exec(`INSERT INTO check_question_totals AS t (lesson_id, anchor, section_hash, question_hash, question, answers, not_yet)
		VALUES (?, ?, ?, ?, ?, 1, ?)
		ON CONFLICT (lesson_id, anchor, section_hash, question_hash) DO UPDATE SET answers = t.answers + 1,
		    not_yet = t.not_yet + excluded.not_yet`,
		it.LessonID, it.Anchor, it.SectionHash, QuestionHash(it.Question), it.Question, n).Error; err != nil {
		return fmt.Errorf("question check totals: %w", err)
	}
	return nil
}

// QuestionHash identifies a question's text in the totals: whitespace and
// case folded, so the same question asked twice counts as one.
func QuestionHash(q string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.Join(strings.Fields(q), " "))))
	return hex.EncodeToString(sum[:8])
}

// Finish ends the user's check without a further answer (nothing left to ask).
func (s *Checks) Finish(ctx context.Context, userID, conversationID string, now time.Time) error {
	if !validID(userID) || !validID(conversationID) {
		return ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`UPDATE checks SET finished_at = ? WHERE conversation_id = ? AND user_id = ? AND finished_at IS NULL`,
		now, conversationID, userID)
	if res.Error != nil {
		return fmt.Errorf("finish check: %w", res.Error)
	}
	return nil
}
