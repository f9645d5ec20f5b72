package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"aula/content/exporter"
	"aula/content/importer"
	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// importReportKey holds, in the session, the last zip import's report for
// the page the import redirects to: a reload shows it again, the next
// import replaces it.
const importReportKey = "content.import_report"

// maxReportMessage bounds one error of a stored report, in characters.
const maxReportMessage = 300

// contentFiles is the page to download the content as a zip and upload
// one; ?report= shows the report of the import that redirected here.
func (a *App) contentFiles(c echo.Context) error {
	v, err := a.contentFilesView(c)
	if err != nil {
		return err
	}
	if id := c.QueryParam("report"); id != "" {
		if r := storedReport(c); r != nil && r.ID == id {
			v.Report = r
		}
	}
	return a.render(c, http.StatusOK, views.ContentFilesPage(v), nil)
}

func (a *App) contentFilesView(c echo.Context) (views.ContentFilesView, error) {
	paths, err := a.Content.AllPaths(c.Request().Context())
	return views.ContentFilesView{Paths: paths}, err
}

// contentExport streams the zip of everything, or of ?path=<slug>: the
// files are written as they are read, never the whole zip in memory.
func (a *App) contentExport(c echo.Context) error {
	ctx, slug := c.Request().Context(), c.QueryParam("path")
	name := "aula-content.zip"
	if slug != "" {
		ok, err := a.Content.PathExists(ctx, slug)
		if err != nil {
			return err
		}
		if !ok {
			return echo.ErrNotFound
		}
		name = "aula-" + slug + ".zip" // a slug is [a-z0-9-]
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "application/zip")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	c.Response().WriteHeader(http.StatusOK)
	z := exporter.NewZip(c.Response())
	if _, err := exporter.Export(ctx, a.Content, z, slug); err != nil {
		return err
	}
	return z.Close()
}

// contentImport imports an uploaded zip with the importer of `aula content
// import`: a zip refused as a whole (not a zip, unsafe names, too many
// files, too large) is a 422 and nothing is written; otherwise the good
// files are imported, and the report (the bad files with their line) is
// on the page the 303 leads to.
func (a *App) contentImport(c echo.Context) error {
	fh, err := c.FormFile("zip")
	if err != nil || fh.Size == 0 {
		return a.importRefused(c, t(c, "content_files.no_file"))
	}
	if fh.Size > importer.MaxZipUnpacked {
		return a.importRefused(c, t(c, "content_files.upload_too_large"))
	}
	f, err := fh.Open()
	if err != nil {
		return a.importRefused(c, t(c, "content_files.not_zip"))
	}
	defer f.Close()
	fsys, err := importer.ReadZip(f, fh.Size)
	if err != nil {
		return a.importRefused(c, zipRefusal(c, err))
	}
	u, file := handlers.UserFrom(c), uploadName(fh.Filename)
	rep, err := importer.ImportAs(c.Request().Context(), a.Content, fsys, models.Actor{ID: u.ID, Email: u.Email}, file)
	if err != nil {
		return err
	}
	r := newReport(file, rep)
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	sess := session(c)
	sess.Values[importReportKey] = string(data)
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	return redirect(c, urls.ContentFiles(r.ID)+"#import-report")
}

// importRefused answers a refused upload: the page again, with why, 422.
func (a *App) importRefused(c echo.Context, msg string) error {
	v, err := a.contentFilesView(c)
	if err != nil {
		return err
	}
	v.Error = msg
	return a.render(c, http.StatusUnprocessableEntity, views.ContentFilesPage(v), nil)
}

// zipRefusal says in the author's language why a zip was refused.
func zipRefusal(c echo.Context, err error) string {
	if bad, ok := errors.AsType[*importer.UnsafeNameError](err); ok {
		return t(c, "content_files.unsafe_name", printable(bad.Name))
	}
	if big, ok := errors.AsType[*importer.FileTooLargeError](err); ok {
		return t(c, "content_files.file_too_large", printable(big.Name), big.Limit>>20)
	}
	switch {
	case errors.Is(err, importer.ErrTooManyFiles):
		return t(c, "content_files.too_many_files", importer.MaxZipFiles)
	case errors.Is(err, importer.ErrTooLarge):
		return t(c, "content_files.too_large", importer.MaxZipUnpacked>>20)
	}
	return t(c, "content_files.not_zip")
}

// storedReport is the session's last import report, nil for none.
func storedReport(c echo.Context) *views.ImportReport {
	s, ok := session(c).Values[importReportKey].(string)
	if !ok {
		return nil
	}
	var r views.ImportReport
	if json.Unmarshal([]byte(s), &r) != nil {
		return nil
	}
	return &r
}

// newReport is what the report page shows of an import, each error cut
// to maxReportMessage characters so the session stays small.
func newReport(file string, rep importer.Report) views.ImportReport {
	r := views.ImportReport{ID: newToken()[:16], File: file, Lessons: rep.Lessons, HelpArticles: rep.HelpArticles,
		Images: rep.Images, Unchanged: rep.Unchanged}
	for _, e := range rep.Errors {
		msg := e.Error()
		if utf8.RuneCountInString(msg) > maxReportMessage {
			msg = string([]rune(msg)[:maxReportMessage]) + "…"
		}
		r.Errors = append(r.Errors, msg)
	}
	return r
}

// uploadName is the uploaded file's base name, printable and short: the
// audit log's subject.
func uploadName(name string) string {
	name = printable(path.Base(strings.ReplaceAll(name, `\`, "/")))
	if r := []rune(name); len(r) > 120 {
		name = string(r[:120])
	}
	if name == "" || name == "." || name == "/" {
		return "upload.zip"
	}
	return name
}

// printable is s as valid UTF-8 without control characters, for a page.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
