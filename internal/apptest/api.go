package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// APIToken creates a personal token for the user directly in the store.
func APIToken(t testing.TB, s *Server, userID string) string {
	t.Helper()
	_, raw, err := s.App.Tokens.Create(context.Background(), userID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// APICall sends body (JSON-encoded unless it is a string) with the token
// and returns the response with its body read.
func APICall(t testing.TB, s *Server, token, method, path string, body any) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		r = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, s.URL+"/api/v1"+path, r)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp, out
}

// APIJSON calls and decodes, failing unless the status is want.
func APIJSON(t testing.TB, s *Server, token, method, path string, body any, want int) map[string]any {
	t.Helper()
	resp, b := APICall(t, s, token, method, path, body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, b)
	}
	var v map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s %s: not JSON: %s", method, path, b)
		}
	}
	return v
}
