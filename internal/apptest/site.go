package apptest

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"aula/internal/webtest"
)

// NewThread presses "New conversation" on /chat and returns the thread it opened.
func NewThread(t testing.TB, c *webtest.Client) string {
	t.Helper()
	p := c.Submit(c.Get("/chat"), `form.new-thread`, map[string]string{"mode": "tutor"})
	cid, ok := strings.CutPrefix(p.URL.Path, "/chat/")
	if p.Status != http.StatusOK || !ok || cid == "" {
		t.Fatalf("new conversation: status %d at %s", p.Status, p.URL)
	}
	return cid
}

// PostMultipart posts a multipart form (with an optional file) to path.
// hx sends it the way HTMX does.
func PostMultipart(t testing.TB, c *webtest.Client, path string, fields map[string]string, filename string, data []byte, hx bool) *webtest.Page {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	if filename != "" {
		fw, _ := w.CreateFormFile("attachment", filename)
		_, _ = fw.Write(data)
	}
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, c.Base+path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	if hx {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Target", "messages")
	}
	return c.Do(req)
}
