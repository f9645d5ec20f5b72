package importer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"aula/models"
)

// MaxImageBytes is the largest image file imported, as for one uploaded
// in the editor (5 MiB).
const MaxImageBytes = models.MaxImageBytes

// imageExt is the extension of a media file name aula imports ("" for
// another: no SVG): jpeg is read as jpg.
func imageExt(name string) string {
	switch ext := strings.TrimPrefix(path.Ext(name), "."); ext {
	case "png", "jpg", "jpeg", "gif", "webp":
		return ext
	}
	return ""
}

// importMedia stores the images of media/, named <sha256>.<ext> as the
// export writes them (so a lesson's /media/<sha256>.<ext> link finds its
// image again); a file whose name is not its bytes' hash, whose bytes are
// not the image its extension says, or that is too large is reported.
func importMedia(ctx context.Context, store *models.Content, fsys fs.FS, media []string, rep *Report) error {
	for _, f := range media {
		img, msg := readImage(ctx, fsys, f)
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

// readImage reads and checks one media file as an upload in the editor is
// checked (models.CheckImage: by its content, its size, its pixels); msg
// says what is wrong with it.
func readImage(ctx context.Context, fsys fs.FS, name string) (img models.ContentImage, msg string) {
	if st, err := fs.Stat(fsys, name); err != nil {
		return img, err.Error()
	} else if st.Size() > MaxImageBytes {
		return img, models.ErrImageTooLarge.Error()
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return img, err.Error()
	}
	info, err := models.CheckImage(ctx, data)
	if err != nil {
		return img, err.Error()
	}
	ext := strings.Replace(imageExt(name), "jpeg", "jpg", 1)
	sum := sha256.Sum256(data)
	id := hex.EncodeToString(sum[:])
	switch {
	case ext != models.ImageExt(info.ContentType):
		return img, fmt.Sprintf("the file is a %s image, not %s", info.ContentType, path.Ext(name))
	case strings.TrimSuffix(path.Base(name), path.Ext(name)) != id:
		return img, "the file name must be the SHA-256 of its bytes (" + id + "." + ext + ")"
	}
	return models.ContentImage{ID: id, ContentType: info.ContentType, Width: info.Width, Height: info.Height,
		Size: len(data), Data: data}, ""
}
