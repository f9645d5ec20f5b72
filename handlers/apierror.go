package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/tutor"
)

// APIError is an error of the JSON API with its own code; the central
// error handler writes it as {"error":{"code","message"}}.
type APIError struct {
	Status  int
	Code    string
	Message string
}

// Error describes the refusal.
func (e *APIError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// APIErr is a refusal of the API with status, code and a formatted message.
func APIErr(status int, code, format string, args ...any) *APIError {
	return &APIError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Codes of the JSON API's errors (also the MCP tools' error texts).
const (
	CodeInvalidJSON    = "INVALID_JSON"
	CodeUnauthorized   = "UNAUTHORIZED"
	CodeNotFound       = "NOT_FOUND"
	CodeTooLarge       = "PAYLOAD_TOO_LARGE"
	CodeQuota          = "QUOTA_EXCEEDED"
	CodeUnavailable    = "SERVICE_UNAVAILABLE"
	CodeEmptyMessage   = "EMPTY_MESSAGE"
	CodeTooLong        = "MESSAGE_TOO_LONG"
	CodeUnknownLesson  = "UNKNOWN_LESSON"
	CodeUnknownModule  = "UNKNOWN_MODULE"
	CodeInvalidHistory = "INVALID_HISTORY"
	CodeInvalidParam   = "INVALID_PARAMETER"
	CodeInvalidRating  = "INVALID_RATING"
	CodeNotRateable    = "NOT_RATEABLE"
	CodeInvalidMode    = "INVALID_MODE"
	CodeInvalidStyle   = "INVALID_STYLE"
	CodeLessonRequired = "LESSON_REQUIRED"
	CodeTimeout        = "TIMEOUT"
	CodeInterrupted    = "INTERRUPTED"
	CodeEmptyAnswer    = "EMPTY_ANSWER"
	CodeNotRetryable   = "NOT_RETRYABLE"
	CodeInvalidText    = "INVALID_TEXT"
	CodeCheckFinished  = "CHECK_FINISHED"
	CodeUngraded       = "NOT_GRADED"
	CodeNothingToAsk   = "NOTHING_TO_ASK"
	CodeUnknownSection = "UNKNOWN_SECTION"
	CodeInvalidPassage = "INVALID_PASSAGE"
	CodePassageTooLong = "PASSAGE_TOO_LONG"
	// CodeHelpOff is a help question from a member whose organization
	// turned help mode off.
	CodeHelpOff = "HELP_MODE_OFF"
)

// The refusals every token-authenticated door shares.
var (
	// ErrUnauthorized answers a missing, unknown or revoked token.
	ErrUnauthorized = &APIError{http.StatusUnauthorized, CodeUnauthorized, "a valid personal API token is required: Authorization: Bearer <token>"}
	// ErrAPINotFound answers an id the user does not own, or no route.
	ErrAPINotFound = &APIError{http.StatusNotFound, CodeNotFound, "not found"}
)

// IsAPIPath reports whether errors on the path are answered as JSON.
func IsAPIPath(path string) bool {
	return strings.HasPrefix(path, "/api/") || path == "/mcp" || strings.HasPrefix(path, "/mcp/")
}

// writeAPIError answers status as the API's JSON error; ae, when the
// handler returned one, carries the code and message.
func writeAPIError(c echo.Context, status int, ae *APIError) {
	code := strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_"))
	msg := http.StatusText(status)
	switch status {
	case http.StatusRequestEntityTooLarge:
		code, msg = CodeTooLarge, "the request body is larger than the API accepts"
	case http.StatusNotFound:
		code, msg = CodeNotFound, "not found"
	case http.StatusUnauthorized:
		code, msg = CodeUnauthorized, ErrUnauthorized.Message
	case http.StatusInternalServerError:
		code, msg = "INTERNAL_ERROR", "aula hit an unexpected error; it has been logged"
	}
	if ae != nil {
		code, msg = ae.Code, ae.Message
	}
	if status == http.StatusUnauthorized {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="aula"`)
	}
	_ = c.JSON(status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

// StreamErrorCode maps the tutor's lower-case failure codes to the API's:
// timeouts, a restart and an empty answer are told apart; every provider
// or configuration failure is SERVICE_UNAVAILABLE.
func StreamErrorCode(code string) string {
	switch code {
	case tutor.CodeFirstTokenTimeout, tutor.CodeAnswerTimeout:
		return CodeTimeout
	case tutor.CodeInterrupted:
		return CodeInterrupted
	case tutor.CodeEmptyAnswer:
		return CodeEmptyAnswer
	default:
		return CodeUnavailable
	}
}

// asAPIError reports err as the API's error, if it is one.
func asAPIError(err error) (*APIError, bool) {
	var ae *APIError
	ok := errors.As(err, &ae)
	return ae, ok
}
