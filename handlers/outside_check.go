package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"aula/models"
	"aula/tutor"
)

// CheckJSON is a knowledge check as the JSON API and MCP show it. The
// expected answers are never shown: a student reads them only through
// the feedback of a graded answer.
type CheckJSON struct {
	ID          string  `json:"id"`
	LessonID    *string `json:"lessonId"`
	LessonTitle string  `json:"lessonTitle"`
	Lang        string  `json:"lang"`
	Finished    bool    `json:"finished"`
	MaxItems    int     `json:"maxItems"`
	// Current is the question waiting for an answer, null once finished.
	Current *CheckItemJSON `json:"current"`
	// Last is the question answered last, with its verdict and feedback
	// (or, in the guide style, the hint before a second try); null before
	// the first answer.
	Last  *CheckItemJSON  `json:"last"`
	Items []CheckItemJSON `json:"items"`
	Tally CheckTallyJSON  `json:"tally"`
}

// CheckItemJSON is one question of a check.
type CheckItemJSON struct {
	Position int      `json:"position"`
	LessonID string   `json:"lessonId"`
	Anchor   string   `json:"anchor"`
	Heading  string   `json:"heading"`
	Kind     string   `json:"kind"`
	Question string   `json:"question"`
	Choices  []string `json:"choices"`
	Answer   string   `json:"answer"`
	Verdict  *string  `json:"verdict"`
	Feedback string   `json:"feedback"`
	Attempts int      `json:"attempts"`
}

// CheckTallyJSON counts a check's verdicts so far.
type CheckTallyJSON struct {
	Correct int `json:"correct"`
	Partly  int `json:"partly"`
	NotYet  int `json:"notYet"`
}

// CheckView is st as the API and MCP show it.
func CheckView(st *tutor.CheckState) CheckJSON {
	c := st.Check
	out := CheckJSON{ID: c.ConversationID, LessonID: c.Conversation.LessonID, LessonTitle: st.LessonTitle, Lang: st.Lang,
		Finished: st.Finished(), MaxItems: c.MaxItems, Items: make([]CheckItemJSON, 0, len(c.Items))}
	for _, it := range c.Items {
		out.Items = append(out.Items, checkItemView(st, it))
	}
	if it := st.Current(); it != nil {
		v := checkItemView(st, *it)
		out.Current = &v
	}
	if it := st.Last(); it != nil {
		v := checkItemView(st, *it)
		out.Last = &v
	}
	out.Tally.Correct, out.Tally.Partly, out.Tally.NotYet = st.Tally()
	return out
}

func checkItemView(st *tutor.CheckState, it models.CheckItem) CheckItemJSON {
	choices := []string(it.Choices)
	if choices == nil {
		choices = []string{}
	}
	return CheckItemJSON{Position: it.Position, LessonID: it.LessonID, Anchor: it.Anchor,
		Heading: st.Headings[models.SectionKey(it.LessonID, it.Anchor)], Kind: it.Kind, Question: it.Question,
		Choices: choices, Answer: it.Answer, Verdict: it.Verdict, Feedback: it.Feedback, Attempts: it.Attempts}
}

// StartCheck opens a check of the user over a lesson, or over one of its
// sections when anchor is given, through the same engine as the browser
// (one question of the plan). Refusals are *APIError.
func (a *Outside) StartCheck(ctx context.Context, user *models.User, lessonID, anchor string) (*tutor.CheckState, error) {
	lessonID, anchor = strings.TrimSpace(lessonID), strings.TrimPrefix(strings.TrimSpace(anchor), "#")
	if lessonID == "" {
		return nil, APIErr(http.StatusUnprocessableEntity, CodeLessonRequired, "a check needs a lessonId")
	}
	st, err := a.Tutor.StartCheck(ctx, user, tutor.CheckScope{LessonID: lessonID, Anchor: anchor})
	if errors.Is(err, models.ErrNotFound) {
		if _, lerr := a.Content.Lesson(ctx, lessonID); errors.Is(lerr, models.ErrNotFound) {
			return nil, APIErr(http.StatusUnprocessableEntity, CodeUnknownLesson, "lessonId %q names no lesson", lessonID)
		}
		return nil, APIErr(http.StatusUnprocessableEntity, CodeUnknownSection, "the lesson has no section %q", anchor)
	}
	return st, outsideCheckErr("start check", err)
}

// Check is the user's check id; someone else's is ErrAPINotFound.
func (a *Outside) Check(ctx context.Context, userID, id string) (*tutor.CheckState, error) {
	st, err := a.Tutor.Check(ctx, userID, id)
	return st, outsideCheckErr("read check", err)
}

// AnswerCheck grades the answer to the check's current question (or, when
// position is not 0, to that question only while it is the current one)
// and asks the next one, as in the browser. Refusals are *APIError.
func (a *Outside) AnswerCheck(ctx context.Context, user *models.User, id string, position int, answer string) (*tutor.CheckState, error) {
	st, err := a.Tutor.AnswerCheckAt(ctx, user, id, position, answer)
	return st, outsideCheckErr("answer check", err)
}

// outsideCheckErr is err as the doors of other programs answer it.
func outsideCheckErr(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, models.ErrNotFound):
		return ErrAPINotFound
	}
	if _, _, ok := Refused(err); ok {
		return APIRefusal(err)
	}
	return fmt.Errorf("%s from outside: %w", what, err)
}
