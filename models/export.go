package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Export is everything aula keeps about one user, as the "download your
// data" file carries it. Secrets (password hash, token hashes, session ids)
// are left out: they are not the user's information but keys to it.
type Export struct {
	ExportedAt    time.Time            `json:"exportedAt"`
	Account       ExportAccount        `json:"account"`
	Conversations []ExportConversation `json:"conversations"`
	Usage         []ExportUsage        `json:"usage"`
	PlanChanges   []ExportPlanChange   `json:"planChanges"`
	APITokens     []ExportToken        `json:"apiTokens"`
	Sessions      []ExportSession      `json:"sessions"`
	// LessonsRead and LessonVisits are the student's progress: the lessons
	// read and the one opened last.
	LessonsRead  []ExportLessonRead  `json:"lessonsRead"`
	LessonVisits []ExportLessonVisit `json:"lessonVisits"`
	// The knowledge checks' questions and answers, and the mastery they set.
	CheckAnswers   []ExportCheckAnswer    `json:"checkAnswers"`
	SectionMastery []ExportSectionMastery `json:"sectionMastery"`
}

// ExportLessonRead is a lesson the student read, and when.
type ExportLessonRead struct {
	LessonID string    `json:"lessonId"`
	ReadAt   time.Time `json:"readAt"`
}

// ExportLessonVisit is the lesson the student opened last, and when.
type ExportLessonVisit struct {
	LessonID  string    `json:"lessonId"`
	VisitedAt time.Time `json:"visitedAt"`
}

// ExportCheckAnswer is one question of a knowledge check and the student's answer.
type ExportCheckAnswer struct {
	ConversationID string     `json:"conversationId"`
	Position       int        `json:"position"`
	LessonID       string     `json:"lessonId"`
	Anchor         string     `json:"anchor"`
	Question       string     `json:"question"`
	Choices        TextList   `json:"choices"`
	Answer         string     `json:"answer"`
	Verdict        *string    `json:"verdict"`
	Feedback       string     `json:"feedback"`
	Attempts       int        `json:"attempts"`
	AskedAt        time.Time  `json:"askedAt"`
	GradedAt       *time.Time `json:"gradedAt"`
}

// ExportSectionMastery is what the student has shown of one lesson section.
type ExportSectionMastery struct {
	LessonID      string     `json:"lessonId"`
	Anchor        string     `json:"anchor"`
	Streak        int        `json:"streak"`
	LastVerdict   string     `json:"lastVerdict"`
	MasteredAt    *time.Time `json:"masteredAt"`
	LastCheckedAt time.Time  `json:"lastCheckedAt"`
	DueAt         time.Time  `json:"dueAt"`
}

