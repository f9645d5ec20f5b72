// Package static embeds aula's CSS, images, scripts and the vendored HTMX
// files (static/vendor, filled by `go tool task assets`).
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
)

// FS holds every static file.
//
//go:embed *
var FS embed.FS

// Version is a short hash of every static file's content, for cache-busting URLs.
func Version(fsys fs.FS) string {
	h := sha256.New()
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		h.Write([]byte(p))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
}
