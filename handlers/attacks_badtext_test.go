package handlers_test

import (
	"cmp"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"aula/internal/apptest"
	"aula/models"
)

// dbLeak matches what a database error text looks like in a response.
var dbLeak = regexp.MustCompile(`(?i)sqlstate|invalid byte sequence|pgx|postgres|gorm|0x00`)

// badBytes are the two kinds of text PostgreSQL refuses, percent-encoded.
var badBytes = map[string]string{"NUL": "%00", "invalid UTF-8": "%FF%FE"}

// TestAttackBadBytesOnEveryRoute walks every route of every door and sends
// a NUL byte and invalid UTF-8 in a path segment, the query, a form field
// and a JSON string. Each must be a 4xx without any database error text;
// before the edge validation 18 routes answered 500.
func TestAttackBadBytesOnEveryRoute(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "bytes@example.com", "bad bytes password", models.PlanPro)
	c := s.SignIn(t, "bytes@example.com", "bad bytes password")
	csrf := c.Get("/settings").CSRF()
	token := apptest.APIToken(t, s, u.ID)
	cid := apptest.NewThread(t, c)
	tried, held, fivehundreds := 0, 0, 0
	routes := s.Handler.Routes()
	// Signing out ends the session every other route is tried with: last.
	last := func(r *echo.Route) int {
		if strings.HasSuffix(r.Path, "/logout") {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(routes, func(a, b *echo.Route) int { return cmp.Compare(last(a), last(b)) })
	for _, r := range routes {
		if r.Method == "" || r.Path == "" || strings.HasPrefix(r.Path, "/static") {
			continue
		}
		for name, bad := range badBytes {
			for _, req := range badRequests(s.URL, r.Method, r.Path, cid, bad, csrf) {
				if strings.HasPrefix(r.Path, "/api/") || r.Path == "/mcp" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				tried++
				p := c.Do(req)
				where := r.Method + " " + req.URL.String() + " (" + name + ")"
				switch {
				case p.Status >= 500:
					fivehundreds++
					t.Errorf("%s: %d, want a 4xx", where, p.Status)
				case p.Status < 400 && p.Status != 0:
					t.Errorf("%s: %d, the bad bytes were accepted", where, p.Status)
				case dbLeak.MatchString(p.Body):
					t.Errorf("%s: the response shows a database error: %.300s", where, p.Body)
				default:
					held++
				}
			}
		}
	}
	t.Logf("bad-bytes attacks: %d tried, %d held, %d answered 5xx", tried, held, fivehundreds)
}

// badRequests builds the requests that carry bad in each place the route
// reads text from: a path segment (when it has one), the query, and the
// body as the route's door reads it (a form, or JSON for the API and MCP).
func badRequests(base, method, path, cid, bad, csrf string) []*http.Request {
	good := fillPath(path, cid, "")
	var reqs []*http.Request
	if strings.Contains(path, ":") || strings.Contains(path, "*") {
		reqs = append(reqs, newReq(method, base+fillPath(path, cid, bad), "", ""))
	}
	reqs = append(reqs, newReq(method, base+good+"?q="+bad+"&next="+bad, "", ""))
	if method == http.MethodGet || method == http.MethodHead {
		return reqs
	}
	if strings.HasPrefix(path, "/api/") || path == "/mcp" {
		for _, raw := range []string{`{"message":"a\u0000b","title":"\u0000","jsonrpc":"2.0","id":1,"method":"tools/call",` +
			`"params":{"name":"ask","arguments":{"question":"x\u0000"}}}`, "{\"message\":\"a\xff\xfeb\"}"} {
			// Also without the JSON content type: the API decodes any body.
			for _, ct := range []string{"application/json", "text/plain", ""} {
				reqs = append(reqs, newReq(method, base+good, raw, ct))
			}
		}
		return reqs
	}
	form := "_csrf=" + url.QueryEscape(csrf)
	for _, f := range []string{"email", "password", "name", "content", "text", "title", "style", "plan", "question", "locale"} {
		form += "&" + f + "=a" + bad
	}
	return append(reqs, newReq(method, base+good, form, "application/x-www-form-urlencoded"))
}

// fillPath puts real ids in a route's parameters, and bad in the last one.
func fillPath(path, cid, bad string) string {
	parts := strings.Split(path, "/")
	last := -1
	for i, p := range parts {
		if strings.HasPrefix(p, ":") || p == "*" {
			last = i
			parts[i] = "x"
			if p == ":cid" || p == ":id" {
				parts[i] = cid
			}
		}
	}
	if bad != "" && last >= 0 {
		parts[last] += bad
	}
	return strings.Join(parts, "/")
}

func newReq(method, target, body, contentType string) *http.Request {
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}
