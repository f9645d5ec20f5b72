package importer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	_ "image/gif"  // GIF lessons' images
	_ "image/jpeg" // JPEG lessons' images
	_ "image/png"  // PNG lessons' images
	"io/fs"
	"path"
	"strings"

	_ "golang.org/x/image/webp" // WebP lessons' images

	"aula/models"
)

// The bounds of an image in a content folder, as for one uploaded in the
// editor: bytes, and pixels checked from the header before anything is
// decoded.
const (
	// MaxImageBytes is the largest image file imported (5 MiB).
	MaxImageBytes = 5 << 20
	maxImageSide  = 10_000
	maxPixels     = 40_000_000
)

// imageTypes maps a media file's extension to its content type and the
// format name image.DecodeConfig gives it; nothing else (no SVG) is an image.
var imageTypes = map[string]struct{ contentType, format string }{
	"png":  {"image/png", "png"},
	"jpg":  {"image/jpeg", "jpeg"},
	"jpeg": {"image/jpeg", "jpeg"},
	"gif":  {"image/gif", "gif"},
	"webp": {"image/webp", "webp"},
}

// imageExt is the extension of a media file name aula imports ("" for another).
func imageExt(name string) string {
	ext := strings.TrimPrefix(path.Ext(name), ".")
	if _, ok := imageTypes[ext]; !ok {
		return ""
	}
	return ext
}

// importMedia stores the images of media/, named <sha256>.<ext> as the
// export writes them (so a lesson's /media/<sha256>.<ext> link finds its
// image again); a file whose name is not its bytes' hash, whose bytes are
// not the image its extension says, or that is too large is reported.
func importMedia(ctx context.Context, store *models.Content, fsys fs.FS, media []string, rep *Report) error {
	for _, f := range media {
		img, msg := readImage(fsys, f)
		if msg != "" {
			rep.Errors = append(rep.Errors, Error{File: f, Msg: msg})
			continue
		}
		added, err := store.SaveImportedImage(ctx, img)
		if err != nil {
			return fmt.Errorf("import %s: %w", f, err)
		}
		if added {
			rep.Images++
		} else {
			rep.Unchanged++
		}
	}
	return nil
}

// readImage reads and checks one media file; msg says what is wrong with it.
func readImage(fsys fs.FS, name string) (img models.ContentImage, msg string) {
	if st, err := fs.Stat(fsys, name); err != nil {
		return img, err.Error()
	} else if st.Size() > MaxImageBytes {
		return img, "the image is larger than 5 MiB"
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return img, err.Error()
	}
	ext := imageExt(name)
	sum := sha256.Sum256(data)
	id := hex.EncodeToString(sum[:])
	switch {
	case len(data) > MaxImageBytes:
		return img, "the image is larger than 5 MiB"
	case strings.TrimSuffix(path.Base(name), "."+ext) != id:
		return img, "the file name must be the SHA-256 of its bytes (" + id + "." + ext + ")"
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	switch {
	case err != nil || format != imageTypes[ext].format:
		return img, "the file is not a " + strings.ToUpper(ext) + " image"
	case cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxImageSide || cfg.Height > maxImageSide || cfg.Width*cfg.Height > maxPixels:
		return img, fmt.Sprintf("the image is %d×%d pixels; at most %d on a side and %d in all", cfg.Width, cfg.Height, maxImageSide, maxPixels)
	}
	return models.ContentImage{ID: id, ContentType: imageTypes[ext].contentType, Width: cfg.Width, Height: cfg.Height,
		Size: len(data), Data: data}, ""
}
