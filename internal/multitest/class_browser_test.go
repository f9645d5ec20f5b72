package multitest

import (
	"bufio"
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
// the site (not measured), has a thread open, and has begun typing, so
// the page holds its next answer's event stream open (ask.js opens it on
// the first keystroke; views/nextanswer.templ). At the same moment every
// student posts the ask form as HTMX does (session cookie + CSRF token,
// the ticket of that stream); the answer comes on the open stream. First
// token is the time from the POST to the first chunk event.

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
	// ticket and next are the page's next answer: its ticket and stream,
	// and events, that stream once open.
	ticket, next string
	events       *bufio.Scanner
	res          *http.Response
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
	cb := &classBrowser{br: br, cid: strings.TrimPrefix(loc, "/chat/")}
	return cb, cb.readThread(ctx, base)
}

// nextStream finds the page's next answer: its ticket and its stream.
var nextStream = regexp.MustCompile(`data-ticket="([0-9a-f]{32})" data-stream="(/answers/next/[^"]+)"`)

// readThread reads the thread's page: its CSRF token and next answer.
func (cb *classBrowser) readThread(ctx context.Context, base string) error {
	res, err := cb.br.do(ctx, http.MethodGet, base+"/chat/"+cb.cid, nil, nil)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	m := nextStream.FindSubmatch(body)
	if !cb.br.keepCSRF(body) || m == nil {
		return fmt.Errorf("thread page: status %d, no CSRF token or next answer", res.StatusCode)
	}
	cb.ticket, cb.next = string(m[1]), html.UnescapeString(string(m[2]))
	return nil
}

// rereadThreads reads every student's thread page again, as the page
// stands once its answer is done: its next answer's ticket and stream
// are the follow-up's.
func rereadThreads(base string, class []*classBrowser) error {
	for _, cb := range class {
		if err := cb.readThread(context.Background(), base); err != nil {
			return err
		}
	}
	return nil
}

// openNext opens the next answer's stream as the page does when its
// student starts typing, and reads its first line: the server has
// registered it by then.
func (cb *classBrowser) openNext(base string) error {
	res, err := cb.br.openStream(context.Background(), base+cb.next, "")
	if err != nil {
		return err
	}
	cb.res, cb.events = res, newEventScanner(res)
	if !cb.events.Scan() || !strings.HasPrefix(cb.events.Text(), "retry:") {
		res.Body.Close()
		return fmt.Errorf("next answer's stream: no retry line (%v)", cb.events.Err())
	}
	return nil
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

// browserAsk posts the ask form as HTMX does, with the ticket of the
// next answer's stream the page holds open, and reads the answer there
// to its end; it returns the first-chunk and total times.
func (cb *classBrowser) browserAsk(base string, i int) (first, total time.Duration, err error) {
	defer cb.res.Body.Close()
	ctx := context.Background()
	t0 := time.Now()
	cb.br.mu.Lock()
	tok := cb.br.csrf
	cb.br.mu.Unlock()
	res, err := cb.br.do(ctx, http.MethodPost, base+"/chat/"+cb.cid+"/messages",
		url.Values{"content": {classQuestion(i)}, "next": {cb.ticket}},
		map[string]string{"HX-Request": "true", "X-CSRF-Token": tok})
	if err != nil {
		return 0, 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Aula-Next-Answer") != cb.ticket {
		return 0, 0, fmt.Errorf("ask: status %d, the next answer's stream not handed the answer", res.StatusCode)
	}
	done := false
	err = readEvents(cb.events, func(ev sseEvent) bool {
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

// browsersAtOnce has every student start typing (their pages open the
// next answer's stream, a few at a time, not timed), then ask at the
// same moment.
func browsersAtOnce(base string, class []*classBrowser) burst {
	work := make(chan *classBrowser)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []*classBrowser
	for range 16 {
		wg.Go(func() {
			for cb := range work {
				if err := cb.openNext(base); err != nil {
					mu.Lock()
					failed = append(failed, cb)
					mu.Unlock()
				}
			}
		})
	}
	for _, cb := range class {
		work <- cb
	}
	close(work)
	wg.Wait()
	if len(failed) > 0 {
		return burst{Errs: len(class)}
	}
	return atOnce(len(class), func(i int) (time.Duration, time.Duration, error) { return class[i].browserAsk(base, i) })
}
