package models

import (
	"context"
	"fmt"
)

// CheckGuard is a knowledge check open on a lesson whose answers the
// lesson's tutor must not give: the member's organization guides only
// during checks (Policy.GuideDuringChecks).
type CheckGuard struct {
	// Questions are the questions the open checks asked so far, oldest
	// first, so the tutor knows which answers to hold back.
	Questions []string
}

// GuardOf is the guard on userID's questions about lessonID: nil unless
// they are a member bound by a policy that guides only during checks
// (see organization_policy.go) and hold a check on the lesson that is
// neither finished nor deleted. One statement, read by primary keys and
// the user's checks index.
func (s *Checks) GuardOf(ctx context.Context, userID, lessonID string) (*CheckGuard, error) {
	if !validID(userID) || lessonID == "" {
		return nil, nil
	}
	var rows []struct {
		ConversationID string
		Question       *string
	}
	err := conn(ctx, s.db).Raw(`SELECT k.conversation_id, i.question
		FROM users u
		JOIN organization_members om ON om.user_id = u.id
		JOIN organizations o ON o.id = om.organization_id AND o.guide_during_checks
		JOIN checks k ON k.user_id = u.id AND k.finished_at IS NULL
		JOIN conversations c ON c.id = k.conversation_id AND c.deleted_at IS NULL
		LEFT JOIN check_items i ON i.conversation_id = k.conversation_id
		WHERE u.id = ? AND `+boundBy("u")+`
		  AND EXISTS (SELECT 1 FROM check_sections cs WHERE cs.conversation_id = k.conversation_id AND cs.lesson_id = ?)
		ORDER BY k.created_at, i.position`, userID, lessonID).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("open checks under the policy: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	g := &CheckGuard{}
	for _, r := range rows {
		if r.Question != nil {
			g.Questions = append(g.Questions, *r.Question)
		}
	}
	return g, nil
}
