package handlers

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// errBadText refuses input aula cannot store: PostgreSQL text holds no NUL
// character and only valid UTF-8, so such bytes would otherwise reach the
// database and come back as a 500 carrying its error text.
var errBadText = errors.New("the request contains a NUL character or bytes that are not UTF-8")

// BadTextMessage is the i18n key of the page that explains errBadText.
const BadTextMessage = "error.bad_text"

// maxFormMemory is what a multipart form keeps in memory (Echo's own default).
const maxFormMemory = 32 << 20

// validText reports whether s can be stored as PostgreSQL text.
func validText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

// rejectBadText validates every text a request carries at the edge, before
// any handler sees it: the path, the query, form fields (url-encoded and
// multipart; uploaded files are bytes and stay as they are) and JSON
// bodies, MCP arguments included. A bad byte is errBadText, a 400.
func rejectBadText(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := checkText(c.Request(), !checksOwnText[c.Request().Method+" "+c.Path()]); err != nil {
			return err
		}
		return next(c)
	}
}

// checksOwnText are the routes whose handler refuses a form's bad text
// itself (their path and query are still checked here): the lesson editor
// answers 422 with everything the author typed kept in the form, where a
// refusal at the edge would throw a whole lesson away for one stray byte.
// Echo has routed the request before this middleware runs, so c.Path() is
// the route's pattern.
var checksOwnText = map[string]bool{"POST /admin/content/lessons/:id": true}

// checkText is rejectBadText's check, a call of its own so that its
// locals are not in the middleware's frame, which stays on the stack
// under every handler while an answer streams (see logRequests); body
// false leaves the body to the handler.
func checkText(r *http.Request, body bool) error {
	if !validText(r.URL.Path) || !validText(r.URL.RawPath) {
		return errBadText
	}
	if q, err := url.ParseQuery(r.URL.RawQuery); err != nil || !validValues(q) {
		return errBadText
	}
	if !body {
		return nil
	}
	return checkBody(r)
}

func validValues(v url.Values) bool {
	for k, vs := range v {
		if !validText(k) {
			return false
		}
		for _, s := range vs {
			if !validText(s) {
				return false
			}
		}
	}
	return true
}

// checkBody validates the body's text by its content type; a body that
// cannot be read is left for the handler to refuse as it does today.
func checkBody(r *http.Request) error {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	switch {
	case IsAPIPath(r.URL.Path) || ct == echo.MIMEApplicationJSON || strings.HasSuffix(ct, "+json"):
		// The API and MCP decode their body as JSON whatever it is
		// labelled: curl -d without a Content-Type says it is a form, and
		// parsing it as one here would leave the handler no body to read.
		body, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			return err
		}
		if !utf8.Valid(body) || jsonHasNUL(body) {
			return errBadText
		}
	case ct == echo.MIMEApplicationForm:
		err := r.ParseForm()
		if err == nil && !validValues(r.PostForm) {
			return errBadText
		}
		return cutOff(err)
	case ct == echo.MIMEMultipartForm:
		err := r.ParseMultipartForm(maxFormMemory)
		if err == nil && !validValues(r.MultipartForm.Value) {
			return errBadText
		}
		return cutOff(err)
	}
	return nil
}

// cutOff is the body limit's 413 when it cut off the form being parsed
// (a body streamed without a length, past maxBody): said here, it is not
// taken for a form missing its CSRF token or its fields.
func cutOff(err error) error {
	if errors.Is(err, echo.ErrStatusRequestEntityTooLarge) {
		return err
	}
	return nil
}

// jsonHasNUL reports a \u0000 escape in a JSON text: encoding/json decodes
// it into a NUL character. Backslashes only occur inside strings, each
// starting one escape, so walking escape by escape cannot misread "\\u0000"
// (an escaped backslash and the letters u0000).
func jsonHasNUL(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			continue
		}
		if b[i+1] == 'u' && bytes.HasPrefix(b[i+2:], []byte("0000")) {
			return true
		}
		i++ // skip the escaped character
	}
	return false
}
