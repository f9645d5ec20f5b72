package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"aula/handlers"
)

// TestToolErrorsShowNoInternals: whatever a tool's error says inside aula,
// the client sees a code and a plain message.
func TestToolErrorsShowNoInternals(t *testing.T) {
	a := &App{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	sqlErr := &pgconn.PgError{Code: "42P01", Message: `relation "lessons" does not exist`}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"a SQL error", sqlErr, "INTERNAL_ERROR"},
		{"the database down", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, "SERVICE_UNAVAILABLE"},
		{"a NUL refused by PostgreSQL", &pgconn.PgError{Code: "22021", Message: "invalid byte sequence for encoding \"UTF8\": 0x00"}, "INVALID_TEXT"},
		{"an API error", handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeUnknownLesson, "no such lesson"), "UNKNOWN_LESSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := safeTool(a, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, struct{}, error) {
				return nil, struct{}{}, tt.err
			})
			_, _, err := h(context.Background(), &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: "get_lesson"}}, struct{}{})
			var ae *handlers.APIError
			if !errors.As(err, &ae) || ae.Code != tt.want {
				t.Fatalf("error %v, want code %s", err, tt.want)
			}
			for _, leak := range []string{"relation", "lessons", "SQLSTATE", "0x00", "administrator"} {
				if strings.Contains(err.Error(), leak) && tt.want != "UNKNOWN_LESSON" {
					t.Errorf("the tool error reveals %q: %v", leak, err)
				}
			}
		})
	}
}
