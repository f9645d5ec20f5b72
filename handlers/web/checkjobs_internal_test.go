package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/tutor"
)

// lockedLog collects a logger's lines from the background gradings.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// A background grading that panics or fails is logged with its check's
// id and never with the student's answer (nor a panic's value, which may
// quote it); a refusal the student reads is no failure, and not logged
// as one. Each ends its grading with its error.
func TestCheckGradingFailureIsLogged(t *testing.T) {
	const answer = "my secret answer"
	for _, tt := range []struct {
		name string
		run  func(context.Context, tutor.CheckFeed) error
		want string // "" for nothing logged
	}{
		{"panic", func(context.Context, tutor.CheckFeed) error { panic("grading " + answer) }, "grading panicked"},
		{"runtime panic", func(context.Context, tutor.CheckFeed) error {
			var items []string
			_ = items[len(answer)] // out of range
			return nil
		}, "index out of range"},
		{"error", func(context.Context, tutor.CheckFeed) error { return errors.New("the store went away") }, "the store went away"},
		{"refusal", func(ctx context.Context, _ tutor.CheckFeed) error {
			_, err := tutor.CheckQuestion("", false) // a refusal, as the engine gives them
			return err
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			log := &lockedLog{}
			jobs := newCheckJobs(slog.New(slog.NewTextHandler(log, nil)))
			cid := fmt.Sprintf("check-%s", strings.ReplaceAll(tt.name, " ", "-"))
			jobs.start(context.Background(), cid, 1, 0, "user-1", answer, tt.run)
			key := checkJobKey(cid, 1, 0)
			var end checkEnd
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				var ok bool
				if end, ok = jobs.end(key); ok {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the grading never ended")
				}
			}
			if end.err == nil {
				t.Fatal("the grading ended without its error")
			}
			got := log.String()
			if tt.want == "" {
				if got != "" {
					t.Fatalf("a refusal was logged: %s", got)
				}
				return
			}
			if !strings.Contains(got, "level=ERROR") || !strings.Contains(got, "check="+cid) || !strings.Contains(got, tt.want) {
				t.Fatalf("logged %q; want an error naming check %s and %q", got, cid, tt.want)
			}
			if strings.Contains(got, answer) {
				t.Fatalf("the student's answer is in the log: %s", got)
			}
		})
	}
}
