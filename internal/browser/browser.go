// Package browser is the chromedp harness of aula's browser tests: Debian's
// chromium, headless, with a fresh profile per test, a per-test timeout,
// and a screenshot plus the page's HTML saved when a step fails.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// DefaultTimeout bounds one test's whole use of the browser.
const DefaultTimeout = 2 * time.Minute

// StepTimeout bounds one step (a navigation, a wait, a click).
const StepTimeout = 20 * time.Second

// Flags are exactly the command-line switches the browser starts with
// (chromedp adds only its pipe and the temporary --user-data-dir).
var Flags = []string{"headless", "no-sandbox", "disable-gpu", "disable-background-networking",
	"disable-component-update", "disable-sync", "no-first-run"}

type config struct {
	noJS    bool
	timeout time.Duration
}

// Option changes how New starts the browser.
type Option func(*config)

// WithoutJavaScript turns script execution off in the page, the way a
// browser without JavaScript behaves.
func WithoutJavaScript() Option { return func(c *config) { c.noJS = true } }

// WithTimeout replaces DefaultTimeout for this test.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// Browser is one headless chromium tab bound to a test.
type Browser struct {
	T   testing.TB
	Ctx context.Context // the tab's context; cancelled at the end of the test
	// NoJS reports whether JavaScript is disabled in the page.
	NoJS bool

	name   string // a Session's, in its screenshot's name
	dumped bool
}

// ExecPath returns Debian's chromium: /usr/bin/chromium, else chromium on PATH.
func ExecPath() (string, error) {
	if fi, err := os.Stat("/usr/bin/chromium"); err == nil && !fi.IsDir() {
		return "/usr/bin/chromium", nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("chromium not found at /usr/bin/chromium or on PATH; install chromium: apt-get install -y chromium")
}

// New starts headless chromium for t and opens a blank tab. It fails the
// test (never skips it) when chromium is missing. Everything is stopped and
// the profile removed when the test ends.
func New(t testing.TB, opts ...Option) *Browser {
	t.Helper()
	cfg := config{timeout: DefaultTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	path, err := ExecPath()
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	profile, err := os.MkdirTemp("", "aula-chromium-")
	if err != nil {
		t.Fatalf("browser: profile dir: %v", err)
	}
	allocOpts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(path), chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900)}
	for _, f := range Flags {
		allocOpts = append(allocOpts, chromedp.Flag(f, true))
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), cfg.timeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, allocOpts...)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithErrorf(func(format string, args ...any) {
		t.Logf("chromium: "+format, args...)
	}))
	b := &Browser{T: t, Ctx: tabCtx, NoJS: cfg.noJS}
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
		_ = os.RemoveAll(profile)
	})
	if err := b.open(); err != nil {
		t.Fatalf("browser: start %s: %v (install chromium: apt-get install -y chromium)", path, err)
	}
	return b
}

// Session opens a tab of the same chromium in a browser context of its
// own (its own cookies and storage), as another person on another
// computer would use the site, with JavaScript as in b. name tells its
// screenshot apart when the test fails. It closes when the test ends.
func (b *Browser) Session(name string) *Browser {
	b.T.Helper()
	ctx, cancel := chromedp.NewContext(b.Ctx, chromedp.WithNewBrowserContext())
	s := &Browser{T: b.T, Ctx: ctx, NoJS: b.NoJS, name: name}
	b.T.Cleanup(cancel)
	if err := s.open(); err != nil {
		b.T.Fatalf("browser: open the session %s: %v", name, err)
	}
	return s
}

// open starts the tab and turns JavaScript off when NoJS says so. Its
// cleanup is registered after the caller's stop, so it runs first: a
// test that failed outside the helpers still leaves a screenshot behind.
func (b *Browser) open() error {
	b.T.Cleanup(func() {
		if b.T.Failed() && !b.dumped {
			b.dump()
		}
	})
	if err := chromedp.Do(b.Ctx); err != nil {
		return err
	}
	if b.NoJS {
		if _, err := chromedp.Call(b.Ctx, emulation.SetScriptExecutionDisabled,
			emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			return fmt.Errorf("disable JavaScript: %w", err)
		}
	}
	return nil
}