// ExportAccount is the account row.
type ExportAccount struct {
	ID            string    `json:"id"`
	Email         string    `json:"email"`
	Name          string    `json:"name"`
	Plan          string    `json:"plan"`
	Locale        string    `json:"locale"`
	OptionalEmail bool      `json:"optionalEmail"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// ExportConversation is one thread with its messages, deleted ones included
// (aula keeps them until the account goes).
type ExportConversation struct {
	ID             string     `json:"id"`
	Title          string     `json:"title"`
	Mode           string     `json:"mode"`
	Style          string     `json:"style"`
	LessonID       *string    `json:"lessonId"`
	CreatedAt      time.Time  `json:"createdAt"`
	LastActivityAt time.Time  `json:"lastActivityAt"`
	DeletedAt      *time.Time `json:"deletedAt"`
	// ContextTurns are earlier turns another program brought with the
	// conversation's first question (API history, MCP history).
	ContextTurns []ExportContextTurn `json:"contextTurns,omitempty"`
	Messages     []ExportMessage     `json:"messages"`
}

// ExportContextTurn is one turn a program supplied as history.
type ExportContextTurn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ExportMessage is a question or an answer with its receipt and rating.
type ExportMessage struct {
	ID            string             `json:"id"`
	Seq           int                `json:"seq"`
	Role          string             `json:"role"`
	Content       string             `json:"content"`
	Status        string             `json:"status"`
	CreatedAt     time.Time          `json:"createdAt"`
	CompletedAt   *time.Time         `json:"completedAt"`
	Provider      string             `json:"provider,omitempty"`
	Model         string             `json:"model,omitempty"`
	LatencyMs     *int               `json:"latencyMs,omitempty"`
	TokensIn      *int               `json:"tokensIn,omitempty"`
	TokensOut     *int               `json:"tokensOut,omitempty"`
	ErrorCode     string             `json:"errorCode,omitempty"`
	Metadata      json.RawMessage    `json:"metadata,omitempty"`
	Rating        *string            `json:"rating,omitempty"`
	RatingReason  *string            `json:"ratingReason,omitempty"`
	RatingComment string             `json:"ratingComment,omitempty"`
	RatedAt       *time.Time         `json:"ratedAt,omitempty"`
	Attachments   []ExportAttachment `json:"attachments,omitempty"`
}

// ExportAttachment is an attached file's name and the text read from it.
type ExportAttachment struct {
	Filename      string    `json:"filename"`
	MIME          string    `json:"mime"`
	Size          int       `json:"size"`
	ExtractedText string    `json:"extractedText"`
	CreatedAt     time.Time `json:"createdAt"`
}

// ExportUsage is the questions asked in one month.
type ExportUsage struct {
	Period    string `json:"period"`
	Questions int    `json:"questions"`
}

// ExportPlanChange is an admin's change of the user's plan.
type ExportPlanChange struct {
	FromPlan  string    `json:"fromPlan"`
	ToPlan    string    `json:"toPlan"`
	CreatedAt time.Time `json:"createdAt"`
}

// ExportToken is an API token's name and dates (never its secret).
type ExportToken struct {
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
}

// ExportSession is a signed-in device.
type ExportSession struct {
	UserAgent  string    `json:"userAgent"`
	Address    string    `json:"address"`
	CreatedAt  time.Time `json:"createdAt"`
	LastSeenAt time.Time `json:"lastSeenAt"`
}

// Export gathers the user's data in one read-only, repeatable-read
// transaction, so the file is one consistent picture.
func (s *Users) Export(ctx context.Context, id string, now time.Time) (*Export, error) {
	u, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &Export{ExportedAt: now, Account: ExportAccount{ID: u.ID, Email: u.Email, Name: u.Name, Plan: u.Plan,
		Locale: u.Locale, OptionalEmail: u.OptionalEmail, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}}
	err = WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if err := tx.Exec(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY`).Error; err != nil {
			return err
		}
		if err := exportConversations(tx, id, out); err != nil {
			return err
		}
		return exportAccountRows(tx, id, out)
	})
	if err != nil {
		return nil, fmt.Errorf("export account: %w", err)
	}
	return out, nil
}

// exportConversations fills the threads, their messages and attachments.
func exportConversations(tx *gorm.DB, userID string, out *Export) error {
	var convs []Conversation
	if err := tx.Where("user_id = ?", userID).Order("created_at, id").Find(&convs).Error; err != nil {
		return err
	}
	var msgs []Message
	if err := tx.Where("user_id = ?", userID).Order("conversation_id, seq").Find(&msgs).Error; err != nil {
		return err
	}
	var atts []Attachment
	if err := tx.Select("message_id, filename, mime, size, extracted_text, created_at").
		Where("user_id = ?", userID).Order("created_at, id").Find(&atts).Error; err != nil {
		return err
	}
	byMsg := map[string][]ExportAttachment{}
	for _, a := range atts {
		byMsg[a.MessageID] = append(byMsg[a.MessageID], ExportAttachment{Filename: a.Filename, MIME: a.Mime,
			Size: a.Size, ExtractedText: a.ExtractedText, CreatedAt: a.CreatedAt})
	}
	byConv := map[string][]ExportMessage{}
	for _, m := range msgs {
		em := ExportMessage{ID: m.ID, Seq: m.Seq, Role: m.Role, Content: m.Content, Status: m.Status,
			CreatedAt: m.CreatedAt, CompletedAt: m.CompletedAt, Provider: m.Provider, Model: m.Model,
			LatencyMs: m.LatencyMs, TokensIn: m.TokensIn, TokensOut: m.TokensOut, ErrorCode: m.ErrorCode,
			Rating: m.Rating, RatingReason: m.RatingReason, RatingComment: m.RatingComment, RatedAt: m.RatedAt,
			Attachments: byMsg[m.ID]}
		if len(m.Metadata) > 0 && string(m.Metadata) != "{}" {
			em.Metadata = json.RawMessage(m.Metadata)
		}
		byConv[m.ConversationID] = append(byConv[m.ConversationID], em)
	}
	turns, err := exportContextTurns(tx, userID)
	if err != nil {
		return err
	}
	out.Conversations = make([]ExportConversation, 0, len(convs))
	for _, c := range convs {
		out.Conversations = append(out.Conversations, ExportConversation{ID: c.ID, Title: c.Title, Mode: c.Mode,
			Style: c.Style, LessonID: c.LessonID, CreatedAt: c.CreatedAt, LastActivityAt: c.LastActivityAt,
			DeletedAt: c.DeletedAt, ContextTurns: turns[c.ID], Messages: byConv[c.ID]})
	}
	return nil
}

