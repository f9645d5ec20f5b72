package web_test

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"hash/crc32"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

const filesPass = "pass-phrase-1"

// zipOf builds a zip of name → text.
func zipOf(t *testing.T, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		f, err := w.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.Write([]byte(files[i+1]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// uploadZip posts data as the zip field of the import form, with csrf.
func uploadZip(t *testing.T, c *webtest.Client, csrf, filename string, data []byte) *webtest.Page {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if csrf != "" {
		_ = w.WriteField("_csrf", csrf)
	}
	fw, _ := w.CreateFormFile("zip", filename)
	_, _ = fw.Write(data)
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, c.Base+"/admin/content/import", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.Do(req)
}

func lessonMD(id, title string) string {
	return "---\nkind: lesson\nid: " + id + "\npath: zipped\npath_title: Zipped\nmodule: m\nmodule_title: M\ntitle: " + title +
		"\nlanguage: en\n---\n\n## Part\n\nText of " + id + ".\n"
}

// contentAdmin starts a server and signs a CONTENT_ADMIN in.
func contentAdmin(t *testing.T) (*apptest.Server, *webtest.Client) {
	t.Helper()
	s := apptest.New(t)
	s.User(t, "author@example.com", filesPass, models.PlanContentAdmin)
	return s, s.SignIn(t, "author@example.com", filesPass)
}

// The download: everything or one path, streamed as a zip with its name;
// an unknown path is a 404.
func TestContentExportZip(t *testing.T) {
	_, c := contentAdmin(t)
	p := c.Get("/admin/content/files")
	if p.Status != http.StatusOK || p.Doc.Find(`#export-all[href="/admin/content/export.zip"]`).Length() != 1 ||
		p.Doc.Find(`#export-path option[value="networking"]`).Length() != 1 {
		t.Fatalf("files page: %d %s", p.Status, p.Text("main"))
	}
	for _, tc := range []struct{ query, file, has, hasNot string }{
		{"", "aula-content.zip", "help/help-api-tokens.md", ""},
		{"?path=networking", "aula-networking.zip", "lessons/networking/03-subnetting.md", "lessons/redes/01-vlans-que-son.md"},
	} {
		p := c.Get("/admin/content/export.zip" + tc.query)
		if p.Status != http.StatusOK || p.Header.Get("Content-Type") != "application/zip" ||
			p.Header.Get("Content-Disposition") != `attachment; filename="`+tc.file+`"` {
			t.Fatalf("%s: %d %v", tc.query, p.Status, p.Header)
		}
		zr, err := zip.NewReader(strings.NewReader(p.Body), int64(len(p.Body)))
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, f := range zr.File {
			names[f.Name] = true
		}
		if !names[tc.has] || names[tc.hasNot] {
			t.Errorf("%s: files %v", tc.query, names)
		}
	}
	if p := c.Get("/admin/content/export.zip?path=nope"); p.Status != http.StatusNotFound {
		t.Errorf("unknown path: %d", p.Status)
	}
}

// The upload: the good files imported, the bad ones (a front-matter
// error, a NUL, invalid UTF-8) listed with file:line on the page the 303
// leads to, which a reload shows again; one audit entry.
func TestContentImportZipReport(t *testing.T) {
	s, c := contentAdmin(t)
	csrf := c.Get("/admin/content/files").CSRF()
	data := zipOf(t, "good.md", lessonMD("zipped-good", "Good"),
		"bad.md", "---\nkind: lesson\nid: Bad Id\n---\n\nx\n",
		"nul.md", lessonMD("zipped-nul", "Nul")+"\x00",
		"latin1.md", "---\nkind: lesson\ntitle: Caf\xe9\n---\n",
		"notes.txt", "ignored")
	p := uploadZip(t, c, csrf, "course.zip", data)
	if p.Status != http.StatusOK || p.URL.Path != "/admin/content/files" || !strings.HasPrefix(p.URL.RawQuery, "report=") {
		t.Fatalf("import: %d at %s", p.Status, p.URL)
	}
	if got := p.Text("#report-lessons"); got != "1 lesson imported" {
		t.Errorf("lessons: %q", got)
	}
	errs := p.Text("#report-errors")
	for _, want := range []string{`bad.md:3: id "Bad Id" must be lowercase`, "latin1.md:3: the file is not valid UTF-8", "nul.md:15: the file contains a NUL byte"} {
		if !strings.Contains(errs, want) {
			t.Errorf("report lacks %q: %q", want, errs)
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM lessons WHERE id LIKE 'zipped-%'`); n != 1 {
		t.Errorf("%d zipped lessons, want the good one", n)
	}
	var e models.ContentEvent
	s.DB.Where("action = 'import'").Take(&e)
	if e.ActorEmail != "author@example.com" || e.Subject != "course.zip" || e.Detail != "1 lessons, 0 help articles, 0 unchanged, 3 errors" {
		t.Errorf("audit %+v", e)
	}
	if again := c.Get(p.URL.RequestURI()); again.Text("#report-errors") != errs {
		t.Error("a reload does not show the report again")
	}
	// Larger than any other form's body (6 MB), within the zip's bound.
	big := make([]byte, 7<<20)
	_, _ = rand.Read(big)
	if p := uploadZip(t, c, csrf, "big.zip", zipOf(t, "blob.bin", string(big), "good.md", lessonMD("zipped-good", "Good"))); p.Status != http.StatusOK ||
		p.Text("#report-unchanged") != "1 file unchanged" {
		t.Errorf("a 7 MiB zip: %d %q", p.Status, p.Text("main"))
	}
	if other := c.Get("/admin/content/files?report=someone-else"); other.Doc.Find("#import-report").Length() != 0 {
		t.Error("another report id shows this report")
	}
}

// lyingZip is a zip whose entry says it unpacks to 100 bytes and holds
// 200 MiB of zeros.
func lyingZip(t *testing.T) []byte {
	t.Helper()
	var raw bytes.Buffer
	zw := zip.NewWriter(&raw)
	f, _ := zw.CreateHeader(&zip.FileHeader{Name: "x", Method: zip.Deflate})
	_, _ = io.Copy(f, io.LimitReader(zeros{}, 200<<20))
	_ = zw.Close()
	zr, _ := zip.NewReader(bytes.NewReader(raw.Bytes()), int64(raw.Len()))
	compressed, _ := zr.File[0].OpenRaw()
	var out bytes.Buffer
	w := zip.NewWriter(&out)
	h := &zip.FileHeader{Name: "lie.md", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(nil),
		CompressedSize64: zr.File[0].CompressedSize64, UncompressedSize64: 100}
	dst, err := w.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(dst, compressed)
	_ = w.Close()
	return out.Bytes()
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// A zip refused as a whole gets one 422 in the author's language and
// nothing is written: unsafe names, too many files, a bomb, a lying
// header, not a zip.
func TestContentImportRefusesBadZips(t *testing.T) {
	s, c := contentAdmin(t)
	csrf := c.Get("/admin/content/files").CSRF()
	var many []string
	for i := range 2000 {
		many = append(many, strings.Repeat("d/", i%3)+"f"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".md", "x")
	}
	var bomb bytes.Buffer
	bw := zip.NewWriter(&bomb)
	bf, _ := bw.Create("bomb.md")
	_, _ = io.Copy(bf, io.LimitReader(zeros{}, 200<<20))
	_ = bw.Close()
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"dot dot", `"../evil.md", which would be written outside`, zipOf(t, "good.md", lessonMD("zipped-a", "A"), "../evil.md", "x")},
		{"inner dot dot", `"a/../../evil.md"`, zipOf(t, "a/../../evil.md", "x")},
		{"absolute", `"/etc/evil.md"`, zipOf(t, "/etc/evil.md", "x")},
		{"backslash", `"..\\evil.md"`, zipOf(t, `..\evil.md`, "x")},
		{"symlink", `"link.md"`, symlinkZip(t)},
		{"2000 files", "more than 1000 files", zipOf(t, many...)},
		{"bomb", `"bomb.md" is larger than 2 MiB`, bomb.Bytes()},
		{"lying size", "not a zip, or it is damaged", lyingZip(t)},
		{"not a zip", "not a zip, or it is damaged", []byte("PK? no, a text file")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := uploadZip(t, c, csrf, tc.name+".zip", tc.data)
			if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("#admin-error"), tc.want) ||
				!strings.Contains(p.Text("#admin-error"), "Nothing was imported.") {
				t.Errorf("%d %q, want 422 saying %q", p.Status, p.Text("#admin-error"), tc.want)
			}
		})
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM lessons WHERE id LIKE 'zipped-%'`) +
		apptest.Count(t, s, `SELECT count(*) FROM content_audit`); n != 0 {
		t.Errorf("%d rows written by refused zips", n)
	}
	c.Lang = "es"
	if p := uploadZip(t, c, csrf, "x.zip", []byte("nope")); p.Status != http.StatusUnprocessableEntity ||
		p.Text("#admin-error") != "Este archivo no es un zip o está dañado. No se importó nada." {
		t.Errorf("Spanish: %d %q", p.Status, p.Text("#admin-error"))
	}
	if p := uploadZip(t, c, csrf, "", nil); p.Status != http.StatusUnprocessableEntity || p.Text("#admin-error") != "Elige un archivo zip para subir." {
		t.Errorf("no file: %d %q", p.Status, p.Text("#admin-error"))
	}
}

func symlinkZip(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: "link.md"}
	h.SetMode(0o777 | 1<<27) // fs.ModeSymlink
	f, _ := w.CreateHeader(h)
	_, _ = f.Write([]byte("/etc/passwd"))
	_ = w.Close()
	return buf.Bytes()
}

// Students and organization admins (two of each) get 404 on every route of
// the round trip; a post without the CSRF token is refused and writes nothing.
func TestContentFilesRefusals(t *testing.T) {
	s, admin := contentAdmin(t)
	zipData := zipOf(t, "good.md", lessonMD("zipped-csrf", "C"))
	for _, who := range []struct{ email, plan string }{
		{"s1@example.com", models.PlanFree}, {"s2@example.com", models.PlanPro},
		{"o1@example.com", models.PlanCorporateAdmin}, {"o2@example.com", models.PlanCorporateAdmin},
	} {
		var c *webtest.Client
		if who.plan == models.PlanCorporateAdmin {
			s.Org(t, strings.Split(who.email, "@")[0], who.email)
			c = s.SignIn(t, who.email, apptest.OrgPassword)
		} else {
			s.User(t, who.email, filesPass, who.plan)
			c = s.SignIn(t, who.email, filesPass)
		}
		csrf := c.Get("/learn").CSRF()
		for _, p := range []*webtest.Page{c.Get("/admin/content/files"), c.Get("/admin/content/export.zip"),
			c.Get("/admin/content/export.zip?path=networking"), uploadZip(t, c, csrf, "x.zip", zipData)} {
			if p.Status != http.StatusNotFound {
				t.Errorf("%s at %s: %d, want 404", who.email, p.URL, p.Status)
			}
		}
	}
	if p := uploadZip(t, admin, "", "x.zip", zipData); p.Status != http.StatusForbidden {
		t.Errorf("without CSRF: %d", p.Status)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM lessons WHERE id = 'zipped-csrf'`); n != 0 {
		t.Error("a refused post imported the lesson")
	}
}

// The download runs as many statements for a larger catalog with images
// as for the demo content.
func TestContentExportRunsAFixedNumberOfStatements(t *testing.T) {
	s, c := contentAdmin(t)
	csrf := c.Get("/admin/content/files").CSRF()
	pic := "![dot](/media/" + strings.Repeat("ab", 32) + ".png)\n"
	if p := uploadZip(t, c, csrf, "one.zip", zipOf(t, "one.md", lessonMD("one", "One")+pic)); p.Text("#report-lessons") != "1 lesson imported" {
		t.Fatalf("import: %q", p.Text("#import-report"))
	}
	count := func() int64 {
		s.SQLs.Store(0)
		if p := c.Get("/admin/content/export.zip"); p.Status != http.StatusOK {
			t.Fatalf("export: %d", p.Status)
		}
		return s.SQLs.Load()
	}
	before := count()
	var files []string
	for i := range 30 {
		id := "more-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		files = append(files, id+".md", lessonMD(id, "More")+pic)
	}
	if p := uploadZip(t, c, csrf, "more.zip", zipOf(t, files...)); p.Text("#report-lessons") != "30 lessons imported" {
		t.Fatalf("import: %q", p.Text("#import-report"))
	}
	if after := count(); after != before {
		t.Errorf("export: %d statements, then %d with 30 more lessons", before, after)
	}
	t.Logf("the export runs %d statements", before)
}
