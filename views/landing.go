package views

import (
	"context"
	"html"
	"time"

	"aula/i18n"
	"aula/models"
)

// landingDemo is the tutor panel of the landing page: the real component
// filled with an example exchange in the visitor's language, so the
// picture never drifts from what students see.
func landingDemo(ctx context.Context) PanelView {
	answer := "<p>" + html.EscapeString(i18n.T(ctx, "landing.demo_answer")) + "</p>"
	return PanelView{
		Open: true, PathSlug: "demo", LessonID: "demo", LessonTitle: i18n.T(ctx, "landing.demo_lesson"),
		FirstName: "Ana", Badge: "aula tutor",
		Conversation: &models.Conversation{ID: "demo", Style: models.StyleExplain},
		Messages: []MessageView{
			{ID: "demo-q", Role: models.RoleUser, Status: models.StatusComplete, Content: i18n.T(ctx, "landing.demo_question"), InPanel: true},
			{ID: "demo-a", Role: models.RoleAssistant, Status: models.StatusComplete, HTML: answer, Rating: models.RatingUp, InPanel: true,
				Receipt: &ReceiptView{Citations: []CitationView{
					{Heading: i18n.T(ctx, "landing.demo_section"), URL: "#demo"},
					{Heading: i18n.T(ctx, "landing.demo_section_2"), URL: "#demo"},
				}, TurnsSent: 1, Style: models.StyleExplain, Lang: i18n.Lang(ctx)}},
		},
		Usage: models.QuotaUsage{Plan: models.PlanFree, Used: 1, Limit: 3, ResetAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)},
		Form:  AskForm{Action: "/signup", Target: "#messages", Swap: "beforeend"},
	}
}
