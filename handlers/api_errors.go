package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/tutor"
)

// apiError is an error of the JSON API with its own code; the central
// error handler writes it as {"error":{"code","message"}}.
type apiError struct {
	Status  int
	Code    string
	Message string
}

// Error describes the refusal.
func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func apiErr(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Codes of the JSON API's errors (also the MCP tools' error texts).
const (
	codeInvalidJSON    = "INVALID_JSON"
	codeUnauthorized   = "UNAUTHORIZED"
	codeNotFound       = "NOT_FOUND"
	codeTooLarge       = "PAYLOAD_TOO_LARGE"
	codeQuota          = "QUOTA_EXCEEDED"
	codeUnavailable    = "SERVICE_UNAVAILABLE"
	codeEmptyMessage   = "EMPTY_MESSAGE"
	codeTooLong        = "MESSAGE_TOO_LONG"
	codeUnknownLesson  = "UNKNOWN_LESSON"
	codeUnknownModule  = "UNKNOWN_MODULE"
	codeInvalidHistory = "INVALID_HISTORY"
	codeInvalidParam   = "INVALID_PARAMETER"
	codeInvalidRating  = "INVALID_RATING"
	codeNotRateable    = "NOT_RATEABLE"
	codeInvalidMode    = "INVALID_MODE"
	codeInvalidStyle   = "INVALID_STYLE"
	codeLessonRequired = "LESSON_REQUIRED"
	codeTimeout        = "TIMEOUT"
	codeInterrupted    = "INTERRUPTED"
	codeEmptyAnswer    = "EMPTY_ANSWER"
)

var (
	errUnauthorized = &apiError{http.StatusUnauthorized, codeUnauthorized, "a valid personal API token is required: Authorization: Bearer <token>"}
	errAPINotFound  = &apiError{http.StatusNotFound, codeNotFound, "not found"}
)

// isAPIPath reports whether errors on the path are answered as JSON.
func isAPIPath(path string) bool {
	return strings.HasPrefix(path, "/api/") || path == "/mcp" || strings.HasPrefix(path, "/mcp/")
}

// writeAPIError answers status as the API's JSON error; ae, when the
// handler returned one, carries the code and message.
func writeAPIError(c echo.Context, status int, ae *apiError) {
	code := strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_"))
	msg := http.StatusText(status)
	switch status {
	case http.StatusRequestEntityTooLarge:
		code, msg = codeTooLarge, "the request body is larger than the API accepts"
	case http.StatusNotFound:
		code, msg = codeNotFound, "not found"
	case http.StatusUnauthorized:
		code, msg = codeUnauthorized, errUnauthorized.Message
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

// streamErrorCode maps the tutor's lower-case failure codes to the API's:
// timeouts, a restart and an empty answer are told apart; every provider
// or configuration failure is SERVICE_UNAVAILABLE.
func streamErrorCode(code string) string {
	switch code {
	case tutor.CodeFirstTokenTimeout, tutor.CodeAnswerTimeout:
		return codeTimeout
	case tutor.CodeInterrupted:
		return codeInterrupted
	case tutor.CodeEmptyAnswer:
		return codeEmptyAnswer
	default:
		return codeUnavailable
	}
}

// asAPIError reports err as the API's error, if it is one.
func asAPIError(err error) (*apiError, bool) {
	var ae *apiError
	ok := errors.As(err, &ae)
	return ae, ok
}
