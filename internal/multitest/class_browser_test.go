package multitest

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// The class benchmark's browser path: each student is signed in through
// the site (not measured), has a thread open, and at the same moment
// posts the ask form as HTMX does (session cookie + CSRF token), then
// opens the answer's event stream as the SSE extension does. First token
// is the time from the POST to the first chunk event.

// classPassword is every class student's password (one hash for all).
const classPassword = "class-password-4417"

// classBrowsers signs in every student of a class through base and opens
// a thread for each, a few at a time (the site bounds password hashing).
func classBrowsers(base string, emails []string) ([]*classBrowser, error) {
	out := make([]*classBrowser, len(emails))
	work := make(chan int)
	errs := make(chan error, len(emails))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range work {
				cb, err := signIn(base, emails[i], i)
				if err != nil {
					errs <- fmt.Errorf("student %d: %w", i, err)
					continue
				}
				out[i] = cb
			}
		})
	}
	for i := range emails {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	return out, <-errs
}

// classBrowser is one signed-in student with a thread open.
type classBrowser struct {
	br  *browser
	cid string
}

// signIn signs a student in, reads the CSRF token and opens a thread.
func signIn(base, email string, i int) (*classBrowser, error) {
	br := newBrowser()
	br.addr = fmt.Sprintf("198.19.%d.%d", i/250, i%250+1)
	ctx := context.Background()
	if err := br.fetchCSRF(ctx, base+"/login"); err != nil {
		return nil, err
	}
	res, err := br.do(ctx, http.MethodPost, base+"/login", url.Values{"email": {email}, "password": {classPassword}}, nil)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("login: status %d", res.StatusCode)
	}
	if err := br.fetchCSRF(ctx, base+"/learn"); err != nil {
		return nil, err
	}
	res, err = br.do(ctx, http.MethodPost, base+"/chat", url.Values{"mode": {"tutor"}}, nil)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/chat/") {
		return nil, fmt.Errorf("new thread: status %d, location %q", res.StatusCode, loc)
	}
	return &classBrowser{br: br, cid: strings.TrimPrefix(loc, "/chat/")}, nil
}

// fetchCSRF GETs a page and keeps its CSRF token.
func (b *browser) fetchCSRF(ctx context.Context, u string) error {
	res, err := b.do(ctx, http.MethodGet, u, nil, nil)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if !b.keepCSRF(body) {
		return fmt.Errorf("no CSRF token on %s (status %d)", u, res.StatusCode)
	}
	return nil
}

// sseConnect finds the answer's event stream in the ask's fragment: the
// URL the page's SSE extension opens (the bubble asks for its Markdown
// rendered as it grows).
var sseConnect = regexp.MustCompile(`sse-connect="(/messages/[0-9a-f-]{36}/stream[^"]*)"`)

// browserAsk posts the ask form as HTMX does and reads the answer's
// event stream, opened as the page opens it, to its end; it returns the
// first-chunk and total times.
func (cb *classBrowser) browserAsk(base string, i int) (first, total time.Duration, err error) {
	ctx := context.Background()
	t0 := time.Now()
	cb.br.mu.Lock()
	tok := cb.br.csrf
	cb.br.mu.Unlock()
	res, err := cb.br.do(ctx, http.MethodPost, base+"/chat/"+cb.cid+"/messages",
		url.Values{"content": {classQuestion(i)}},
		map[string]string{"HX-Request": "true", "X-CSRF-Token": tok})
	if err != nil {
		return 0, 0, err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := sseConnect.FindSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil {
		return 0, 0, fmt.Errorf("ask: status %d", res.StatusCode)
	}
	done := false
	err = cb.br.streamAt(ctx, base+html.UnescapeString(string(m[1])), "", func(ev sseEvent) bool {
		if ev.name == "chunk" && first == 0 {
			first = time.Since(t0)
		}
		if ev.name == "done" || ev.name == "error" {
			done = ev.name == "done"
			return false
		}
		return true
	})
	if err == nil && !done {
		err = fmt.Errorf("stream ended without done")
	}
	return first, time.Since(t0), err
}

// browsersAtOnce has every student ask at the same moment.
func browsersAtOnce(base string, class []*classBrowser) (firsts, totals []time.Duration, errs int) {
	return atOnce(len(class), func(i int) (time.Duration, time.Duration, error) { return class[i].browserAsk(base, i) })
}
