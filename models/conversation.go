package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// Conversation modes, as stored in conversations.mode.
const (
	ModeLesson = "lesson"
	ModeTutor  = "tutor"
	ModeHelp   = "help"
)

// Teaching styles, as stored in conversations.style.
const (
	StyleExplain = "explain"
	StyleGuide   = "guide"
)

// TitleMaxChars is the longest title taken from a first question.
const TitleMaxChars = 60

// Errors for invalid conversation input; the fronts translate them.
var (
	ErrInvalidMode  = errors.New("mode must be lesson, tutor or help")
	ErrInvalidStyle = errors.New("style must be explain or guide")
	ErrNoLesson     = errors.New("a lesson conversation needs a lesson")
)

// Conversation is one thread of questions and answers of a user.
type Conversation struct {
	ID       string `gorm:"type:uuid;primaryKey;default:gen_random_uuid()"`
	UserID   string `gorm:"type:uuid"`
	Title    string
	Mode     string
	Style    string
	LessonID *string
	ModuleID *int64
	// RemovedLessonTitle is the title of the thread's lesson once an author
	// deleted it (LessonID is then NULL): the thread stays readable.
	RemovedLessonTitle *string
	NextSeq            int
	CreatedAt          time.Time
	LastActivityAt     time.Time
	DeletedAt          *time.Time
}

// Conversations is the store of conversation threads; every query is scoped by user.
type Conversations struct {
	db *gorm.DB
	// get reads the threads that requests arriving together ask for in one statement.
	get *reader[convKey, *Conversation]
	// recent remembers the threads this process saw lately (conversation_recent.go).
	recent recent
}

// NewConversations returns the conversations store.
func NewConversations(db *gorm.DB) *Conversations {
	return &Conversations{db: db, get: newReader(db, findConversations)}
}

// ValidMode reports whether mode is lesson, tutor or help.
func ValidMode(mode string) bool { return mode == ModeLesson || mode == ModeTutor || mode == ModeHelp }

// ValidStyle reports whether style is explain or guide.
func ValidStyle(style string) bool { return style == StyleExplain || style == StyleGuide }

// validID reports whether id can be a uuid; anything else cannot name a row,
// and answering ErrNotFound early keeps PostgreSQL's cast errors out of the fronts.
func validID(id string) bool {
	_, err := uuid.Parse(id)
	return err == nil
}

// Create starts a conversation. For lesson mode the lesson must exist; its
// module is filled in when moduleID is 0. style "" means explain.
func (s *Conversations) Create(ctx context.Context, userID, mode, lessonID string, moduleID int64, style string) (*Conversation, error) {
	c, err := newConversation(userID, mode, lessonID, moduleID, style)
	if err != nil {
		return nil, err
	}
	created, err := insertConversation(conn(ctx, s.db), c)
	if err == nil {
		s.recent.put(*created)
	}
	return created, err
}

// newConversation checks Create's input and returns the row to insert;
// its lesson, when it names one, is checked by the insert.
func newConversation(userID, mode, lessonID string, moduleID int64, style string) (Conversation, error) {
	if !validID(userID) {
		return Conversation{}, ErrNotFound
	}
	if mode == "" {
		mode = ModeTutor
	}
	if !ValidMode(mode) {
		return Conversation{}, ErrInvalidMode
	}
	if style == "" {
		style = StyleExplain
	}
	if !ValidStyle(style) {
		return Conversation{}, ErrInvalidStyle
	}
	c := Conversation{UserID: userID, Mode: mode, Style: style}
	if lessonID != "" {
		c.LessonID = &lessonID
	} else if mode == ModeLesson {
		return Conversation{}, ErrNoLesson
	}
	if moduleID != 0 {
		c.ModuleID = &moduleID
	}
	return c, nil
}