// step runs actions with the step timeout and fails the test with a
// screenshot and the page's HTML when they fail.
func (b *Browser) step(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, StepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.Fatalf("%s: %v", what, err)
	}
}

// value runs one action that reads the page and returns what it read; it
// fails the test like step, after the retries of again.
func value[T any](b *Browser, what string, a chromedp.Action[T]) T {
	b.T.Helper()
	v, err := again(b, a)
	if err != nil {
		b.Fatalf("%s: %v", what, err)
	}
	return v
}

// again runs an action that only reads the page, within the step timeout.
// A page that replaces itself meanwhile (a refresh, a redirect, a reload)
// is read again: what the read had found went away with the old document,
// and the new one is the page shown now. Actions that change the page
// (clicks, typing) are never run twice.
func again[T any](b *Browser, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(b.Ctx, StepTimeout)
	defer cancel()
	for {
		v, err := chromedp.Run(ctx, a)
		if err == nil || !replaced(err) || ctx.Err() != nil {
			return v, err
		}
		// The new document's context may not have reached chromedp yet.
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// WaitFor waits until the JavaScript predicate expr holds in the page,
// polled inside it every 20 ms; polling starts again in the new document
// when the page is replaced meanwhile. It needs JavaScript on.
func (b *Browser) WaitFor(what, expr string) {
	b.T.Helper()
	if _, err := again(b, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(20*time.Millisecond),
		chromedp.WithPollingTimeout(StepTimeout))); err != nil {
		b.Fatalf("waiting for %s (%s): %v", what, expr, err)
	}
}

// replaced reports whether err says the document was replaced under a
// read: its node ids or its JavaScript context no longer exist.
func replaced(err error) bool {
	var e *cdproto.Error
	if !errors.As(err, &e) {
		return false
	}
	for _, gone := range []string{"No node with given id", "Could not find node with given id",
		"Cannot find context with specified id", "Execution context was destroyed"} {
		if strings.Contains(e.Message, gone) {
			return true
		}
	}
	return false
}

// Navigate opens url and waits for it to load.
func (b *Browser) Navigate(url string) {
	b.T.Helper()
	b.step("navigate to "+url, chromedp.Navigate(url))
}

// Reload reloads the page and waits for the load.
func (b *Browser) Reload() {
	b.T.Helper()
	b.step("reload", chromedp.Reload())
}

// Fill replaces the value of the input matched by sel with text, by typing it.
func (b *Browser) Fill(sel, text string) {
	b.T.Helper()
	b.step("fill "+sel, chromedp.Clear(chromedp.CSS(sel)), chromedp.SendKeys(chromedp.CSS(sel), text))
}

// Click clicks the element matched by sel, without waiting for anything.
func (b *Browser) Click(sel string) {
	b.T.Helper()
	b.step("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// ClickAndWait clicks the element matched by sel (a link or a submit
// button) and waits until the page it leads to has loaded.
func (b *Browser) ClickAndWait(sel string) {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, StepTimeout)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel))))
	if err != nil {
		b.Fatalf("click %s and wait for the next page: %v", sel, err)
	}
}

