package main

import (
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// browserClient is one visitor with its own cookies, seen from its own address.
type browserClient struct {
	http *http.Client
	base string
	addr string
}

func newBrowserClient(b *testing.B, base string, i int) *browserClient {
	b.Helper()
	jar, _ := cookiejar.New(nil)
	return &browserClient{base: base, addr: fmt.Sprintf("198.51.100.%d", i+1),
		http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// post fetches the form at path for its CSRF token and posts fields to it.
func (c *browserClient) post(path string, fields url.Values) (int, error) {
	req, _ := http.NewRequest("GET", c.base+path, nil)
	req.Header.Set("X-Forwarded-For", c.addr)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	var body strings.Builder
	_, _ = fmt.Fprint(&body, readAll(resp))
	m := csrfField.FindStringSubmatch(body.String())
	if m == nil {
		return 0, fmt.Errorf("no CSRF field on %s", path)
	}
	fields.Set("_csrf", m[1])
	req, _ = http.NewRequest("POST", c.base+path, strings.NewReader(fields.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", c.addr)
	resp, err = c.http.Do(req)
	if err != nil {
		return 0, err
	}
	readAll(resp)
	return resp.StatusCode, nil
}

func readAll(resp *http.Response) string {
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// peakRSS is the process's peak resident set (VmHWM) in MiB.
func peakRSS(b *testing.B, pid int) float64 {
	b.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skip("no /proc here")
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkSignInPeakRSS signs 40 accounts in at once against the real
// binary and reports the server's peak resident memory before and after
// the burst, and how many sign-ins were answered 303 (signed in) or
// 429/503 (past the hashing bound, to retry).
//
//	go test -run '^$' -bench SignInPeakRSS -benchtime 1x ./cmd/aula
func BenchmarkSignInPeakRSS(b *testing.B) {
	const n = 40
	server, base, _ := startServer(b, project(b), "AULA_TRUSTED_PROXIES=127.0.0.1/32")
	clients := make([]*browserClient, n)
	for i := range clients {
		clients[i] = newBrowserClient(b, base, i)
		code, err := clients[i].post("/signup", url.Values{"name": {"RSS"}, "email": {fmt.Sprintf("rss%d@example.com", i)},
			"password": {"a burst of sign-ins"}})
		if err != nil || code != http.StatusSeeOther {
			b.Fatalf("sign-up %d: %d %v", i, code, err)
		}
		jar, _ := cookiejar.New(nil)
		clients[i].http.Jar = jar // signed out again
	}
	before := peakRSS(b, server.Process.Pid)
	for b.Loop() {
		var wg sync.WaitGroup
		codes := make([]int, n)
		for i, c := range clients {
			wg.Go(func() {
				codes[i], _ = c.post("/login", url.Values{"email": {fmt.Sprintf("rss%d@example.com", i)}, "password": {"a burst of sign-ins"}})
			})
		}
		wg.Wait()
		counts := map[int]int{}
		for _, c := range codes {
			counts[c]++
		}
		b.ReportMetric(float64(counts[http.StatusSeeOther]), "signed-in")
		b.ReportMetric(float64(counts[http.StatusTooManyRequests]+counts[http.StatusServiceUnavailable]), "retry-later")
	}
	after := peakRSS(b, server.Process.Pid)
	b.ReportMetric(before, "MiB-peak-before")
	b.ReportMetric(after, "MiB-peak-after")
}
