package tutor

import "context"

// Drain is a graceful stop: it refuses new questions (ErrClosed), lets the
// answers in flight finish until ctx ends, then Closes, which stores any
// still running as interrupted (and refunds them).
func (s *Service) Drain(ctx context.Context) {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
	s.Close()
}
