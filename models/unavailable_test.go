package models_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"aula/models"
)

// The database refusing the request for now (any of these SQLSTATEs) is
// unavailable: 503 and the final write tried again. A bad statement is not.
func TestIsUnavailableCoversTheDatabaseRefusingForNow(t *testing.T) {
	cases := []struct {
		code string
		want bool
	}{
		{"25006", true},  // read_only_sql_transaction
		{"08006", true},  // connection_failure
		{"08001", true},  // sqlclient_unable_to_establish_sqlconnection
		{"57P01", true},  // admin_shutdown
		{"57P02", true},  // crash_shutdown
		{"57P03", true},  // cannot_connect_now
		{"53100", true},  // disk_full
		{"53200", true},  // out_of_memory
		{"53300", true},  // too_many_connections
		{"58030", true},  // io_error
		{"23505", false}, // unique_violation
		{"42601", false}, // syntax_error
		{"22P05", false}, // untranslatable_character
		{"25P02", false}, // in_failed_sql_transaction
	}
	for _, tc := range cases {
		err := fmt.Errorf("store answer: %w", &pgconn.PgError{Code: tc.code})
		if got := models.IsUnavailable(err); got != tc.want {
			t.Errorf("IsUnavailable(SQLSTATE %s) = %v, want %v", tc.code, got, tc.want)
		}
	}
	if models.IsUnavailable(errors.New("a bad value")) {
		t.Error("a plain error is unavailable")
	}
}
