package tutor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
)

// Error codes of ProviderError, stable for fronts and metrics.
const (
	CodeRateLimited     = "rate_limited"     // HTTP 429
	CodeUpstreamError   = "upstream_error"   // 5xx, or an error the provider reported
	CodeAuthFailed      = "auth_failed"      // 401, 403: key wrong or revoked
	CodeBadRequest      = "bad_request"      // other 4xx: unknown model, prompt too long
	CodeTimeout         = "timeout"          // the deadline passed before the answer ended
	CodeCancelled       = "cancelled"        // the caller cancelled ctx
	CodeMalformedStream = "malformed_stream" // the stream could not be parsed or ended early
	CodeUnavailable     = "unavailable"      // no connection to the upstream
	CodeAborted         = "aborted"          // onToken returned an error
)

// ProviderError is every error Stream returns: a stable Code for fronts to
// show a clear message, the upstream HTTP status when there was one, and the
// cause (errors.Is(err, context.Canceled) works through it).
type ProviderError struct {
	Provider string
	Code     string
	Status   int
	Err      error
}

// Error describes the failure with its code and cause.
func (e *ProviderError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s: %s (HTTP %d): %v", e.Provider, e.Code, e.Status, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.Provider, e.Code, e.Err)
}

// Unwrap returns the cause.
func (e *ProviderError) Unwrap() error { return e.Err }

// ErrorCode returns the Code of a ProviderError in err's chain, or "" if
// there is none.
func ErrorCode(err error) string {
	if pe, ok := errors.AsType[*ProviderError](err); ok {
		return pe.Code
	}
	return ""
}

// classify maps a langchaingo error and the HTTP status seen on the wire to
// a ProviderError code.
func classify(err error, status int) (string, int) {
	switch {
	case status == http.StatusTooManyRequests:
		return CodeRateLimited, status
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return CodeAuthFailed, status
	case status >= 500:
		return CodeUpstreamError, status
	case status >= 400:
		return CodeBadRequest, status
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout, 0
	case errors.As(err, &netErr) && netErr.Timeout():
		return CodeTimeout, 0
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, bufio.ErrTooLong),
		errors.Is(err, anthropic.ErrEmptyResponse), errors.Is(err, openai.ErrEmptyResponse):
		return CodeMalformedStream, 0
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return CodeUnavailable, 0
	}
	return CodeUpstreamError, 0
}
