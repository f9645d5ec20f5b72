package web_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/imagetest"
	"aula/internal/webtest"
	"aula/models"
)

const (
	imagesPass   = "images-pass-123"
	imagesLesson = "vlan-basics"
	imagesURL    = "/admin/content/lessons/" + imagesLesson + "/images"
)

// imagesServer is aula with a CONTENT_ADMIN, signed in, on its images page.
func imagesServer(t *testing.T) (*apptest.Server, *webtest.Client, string) {
	t.Helper()
	s := apptest.New(t)
	s.User(t, "author@example.com", imagesPass, models.PlanContentAdmin)
	author := s.SignIn(t, "author@example.com", imagesPass)
	p := author.Get(imagesURL)
	if p.Status != http.StatusOK || p.Doc.Find("#image-form").Length() != 1 {
		t.Fatalf("the images page: %d %s", p.Status, p.Body)
	}
	return s, author, p.CSRF()
}

// imageUpload is one multipart post of the upload form: the file (none when
// name is ""), the alt text and the CSRF token ("" sends none); hx sends
// it as HTMX does. Redirects are not followed.
type imageUpload struct {
	name, alt, csrf string
	data            []byte
	hx              bool
}

func (u imageUpload) send(t *testing.T, c *webtest.Client, path string) *webtest.Page {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if u.csrf != "" {
		_ = w.WriteField("_csrf", u.csrf)
	}
	_ = w.WriteField("alt", u.alt)
	if u.name != "" {
		fw, _ := w.CreateFormFile("file", u.name)
		_, _ = fw.Write(u.data)
	}
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, c.Base+path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	if u.hx {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Target", "lesson-images")
	}
	noFollow := *c
	h := *c.HTTP
	h.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	noFollow.HTTP = &h
	return noFollow.Do(req)
}