// exportContextTurns returns the user's supplied history turns by conversation.
func exportContextTurns(tx *gorm.DB, userID string) (map[string][]ExportContextTurn, error) {
	var rows []struct{ ConversationID, Role, Content string }
	if err := tx.Raw(`SELECT conversation_id, role, content FROM context_turns WHERE user_id = ?
		ORDER BY conversation_id, position`, userID).Scan(&rows).Error; err != nil {
		return nil, err
	}
	out := map[string][]ExportContextTurn{}
	for _, r := range rows {
		out[r.ConversationID] = append(out[r.ConversationID], ExportContextTurn{Role: r.Role, Content: r.Content})
	}
	return out, nil
}

// exportAccountRows fills usage, plan changes, tokens and sessions.
func exportAccountRows(tx *gorm.DB, userID string, out *Export) error {
	out.Usage, out.PlanChanges, out.APITokens, out.Sessions = []ExportUsage{}, []ExportPlanChange{}, []ExportToken{}, []ExportSession{}
	out.LessonsRead, out.LessonVisits = []ExportLessonRead{}, []ExportLessonVisit{}
	out.CheckAnswers, out.SectionMastery = []ExportCheckAnswer{}, []ExportSectionMastery{}
	queries := []struct {
		sql  string
		dest any
	}{
		{`SELECT to_char(period, 'YYYY-MM') AS period, questions FROM plan_usage WHERE user_id = ? ORDER BY period`, &out.Usage},
		{`SELECT from_plan, to_plan, created_at FROM plan_changes WHERE user_id = ? ORDER BY created_at, id`, &out.PlanChanges},
		{`SELECT name, created_at, last_used_at, revoked_at FROM api_tokens WHERE user_id = ? ORDER BY created_at`, &out.APITokens},
		{`SELECT user_agent, address, created_at, last_seen_at FROM sessions WHERE user_id = ? AND expires_at > now()
			ORDER BY created_at`, &out.Sessions},
		{`SELECT lesson_id, read_at FROM lesson_reads WHERE user_id = ? ORDER BY read_at, lesson_id`, &out.LessonsRead},
		{`SELECT lesson_id, visited_at FROM lesson_visits WHERE user_id = ?`, &out.LessonVisits},
		{`SELECT conversation_id, position, lesson_id, anchor, question, choices, answer, verdict, feedback, attempts,
			asked_at, graded_at FROM check_items WHERE user_id = ? ORDER BY asked_at, id`, &out.CheckAnswers},
		{`SELECT lesson_id, anchor, streak, last_verdict, mastered_at, last_checked_at, due_at FROM section_mastery
			WHERE user_id = ? ORDER BY lesson_id, anchor`, &out.SectionMastery},
	}
	for _, q := range queries {
		if err := tx.Raw(q.sql, userID).Scan(q.dest).Error; err != nil {
			return err
		}
	}
	return nil
}
