package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsUnavailable reports whether err means the database cannot take the
// request right now (down, restarting, refusing connections or writes,
// out of room), as opposed to a bad query: the request may succeed later
// unchanged, so clients get 503 and the tutor stores an answer again.
func IsUnavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var connErr *pgconn.ConnectError
	var netErr *net.OpError
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &connErr), errors.As(err, &netErr),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, context.DeadlineExceeded):
		return true
	case errors.As(err, &pgErr):
		return unavailableCode(pgErr.Code)
	}
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "failed to connect") ||
		strings.Contains(msg, "connection refused") || strings.Contains(msg, "broken pipe")
}

// unavailableCode reports whether a SQLSTATE says the database, not the
// statement, is the problem.
func unavailableCode(code string) bool {
	switch {
	case code == "25006": // read_only_sql_transaction: read-only mode, or a standby after failover
		return true
	case strings.HasPrefix(code, "08"), // connection exception
		strings.HasPrefix(code, "53"), // insufficient resources: disk full, out of memory, too many connections
		strings.HasPrefix(code, "57"), // operator intervention: admin shutdown, crash shutdown, cannot connect now
		strings.HasPrefix(code, "58"): // system error: I/O error
		return true
	}
	return false
}