func imageSHA(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Each accepted format, by its content: the file's name never decides (a
// PNG named .jpg is a PNG; a GIF named .png is a GIF, an accepted type).
// HTMX gets the component with the image and its Markdown; the image is
// stored under its SHA-256 and served with the stored type.
func TestImageUploadAcceptsEachType(t *testing.T) {
	s, author, csrf := imagesServer(t)
	for _, tc := range []struct {
		name, file, wantType, ext string
		data                      []byte
	}{
		{"png", "diagram.png", "image/png", "png", imagetest.PNG(40, 30)},
		{"png named .jpg", "photo.jpg", "image/png", "png", imagetest.PNG(41, 30)},
		{"jpeg", "photo.jpeg", "image/jpeg", "jpg", imagetest.JPEG(32, 24)},
		{"gif named .png", "anim.png", "image/gif", "gif", imagetest.GIF(20, 10)},
		{"webp", "tiny.webp", "image/webp", "webp", imagetest.WebP()},
		{"lossy webp named .bin", "tiny.bin", "image/webp", "webp", imagetest.WebPLossy()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			alt := "A " + tc.name + ": the switch's ports"
			p := imageUpload{name: tc.file, alt: alt, csrf: csrf, data: tc.data, hx: true}.send(t, author, imagesURL)
			id := imageSHA(tc.data)
			src := "/media/" + id + "." + tc.ext
			want := "![A " + tc.name + ": the switch's ports](" + src + ")"
			if p.Status != http.StatusOK || p.Text("#image-uploaded #image-snippet") != want ||
				p.Doc.Find("#lesson-images").Length() != 1 || p.Doc.Find(".topbar").Length() != 0 {
				t.Fatalf("upload: %d %q, want %q\n%s", p.Status, p.Text("#image-snippet"), want, p.Body)
			}
			if p.Doc.Find(`.image-list img[src="`+src+`"][alt="`+alt+`"]`).Length() != 1 {
				t.Fatalf("the list has no thumbnail of %s", src)
			}
			if n := apptest.Count(t, s, `SELECT count(*) FROM content_images WHERE id = ? AND content_type = ? AND size = ? AND lesson_id = ?`,
				id, tc.wantType, len(tc.data), imagesLesson); n != 1 {
				t.Fatalf("%d rows of %s as %s", n, id, tc.wantType)
			}
			resp, err := http.Get(s.URL + src)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != tc.wantType || !bytes.Equal(body, tc.data) {
				t.Fatalf("GET %s: %d %q, %d bytes", src, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
			}
		})
	}
	// The same bytes again: one image, listed once, with the newest alt.
	data := imagetest.PNG(40, 30)
	p := imageUpload{name: "again.png", alt: "The same diagram", csrf: csrf, data: data, hx: true}.send(t, author, imagesURL)
	if p.Status != http.StatusOK || apptest.Count(t, s, `SELECT count(*) FROM content_images WHERE id = ?`, imageSHA(data)) != 1 ||
		p.Doc.Find(".image-list .image-item").Length() != 6 || p.Text(".image-list .image-item:first-child .image-alt") != "The same diagram" {
		t.Fatalf("uploading again: %d, %d items, first %q", p.Status, p.Doc.Find(".image-list .image-item").Length(),
			p.Text(".image-list .image-item:first-child .image-alt"))
	}
}

// Every refusal says why in the user's language, keeps the alt as typed
// and stores nothing: with HTMX as the component, without as the page,
// with the same status. An image over 5 MiB (within the site's 6 MiB body
// limit) is 413; a header claiming 50000×50000 pixels is refused before
// anything is decoded.
func TestImageUploadRefusals(t *testing.T) {
	s, author, csrf := imagesServer(t)
	whole := imagetest.PNG(64, 64)
	big := append(append([]byte{}, whole...), make([]byte, models.MaxImageBytes)...)
	for _, tc := range []struct {
		name, file, alt string
		data            []byte
		status          int
		msg             string
	}{
		{"svg named .png", "logo.png", "A logo", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), 422, "is not a PNG, JPEG, WebP or GIF"},
		{"svg", "logo.svg", "A logo", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>`), 422, "SVG and HTML are not accepted"},
		{"html named .png", "page.png", "A page", []byte("<!DOCTYPE html><script>alert(1)</script>"), 422, "its content decides, not its name"},
		{"truncated png", "cut.png", "Half a square", whole[:len(whole)/2], 422, "truncated or damaged"},
		{"over the byte limit", "big.png", "A big one", big, 413, "larger than 5 MiB"},
		{"50000×50000", "bomb.png", "A bomb", imagetest.PNGHeader(50000, 50000), 422, "at most 40 megapixels and 10000 pixels a side"},
		{"missing alt", "ok.png", "   ", whole, 422, "the alt text is required"},
		{"alt too long", "ok.png", strings.Repeat("a", models.MaxAltRunes+1), whole, 422, "longer than 250 characters"},
		{"no file", "", "A file I forgot", nil, 422, "Choose an image file"},
	} {
		for _, hx := range []bool{true, false} {
			p := imageUpload{name: tc.file, alt: tc.alt, csrf: csrf, data: tc.data, hx: hx}.send(t, author, imagesURL)
			if p.Status != tc.status || !strings.Contains(p.Text("#image-error"), tc.msg) {
				t.Errorf("%s (htmx %v): %d %q, want %d %q", tc.name, hx, p.Status, p.Text("#image-error"), tc.status, tc.msg)
				continue
			}
			if got := p.Doc.Find("#image-alt").AttrOr("value", "?"); got != tc.alt || hx == (p.Doc.Find(".topbar").Length() == 1) {
				t.Errorf("%s (htmx %v): alt kept as %q, page %v", tc.name, hx, got, p.Doc.Find(".topbar").Length() == 1)
			}
		}
	}
	// In Spanish.
	author.Lang = "es"
	p := imageUpload{name: "page.png", alt: "Una página", csrf: csrf, data: []byte("<html>"), hx: true}.send(t, author, imagesURL)
	if p.Status != 422 || !strings.Contains(p.Text("#image-error"), "no es una imagen PNG, JPEG, WebP o GIF") {
		t.Errorf("Spanish: %d %q", p.Status, p.Text("#image-error"))
	}
	// A NUL or bytes that are not UTF-8 in the alt are refused at the door.
	for _, alt := range []string{"a\x00b", "a\xffb"} {
		p := imageUpload{name: "ok.png", alt: alt, csrf: csrf, data: whole, hx: false}.send(t, author, imagesURL)
		if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "NUL") && !strings.Contains(p.Body, "UTF-8") {
			t.Errorf("alt %q: %d %s", alt, p.Status, p.Text("main"))
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM content_images`); n != 0 {
		t.Fatalf("%d images stored", n)
	}
}

// countingReader is an endless body that counts what the server read.
type countingReader struct{ n, limit int }

func (r *countingReader) Read(p []byte) (int, error) {
	if r.n >= r.limit {
		return 0, io.EOF
	}
	p = p[:min(len(p), r.limit-r.n)]
	clear(p)
	r.n += len(p)
	return len(p), nil
}

// A 100 MiB upload is cut off by the body limit: declared, it is refused
// before a byte of it is read; streamed without a length, after about the
// 6 MiB the site accepts — never read whole, nothing stored.
func TestImageUploadBodyLimit(t *testing.T) {
	s, author, csrf := imagesServer(t)
	for _, declared := range []bool{true, false} {
		head := "--b\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n" + csrf +
			"\r\n--b\r\nContent-Disposition: form-data; name=\"alt\"\r\n\r\nHuge\r\n" +
			"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"huge.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n"
		body := &countingReader{limit: 100 << 20}
		req, _ := http.NewRequest(http.MethodPost, s.URL+imagesURL, io.MultiReader(strings.NewReader(head), body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
		if declared {
			req.ContentLength = int64(len(head)) + 100<<20
		}
		resp, err := author.HTTP.Do(req)
		if err != nil {
			t.Fatalf("declared %v: %v", declared, err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Logf("figure images_huge_upload_read_mib(declared=%v) = %.1f", declared, float64(body.n)/(1<<20))
		if resp.StatusCode != http.StatusRequestEntityTooLarge || body.n > 16<<20 || !strings.Contains(string(msg), "too large") {
			t.Errorf("declared %v: %d after %d bytes read", declared, resp.StatusCode, body.n)
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM content_images`); n != 0 {
		t.Fatalf("%d images stored", n)
	}
}

// mediaGet fetches path with headers, without a session or redirects.
func mediaGet(t *testing.T, url string, header map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// /media serves an image to anyone with its URL (no session: the name is
// 256 unguessable bits), with the stored type whatever the extension
// says, headers that keep a browser from running it as anything else, a
// year's immutable cache and the id as ETag (304 when the browser has
// it). Unknown or malformed names are 404.
func TestMediaServing(t *testing.T) {
	s, author, csrf := imagesServer(t)
	data := imagetest.PNG(8, 8)
	if p := (imageUpload{name: "a.png", alt: "Eight", csrf: csrf, data: data, hx: true}).send(t, author, imagesURL); p.Status != http.StatusOK {
		t.Fatalf("upload: %d", p.Status)
	}
	id := imageSHA(data)
	for _, name := range []string{id + ".png", id + ".gif"} {
		resp := mediaGet(t, s.URL+"/media/"+name, nil)
		body, _ := io.ReadAll(resp.Body)
		h := resp.Header
		if resp.StatusCode != http.StatusOK || h.Get("Content-Type") != "image/png" || !bytes.Equal(body, data) ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Security-Policy") != "default-src 'none'; sandbox" ||
			h.Get("Cache-Control") != "public, max-age=31536000, immutable" || h.Get("ETag") != `"`+id+`"` ||
			h.Get("Set-Cookie") != "" {
			t.Fatalf("GET %s: %d %v", name, resp.StatusCode, h)
		}
	}
	for _, inm := range []string{`"` + id + `"`, `W/"` + id + `"`, `"other", "` + id + `"`, "*"} {
		resp := mediaGet(t, s.URL+"/media/"+id+".png", map[string]string{"If-None-Match": inm})
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusNotModified || len(body) != 0 || resp.Header.Get("ETag") != `"`+id+`"` ||
			resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("If-None-Match %s: %d, %d bytes", inm, resp.StatusCode, len(body))
		}
	}
	if resp := mediaGet(t, s.URL+"/media/"+id+".png", map[string]string{"If-None-Match": `"other"`}); resp.StatusCode != http.StatusOK {
		t.Errorf("another ETag: %d", resp.StatusCode)
	}
	unknown := strings.Repeat("ab", 32)
	for _, name := range []string{unknown + ".png", strings.ToUpper(id) + ".png", id + ".svg", id + ".html", id[:63] + ".png",
		id, id + ".png.html", "..%2f..%2fetc%2fpasswd"} {
		if resp := mediaGet(t, s.URL+"/media/"+name, map[string]string{"If-None-Match": "*"}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET /media/%s: %d", name, resp.StatusCode)
		}
	}
}

// Only CONTENT_ADMIN and SUPER_ADMIN reach the images routes: two
// students and two organization admins get 404 on the page and on the
// upload (with a right CSRF token); an upload without the token, or with
// another session's, is 403; an unknown lesson is 404. Nothing is stored.
func TestImageRoutesRefuseOthers(t *testing.T) {
	s, author, csrf := imagesServer(t)
	s.User(t, "free@example.com", imagesPass, models.PlanFree)
	s.User(t, "pro@example.com", imagesPass, models.PlanPro)
	s.Org(t, "org-a", "admin-a@example.com")
	s.Org(t, "org-b", "admin-b@example.com")
	png := imagetest.PNG(4, 4)
	for who, pass := range map[string]string{"free@example.com": imagesPass, "pro@example.com": imagesPass,
		"admin-a@example.com": apptest.OrgPassword, "admin-b@example.com": apptest.OrgPassword} {
		c := s.SignIn(t, who, pass)
		theirs := c.Get("/learn").CSRF()
		if p := c.Get(imagesURL); p.Status != http.StatusNotFound {
			t.Errorf("%s: GET %d", who, p.Status)
		}
		for _, hx := range []bool{false, true} {
			if p := (imageUpload{name: "a.png", alt: "Mine", csrf: theirs, data: png, hx: hx}).send(t, c, imagesURL); p.Status != http.StatusNotFound {
				t.Errorf("%s: POST (htmx %v) %d", who, hx, p.Status)
			}
		}
	}
	other := s.SignIn(t, "free@example.com", imagesPass).Get("/learn").CSRF()
	for name, token := range map[string]string{"no token": "", "another session's": other, "made up": "x" + csrf} {
		if p := (imageUpload{name: "a.png", alt: "Mine", csrf: token, data: png}).send(t, author, imagesURL); p.Status != http.StatusForbidden {
			t.Errorf("%s: %d", name, p.Status)
		}
	}
	if p := (imageUpload{name: "a.png", alt: "Mine", csrf: csrf, data: png}).send(t, author, "/admin/content/lessons/no-such-lesson/images"); p.Status != http.StatusNotFound {
		t.Errorf("unknown lesson: %d", p.Status)
	}
	if p := author.Get("/admin/content/lessons/no-such-lesson/images"); p.Status != http.StatusNotFound {
		t.Errorf("unknown lesson's page: %d", p.Status)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM content_images`); n != 0 {
		t.Fatalf("%d images stored", n)
	}
}

// Without JavaScript the upload answers 303 to the component, which shows
// the Markdown to copy once; published in the lesson, the student sees the
// image with its alt, and its file.
func TestImageUploadWithoutJavaScriptThenPublished(t *testing.T) {
	s, author, csrf := imagesServer(t)
	data := imagetest.JPEG(24, 16)
	p := imageUpload{name: "switch.jpg", alt: "A switch [front] *panel*", csrf: csrf, data: data}.send(t, author, imagesURL)
	editor := "/admin/content/lessons/" + imagesLesson
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != editor+"#lesson-images" {
		t.Fatalf("upload: %d to %q", p.Status, p.Header.Get("Location"))
	}
	src := "/media/" + imageSHA(data) + ".jpg"
	snippet := `![A switch \[front\] \*panel\*](` + src + ")"
	if p := author.Get(editor); p.Text("#image-uploaded #image-snippet") != snippet || p.Doc.Find(".insert-image:not([hidden])").Length() != 0 ||
		p.Doc.Find(`#lesson-images[data-textarea="f-body"]`).Length() != 1 || p.Doc.Find("#editor-form #lesson-images").Length() != 0 {
		t.Fatalf("the editor after the redirect: %q, want %q", p.Text("#image-snippet"), snippet)
	}
	if p := author.Get(editor); p.Doc.Find("#image-uploaded").Length() != 0 || p.Text(".image-list code") != snippet {
		t.Fatalf("the notice shows twice, or the list lacks the image: %q", p.Text(".image-list"))
	}

	ctx := t.Context()
	l, err := s.App.Content.Lesson(ctx, imagesLesson)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.App.Content.SaveVersion(ctx, l.ID, l.Version, models.LessonDraft{Title: l.Title, Summary: l.Summary,
		Language: l.Language, ContentMD: l.ContentMD + "\n\n" + snippet + "\n"}, models.VersionSave, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.App.Content.Publish(ctx, l.ID, v.Number, models.Actor{}); err != nil {
		t.Fatal(err)
	}
	s.User(t, "student@example.com", imagesPass, models.PlanFree)
	student := s.SignIn(t, "student@example.com", imagesPass)
	page := student.Get("/learn/networking/" + imagesLesson)
	if page.Doc.Find(`img[src="`+src+`"][alt="A switch [front] *panel*"]`).Length() != 1 {
		t.Fatalf("the student's lesson has no image:\n%s", page.Body)
	}
	if resp := mediaGet(t, s.URL+src, nil); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("the image: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