// insertConversation stores c: its lesson must exist (else ErrNotFound),
// and gives its module when c names none.
func insertConversation(db *gorm.DB, c Conversation) (*Conversation, error) {
	if c.LessonID != nil {
		var mod int64
		err := db.Raw(`SELECT module_id FROM lessons WHERE id = ?`, *c.LessonID).Row().Scan(&mod)
		if err != nil {
			return nil, fmt.Errorf("find lesson: %w", notFound(err))
		}
		if c.ModuleID == nil {
			c.ModuleID = &mod
		}
	}
	err := db.Raw(`INSERT INTO conversations (user_id, mode, style, lesson_id, module_id)
		     VALUES (?, ?, ?, ?, ?) RETURNING id, title, next_seq, created_at, last_activity_at`,
		c.UserID, c.Mode, c.Style, c.LessonID, c.ModuleID).
		Row().Scan(&c.ID, &c.Title, &c.NextSeq, &c.CreatedAt, &c.LastActivityAt)
	if err != nil {
		return nil, fmt.Errorf("create conversation: %w", err)
	}
	return &c, nil
}

// Get returns the user's live conversation, or ErrNotFound. Every ask
// reads its thread first, so the reads of requests arriving together
// share one statement (see batcher).
func (s *Conversations) Get(ctx context.Context, userID, id string) (*Conversation, error) {
	k, ok := keyOf(userID, id)
	if !ok {
		return nil, ErrNotFound
	}
	c, err := s.get.get(ctx, k)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, ErrNotFound
	}
	// Callers that asked for the same thread share the row read: each
	// gets its own copy, free to change.
	own := *c
	s.recent.put(own)
	return &own, nil
}

// liveConversation is Get for every store that must check a thread is the user's.
func liveConversation(ctx context.Context, db *gorm.DB, userID, id string) (*Conversation, error) {
	if !validID(id) || !validID(userID) {
		return nil, ErrNotFound
	}
	var c Conversation
	err := conn(ctx, db).Where("id = ? AND user_id = ? AND deleted_at IS NULL", id, userID).Take(&c).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &c, nil
}

// ConversationCursor marks a position in the thread list: the last row seen.
type ConversationCursor struct {
	LastActivityAt time.Time
	ID             string
}

// ListOptions narrow and page the thread list.
type ListOptions struct {
	Limit    int                 // default 20, at most 100
	After    *ConversationCursor // the last row of the previous page
	LessonID string              // only threads about this lesson
	Mode     string              // only threads of this mode
	Modes    []string            // only threads of these modes
}

// List returns the user's live, non-empty threads, most recently active
// first, and the cursor of the next page (nil on the last page).
func (s *Conversations) List(ctx context.Context, userID string, opt ListOptions) ([]Conversation, *ConversationCursor, error) {
	if !validID(userID) {
		return nil, nil, nil
	}
	limit := opt.Limit
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 100)
	q := conn(ctx, s.db).Where("user_id = ? AND deleted_at IS NULL AND next_seq > 0", userID)
	if opt.After != nil {
		q = q.Where("(last_activity_at, id) < (?, ?)", opt.After.LastActivityAt, opt.After.ID)
	}
	if opt.LessonID != "" {
		q = q.Where("lesson_id = ?", opt.LessonID)
	}
	if opt.Mode != "" {
		q = q.Where("mode = ?", opt.Mode)
	}
	if len(opt.Modes) > 0 {
		q = q.Where("mode IN ?", opt.Modes)
	}
	var rows []Conversation
	if err := q.Order("last_activity_at DESC, id DESC").Limit(limit + 1).Find(&rows).Error; err != nil {
		return nil, nil, fmt.Errorf("list conversations: %w", err)
	}
	if len(rows) <= limit {
		return rows, nil, nil
	}
	rows = rows[:limit]
	last := rows[limit-1]
	return rows, &ConversationCursor{LastActivityAt: last.LastActivityAt, ID: last.ID}, nil
}

// Delete hides the user's conversation (soft delete) and clears it as the
// active thread; ErrNotFound when it is not theirs or already gone.
func (s *Conversations) Delete(ctx context.Context, userID, id string) error {
	if !validID(id) || !validID(userID) {
		return ErrNotFound
	}
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		res := tx.Exec(`UPDATE conversations SET deleted_at = now(), title = '' WHERE id = ? AND user_id = ? AND deleted_at IS NULL`, id, userID)
		if res.Error != nil {
			return fmt.Errorf("delete conversation: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		if err := tx.Exec(`UPDATE users SET active_conversation_id = NULL WHERE id = ? AND active_conversation_id = ?`, userID, id).Error; err != nil {
			return fmt.Errorf("clear active conversation: %w", err)
		}
		s.recent.forget(userID, id)
		return removeContent(tx, userID, id)
	})
}

