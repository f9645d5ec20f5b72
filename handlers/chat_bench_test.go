package handlers_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// BenchmarkChatThreadList is GET /chat/{cid} (server time, in process) for
// a student with 10,000 threads: the first page of the list, and a page
// deep in the keyset (GET /chat/threads?after=…), each with the open thread.
//
//	go test ./handlers/ -run '^$' -bench BenchmarkChatThreadList -benchmem
func BenchmarkChatThreadList(b *testing.B) {
	s := apptest.New(b)
	u := s.User(b, "bench@example.com", "pass-phrase-1", models.PlanPro)
	c := s.SignIn(b, "bench@example.com", "pass-phrase-1")
	cookie := c.Cookie("aula_session")
	if err := s.DB.Exec(`INSERT INTO conversations (user_id, title, mode, next_seq, created_at, last_activity_at)
		SELECT ?, 'Thread number ' || g, 'tutor', 2, now() - g * interval '1 minute', now() - g * interval '1 minute'
		FROM generate_series(1, 10000) g`, u.ID).Error; err != nil {
		b.Fatal(err)
	}
	for seq, m := range [][2]string{{"user", "What is a goroutine?"}, {"assistant", "A **lightweight** thread managed by the Go runtime."}} {
		if err := s.DB.Exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status)
			SELECT id, user_id, ?, ?, ?, 'complete' FROM conversations WHERE user_id = ?`, seq, m[0], m[1], u.ID).Error; err != nil {
			b.Fatal(err)
		}
	}
	s.DB.Exec(`ANALYZE conversations`)
	s.DB.Exec(`ANALYZE messages`)
	var cid string
	s.DB.Raw(`SELECT id FROM conversations WHERE user_id = ? ORDER BY last_activity_at DESC LIMIT 1`, u.ID).Scan(&cid)
	h := s.Handler
	get := func(path string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.AddCookie(&http.Cookie{Name: "aula_session", Value: cookie})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	// A cursor 9,000 threads down: follow the list's "more" links.
	deep := "/chat/" + cid
	for i := 0; i < 300; i++ {
		body := get(deep).Body.String()
		_, rest, ok := strings.Cut(body, `hx-get="/chat/threads?after=`)
		if !ok {
			b.Fatalf("no next page after %d pages", i)
		}
		cur, _, _ := strings.Cut(rest, "&")
		deep = "/chat/threads?after=" + cur + "&active=" + cid
	}
	for _, tc := range []struct{ name, path, want string }{
		{"first page with the thread", "/chat/" + cid, "Thread number 30<"},
		{"page 301 of the list", deep, "Thread number 9030<"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if rec := get(tc.path); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), tc.want) {
				b.Fatalf("%s: status %d, %q missing", tc.path, rec.Code, tc.want)
			}
			b.ReportAllocs()
			for b.Loop() {
				if rec := get(tc.path); rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}

// BenchmarkChatFirstTokenToSSE is the time from the provider handing its
// first token to aula until the first chunk byte reaches an HTTP client
// reading GET /messages/{mid}/stream over a real socket.
//
//	go test ./handlers/ -run '^$' -bench BenchmarkChatFirstTokenToSSE -benchtime 200x
func BenchmarkChatFirstTokenToSSE(b *testing.B) {
	var emitted atomic.Int64 // UnixNano of the first token's emission
	gate := make(chan struct{})
	p := &apptest.Scripted{Answer: func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
		emitted.Store(time.Now().UnixNano())
		return apptest.EmitAll(emit, "First", " token", " and more.")
	}}
	s := apptest.New(b, apptest.WithProvider(p))
	u := s.User(b, "bench@example.com", "pass-phrase-1", models.PlanPro)
	c := s.SignIn(b, "bench@example.com", "pass-phrase-1")
	conv, err := s.App.Conversations.Create(context.Background(), u.ID, models.ModeTutor, "", 0, "")
	if err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	for b.Loop() {
		res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: conv.ID, Content: "Go?"})
		if err != nil {
			b.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/messages/"+res.AssistantMessage.ID+"/stream", nil)
		resp, err := c.HTTP.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		r := bufio.NewReader(resp.Body)
		if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "retry:") {
			b.Fatalf("preamble %q %v", line, err)
		}
		gate <- struct{}{}
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if line == "event: chunk\n" {
				lat = append(lat, time.Since(time.Unix(0, emitted.Load())))
				break
			}
		}
		resp.Body.Close()
		if _, err := s.Tutor.Streams().Wait(context.Background(), u.ID, res.AssistantMessage.ID); err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "µs-median")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "µs-p95")
}

