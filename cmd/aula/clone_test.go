package main

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"aula/internal/browser"
	"aula/internal/pgtest"
)

// git runs git in dir and returns its trimmed output, failing the test on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// cloneAndBuild clones the committed HEAD of the repository the test runs
// in, as a packager would get it (nothing ignored or uncommitted comes
// along), and builds it with a plain `go build`, no task.
func cloneAndBuild(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git checkout: nothing to clone")
	}
	repo := strings.TrimSpace(string(top))
	head := git(t, ".", "rev-parse", "HEAD")
	// A fresh clone each time, at a path of its own per repository: Go's
	// build cache keys the packages by their folder, so the next run
	// compiles only what changed.
	sum := sha256.Sum256([]byte(repo))
	src := filepath.Join(os.TempDir(), "aula-clone-"+hex.EncodeToString(sum[:6]))
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(src) })
	git(t, ".", "clone", "--quiet", "--no-checkout", repo, src)
	git(t, src, "checkout", "--quiet", "--detach", head)
	bin := filepath.Join(t.TempDir(), "aula")
	build := exec.Command("go", "build", "-o", bin, "./cmd/aula")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/aula in a fresh clone: %v\n%s", err, out)
	}
	return bin
}

// A binary built with plain `go build` from a fresh clone serves HTMX, and
// a student with JavaScript on sees the tutor's answer stream in without a
// reload (without HTMX the typing dots stayed until a manual reload).
func TestFreshCloneBuildStreamsAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("clones and builds the whole module")
	}
	bin := cloneAndBuild(t)
	db := pgtest.New(t)
	dir := project(t)
	_, url, logs := startBinary(t, bin, dir, []string{"serve", "--seed-if-empty"},
		"DATABASE_URL="+db.URL, "AULA_OFFLINE_TOKEN_DELAY_MS=5")
	for _, asset := range []string{"vendor/htmx.min.js", "vendor/sse.min.js"} {
		resp, err := http.Get(url + "/static/" + asset)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /static/%s: %d, want 200", asset, resp.StatusCode)
		}
	}

	b := browser.New(t)
	b.Navigate(url + "/login")
	b.Fill("#email", "pro@aula.test")
	b.Fill("#password", "pro-pass-1")
	b.ClickAndWait("#login-submit")
	if strings.HasPrefix(b.Path(), "/login") {
		b.Fatalf("the demo student could not sign in; server log:\n%s", logs)
	}
	b.Navigate(url + "/chat")
	b.ClickAndWait("#new-conversation")
	b.WaitVisible("#q")
	// A reload would lose this mark.
	b.WaitFor("the page marked", `(window.aulaSamePage = true)`)
	if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#q"), "What is a VLAN?")); err != nil {
		b.Fatalf("type the question: %v", err)
	}
	b.Click("#send")
	const answer = `[...document.querySelectorAll('#messages article[data-role=assistant][id^="m-"]')].pop()`
	b.WaitFor("the answer bubble", answer+` !== undefined`)
	b.WaitFor("the answer complete", `(`+answer+`).dataset.status === 'complete'`)
	if text := b.Text(`#messages article[data-role=assistant][data-status=complete] .msg-body`); strings.TrimSpace(text) == "" {
		b.Fatalf("the complete answer shows no text")
	}
	if same, err := browser.Evaluate[bool](b, `window.aulaSamePage === true`); err != nil || !same {
		b.Fatalf("the page was reloaded to show the answer (%v)", err)
	}
}