// WaitVisible waits until an element matched by sel is visible.
func (b *Browser) WaitVisible(sel string) {
	b.T.Helper()
	b.step("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
}

// WaitReady waits until an element matched by sel is in the page.
func (b *Browser) WaitReady(sel string) {
	b.T.Helper()
	b.step("wait for "+sel, chromedp.WaitReady(chromedp.CSS(sel)))
}

// Has reports whether the page has an element matched by sel now.
func (b *Browser) Has(sel string) bool {
	b.T.Helper()
	return b.Doc().Find(sel).Length() > 0
}

// HTML is the page's current DOM serialized (read through the DevTools DOM
// domain, so it works with JavaScript disabled too).
func (b *Browser) HTML() string {
	b.T.Helper()
	return value(b, "read the page's HTML", chromedp.OuterHTML(chromedp.CSS("html")))
}

// Doc is the page's current DOM, parsed.
func (b *Browser) Doc() *goquery.Document {
	b.T.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.HTML()))
	if err != nil {
		b.Fatalf("parse the page's HTML: %v", err)
	}
	return doc
}

// Text is the whitespace-collapsed text of the elements matched by sel
// ("" when none match).
func (b *Browser) Text(sel string) string {
	b.T.Helper()
	return strings.Join(strings.Fields(b.Doc().Find(sel).Text()), " ")
}

// Attr returns the attribute name of the first element matched by sel.
func (b *Browser) Attr(sel, name string) (string, bool) {
	b.T.Helper()
	return b.Doc().Find(sel).First().Attr(name)
}

// Location is the URL of the page shown.
func (b *Browser) Location() string {
	b.T.Helper()
	return value(b, "read the location", chromedp.Location())
}

// Path is the path of the page shown.
func (b *Browser) Path() string {
	b.T.Helper()
	loc := b.Location()
	if i := strings.Index(loc, "://"); i >= 0 {
		loc = loc[i+3:]
		if j := strings.IndexByte(loc, '/'); j >= 0 {
			loc = loc[j:]
		} else {
			loc = "/"
		}
	}
	if i := strings.IndexAny(loc, "?#"); i >= 0 {
		loc = loc[:i]
	}
	return loc
}

// Screenshot saves a full-page PNG into the test's temp folder (or into
// $AULA_SCREENSHOT_DIR, which outlives the test) and returns its path.
func (b *Browser) Screenshot(name string) (string, error) {
	ctx, cancel := context.WithTimeout(b.Ctx, StepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return "", err
	}
	dir := os.Getenv("AULA_SCREENSHOT_DIR")
	if dir == "" {
		dir = b.T.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file := filepath.Join(dir, name+".png")
	return file, os.WriteFile(file, png, 0o644)
}

// dump logs a screenshot's path and the page's HTML, for a failed test.
func (b *Browser) dump() {
	b.dumped = true
	if b.Ctx.Err() != nil {
		b.T.Logf("browser: no screenshot, the browser is gone: %v", b.Ctx.Err())
		return
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(strings.TrimSuffix(b.T.Name()+"/"+b.name, "/"))
	if file, err := b.Screenshot(name); err != nil {
		b.T.Logf("browser: screenshot failed: %v", err)
	} else {
		b.T.Logf("browser: screenshot of the failing page: %s", file)
	}
	ctx, cancel := context.WithTimeout(b.Ctx, StepTimeout)
	defer cancel()
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		b.T.Logf("browser: page HTML unavailable: %v", err)
		return
	}
	b.T.Logf("browser: HTML of %s:\n%s", loc, html)
}

// Fatalf fails the test after saving a screenshot and dumping the page.
func (b *Browser) Fatalf(format string, args ...any) {
	b.T.Helper()
	if !b.dumped {
		b.dump()
	}
	b.T.Fatalf(format, args...)
}

// Errorf reports a failed check; the screenshot is taken when the test ends.
func (b *Browser) Errorf(format string, args ...any) {
	b.T.Helper()
	b.T.Errorf(format, args...)
}

// String describes the browser for messages.
func (b *Browser) String() string { return fmt.Sprintf("chromium (javascript=%v)", !b.NoJS) }

// Evaluate runs expr in the page through DevTools and returns its value.
// It works with JavaScript disabled too: DevTools is not the page.
func Evaluate[T any](b *Browser, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(b.Ctx, StepTimeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr))
}