// BenchmarkChatConcurrentStreams is 500 answers streaming at once, each to
// its own SSE client: all must complete whole. It reports the Go heap in
// use at its peak (sampled while streaming) and the process's peak RSS
// (client, server and test together).
//
//	go test ./handlers/ -run '^$' -bench BenchmarkChatConcurrentStreams -benchtime 1x
func BenchmarkChatConcurrentStreams(b *testing.B) {
	const streams, tokens = 500, 200
	var gate atomic.Pointer[chan struct{}]
	newGate := func() chan struct{} { ch := make(chan struct{}); gate.Store(&ch); return ch }
	release := newGate()
	p := &apptest.Scripted{Answer: func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		select {
		case <-*gate.Load():
		case <-ctx.Done():
			return ctx.Err()
		}
		for i := range tokens {
			if err := emit("token" + strconv.Itoa(i) + " "); err != nil {
				return err
			}
			if i%20 == 0 {
				time.Sleep(time.Millisecond) // a provider's pace, roughly
			}
		}
		return nil
	}}
	// One account reads all the streams: past the per-account cap a student has.
	s := apptest.New(b, apptest.WithProvider(p), func(c *tutor.Config) { c.Stream.StreamsPerUser = streams })
	u := s.User(b, "bench@example.com", "pass-phrase-1", models.PlanPro)
	c := s.SignIn(b, "bench@example.com", "pass-phrase-1")
	var want strings.Builder
	for i := range tokens {
		want.WriteString("token" + strconv.Itoa(i) + " ")
	}
	tr := &http.Transport{MaxIdleConnsPerHost: streams, MaxConnsPerHost: 0}
	client := &http.Client{Jar: c.HTTP.Jar, Transport: tr}
	b.Cleanup(tr.CloseIdleConnections)
	var peakHeap uint64
	for b.Loop() {
		mids := make([]string, streams)
		for i := range mids {
			conv, err := s.App.Conversations.Create(context.Background(), u.ID, models.ModeTutor, "", 0, "")
			if err != nil {
				b.Fatal(err)
			}
			res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: conv.ID, Content: "Stream " + strconv.Itoa(i)})
			if err != nil {
				b.Fatal(err)
			}
			mids[i] = res.AssistantMessage.ID
		}
		var ready, done sync.WaitGroup
		var complete atomic.Int64
		errs := make(chan error, streams)
		for _, mid := range mids {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				req, _ := http.NewRequest(http.MethodGet, s.URL+"/messages/"+mid+"/stream", nil)
				resp, err := client.Do(req)
				if err != nil {
					ready.Done()
					errs <- err
					return
				}
				defer resp.Body.Close()
				r := bufio.NewReader(resp.Body)
				_, _ = r.ReadString('\n')
				ready.Done()
				var text strings.Builder
				event := ""
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						break
					}
					if e, ok := strings.CutPrefix(line, "event: "); ok {
						event = strings.TrimSuffix(e, "\n")
					}
					if d, ok := strings.CutPrefix(line, "data: "); ok && event == "chunk" {
						text.WriteString(strings.TrimSuffix(d, "\n"))
					}
					if line == "event: done\n" {
						if text.String() == want.String() {
							complete.Add(1)
						}
					}
				}
			}()
		}
		ready.Wait()
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				peakHeap = max(peakHeap, ms.HeapInuse)
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		close(release)
		done.Wait()
		close(stop)
		<-sampled
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		if n := complete.Load(); n != streams {
			b.Fatalf("%d of %d streams received the whole answer", n, streams)
		}
		for _, mid := range mids {
			if m, err := s.Tutor.Streams().Wait(context.Background(), u.ID, mid); err != nil || m.Content != want.String() {
				b.Fatalf("stored answer %s: %v", mid, err)
			}
		}
		release = newGate()
	}
	b.ReportMetric(float64(peakHeap)/(1<<20), "MB-heap-peak")
	b.ReportMetric(peakRSS()/(1<<10), "MB-peak-RSS")
}

// peakRSS is the process's peak resident set (VmHWM) in KiB.
func peakRSS() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return n
		}
	}
	return 0
}
