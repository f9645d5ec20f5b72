package static

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// ErrMissing means the binary lacks a file every page loads.
var ErrMissing = errors.New("static files missing")

// Required lists the files every page loads (views/layout.templ): without
// the HTMX files a student with JavaScript on sees the typing dots forever.
func Required() []string {
	return []string{"css/app.css", "img/favicon.svg", "js/app.js", "js/ask.js", "js/catalog.js", "js/copy.js", "js/images.js", "js/passage.js",
		"vendor/htmx.min.js", "vendor/sse.min.js"}
}

// Check reports every required file fsys lacks (or holds empty), and how
// to build a binary that has them, so that `aula serve` refuses to start
// rather than serve pages that never finish an answer.
func Check(fsys fs.FS) error {
	var missing []string
	for _, name := range Required() {
		if b, err := fs.ReadFile(fsys, name); err != nil || len(b) == 0 {
			missing = append(missing, "static/"+name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: this binary was built without %s; restore them from git "+
		"(`git checkout -- static`, or `go tool task assets` for the vendored HTMX files) and build again",
		ErrMissing, strings.Join(missing, ", "))
}
