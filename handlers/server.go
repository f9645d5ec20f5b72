package handlers

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"aula/tutor"
)

// Timeouts of the HTTP server (NewHTTPServer).
const (
	// ReadHeaderTimeout cuts a client that trickles its request headers (slow loris).
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout cuts a request whose body arrives too slowly: a 5 MB
	// attachment needs well under a minute on any real connection.
	ReadTimeout = 60 * time.Second
	// IdleTimeout closes kept-alive connections that send nothing.
	IdleTimeout = 120 * time.Second
	// FinalEventGrace is how long, after the answers in flight ended at
	// shutdown, their streams get to send the final event.
	FinalEventGrace = 5 * time.Second
)

// NewHTTPServer is the server aula listens with: slow headers and slow
// uploads are cut off; responses (SSE streams) are not bounded here.
func NewHTTPServer(addr string, h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// Serve runs srv on ln until ctx ends, then shuts down gracefully: new
// questions are refused, the answers in flight get drain to finish (the
// rest are stored as interrupted), and their streams get FinalEventGrace
// more to send the final event before the connections are closed.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, svc *tutor.Service, drain time.Duration, log *slog.Logger) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing the answers in flight", "drain", drain)
	drainCtx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	httpCtx, cancelHTTP := context.WithTimeout(context.Background(), drain+FinalEventGrace)
	defer cancelHTTP()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		// Shutdown returns once every open stream has ended by itself.
		if err := srv.Shutdown(httpCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			log.Warn("shutdown", "error", err)
		}
	}()
	svc.Drain(drainCtx)
	<-stopped
	_ = srv.Close()
	return nil
}
