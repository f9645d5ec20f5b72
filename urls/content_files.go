package urls

import "net/url"

// ContentFiles is the page to download and upload the content as a zip;
// with report, it shows that import's report.
func ContentFiles(report string) string {
	if report != "" {
		return "/admin/content/files?report=" + url.QueryEscape(report)
	}
	return "/admin/content/files"
}

// ContentExport is the zip of every lesson and help article, or with a
// path's slug of that path's lessons.
func ContentExport(path string) string {
	if path != "" {
		return "/admin/content/export.zip?path=" + url.QueryEscape(path)
	}
	return "/admin/content/export.zip"
}

// ContentImport is where a zip is uploaded (POST, multipart field zip).
func ContentImport() string { return ContentImportPath }

// ContentImportPath is ContentImport's route: its body may be larger
// than any other's.
const ContentImportPath = "/admin/content/import"