// removeContent deletes what the student wrote or was answered in a
// deleted thread: its files, its earlier context, its answers' earlier
// versions, a check's questions and answers, and the text, receipts
// and comments of its messages. The bare rows stay (role, status,
// timings, provider, rating) for the admin figures and the plan, which
// keeps the questions counted; an answer still being written is ended
// as cancelled, so nothing more is stored into it.
func removeContent(tx *gorm.DB, userID, id string) error {
	if err := tx.Exec(`DELETE FROM attachments a USING messages m
		WHERE a.message_id = m.id AND m.conversation_id = ? AND m.user_id = ?`, id, userID).Error; err != nil {
		return fmt.Errorf("delete attachments: %w", err)
	}
	if err := tx.Exec(`DELETE FROM message_versions v USING messages m
		WHERE v.message_id = m.id AND m.conversation_id = ? AND m.user_id = ?`, id, userID).Error; err != nil {
		return fmt.Errorf("delete answer versions: %w", err)
	}
	if err := tx.Exec(`DELETE FROM context_turns WHERE conversation_id = ? AND user_id = ?`, id, userID).Error; err != nil {
		return fmt.Errorf("delete earlier context: %w", err)
	}
	if err := tx.Exec(`UPDATE check_items SET question = '', choices = '{}', expected = '', answer = '', feedback = ''
		WHERE conversation_id = ? AND user_id = ?`, id, userID).Error; err != nil {
		return fmt.Errorf("remove check text: %w", err)
	}
	if err := tx.Exec(`UPDATE messages SET content = '', metadata = '{}', rating_comment = '',
		    status = CASE WHEN status = 'streaming' THEN 'cancelled' ELSE status END
		WHERE conversation_id = ? AND user_id = ?`, id, userID).Error; err != nil {
		return fmt.Errorf("remove message text: %w", err)
	}
	return nil
}

// SetGeneratedTitle replaces the title derived from the first question
// (from) with one the title route wrote; a thread renamed or deleted
// meanwhile is left alone.
func (s *Conversations) SetGeneratedTitle(ctx context.Context, userID, id, from, title string) error {
	if !validID(id) || !validID(userID) {
		return ErrNotFound
	}
	err := conn(ctx, s.db).Exec(`UPDATE conversations SET title = ? WHERE id = ? AND user_id = ? AND title = ? AND deleted_at IS NULL`,
		title, id, userID, from).Error
	if err != nil {
		return fmt.Errorf("set title: %w", err)
	}
	return nil
}

// SetStyle changes the teaching style of the user's conversation; the next answer uses it.
func (s *Conversations) SetStyle(ctx context.Context, userID, id, style string) error {
	if !ValidStyle(style) {
		return ErrInvalidStyle
	}
	if !validID(id) || !validID(userID) {
		return ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`UPDATE conversations SET style = ? WHERE id = ? AND user_id = ? AND deleted_at IS NULL`, style, id, userID)
	if res.Error != nil {
		return fmt.Errorf("set style: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	s.recent.forget(userID, id)
	return nil
}

// SetActive records the thread the user last opened, so /chat reopens it.
func (s *Conversations) SetActive(ctx context.Context, userID, id string) error {
	if !validID(id) || !validID(userID) {
		return ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`UPDATE users SET active_conversation_id = ?
		WHERE id = ? AND EXISTS (SELECT 1 FROM conversations WHERE id = ? AND user_id = ? AND deleted_at IS NULL)`,
		id, userID, id, userID)
	if res.Error != nil {
		return fmt.Errorf("set active conversation: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// TitleFrom makes a thread title from a first question: whitespace folded,
// at most TitleMaxChars characters, an ellipsis when cut.
func TitleFrom(question string) string {
	t := strings.Join(strings.Fields(question), " ")
	if utf8.RuneCountInString(t) <= TitleMaxChars {
		return t
	}
	r := []rune(t)[:TitleMaxChars-1]
	return strings.TrimRight(string(r), " ") + "…"
}
