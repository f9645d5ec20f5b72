package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"aula/handlers"
)

// startCheckBody opens a knowledge check.
type startCheckBody struct {
	LessonID string `json:"lessonId"`
	Anchor   string `json:"anchor"` // one section of the lesson; "" for the whole lesson
}

// answerCheckBody answers a check's current question.
type answerCheckBody struct {
	Answer string `json:"answer"`
	// Position, when given, is the question answered; an answer to any
	// other than the current one is refused (CHECK_FINISHED).
	Position int `json:"position"`
}

// apiStartCheck opens a check over a lesson or one of its sections and
// answers it with its first question (201).
func (a *App) apiStartCheck(c echo.Context) error {
	var b startCheckBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	st, err := a.Outside.StartCheck(c.Request().Context(), handlers.UserFrom(c), b.LessonID, b.Anchor)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, handlers.CheckView(st))
}

// apiGetCheck is one of the user's checks; someone else's is a 404.
func (a *App) apiGetCheck(c echo.Context) error {
	st, err := a.Outside.Check(c.Request().Context(), handlers.UserFrom(c).ID, c.Param("checkId"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, handlers.CheckView(st))
}

// apiAnswerCheck grades the answer to the current question and gives the
// check with the verdict (last) and the next question (current).
func (a *App) apiAnswerCheck(c echo.Context) error {
	var b answerCheckBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	st, err := a.Outside.AnswerCheck(c.Request().Context(), handlers.UserFrom(c), c.Param("checkId"), b.Position, b.Answer)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, handlers.CheckView(st))
}
