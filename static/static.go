// Package static embeds aula's CSS, images, scripts and the vendored HTMX
// files (static/vendor, kept in git with their checksums in
// static/vendor/SHA256SUMS; `go tool task assets` checks them against npm).
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
)

// FS holds every static file. The folders are named, not `*`: a checkout
// without static/vendor fails to build instead of building a binary whose
// pages load no HTMX.
//
//go:embed css img js vendor
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
