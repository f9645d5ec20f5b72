// Package exporter writes lessons, help articles and their images in the
// folder format `aula content import DIR` reads: one Markdown file with
// its front matter per lesson or article, and media/<sha256>.<ext> for
// each image a lesson shows. Importing what it writes changes nothing, and
// exporting that import again gives the same bytes.
package exporter

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"aula/models"
)

// Sink receives the files of an export, in order.
type Sink interface {
	// Create opens the file name for writing; compressed says whether it
	// is worth compressing (text is, images are not).
	Create(name string, compressed bool) (io.Writer, error)
}

// Zip is a Sink writing a zip archive; its entries carry no time, so the
// same content always gives the same bytes.
type Zip struct{ w *zip.Writer }

// NewZip starts a zip archive on w; Close finishes it.
func NewZip(w io.Writer) *Zip { return &Zip{w: zip.NewWriter(w)} }

// Create adds an entry.
func (z *Zip) Create(name string, compressed bool) (io.Writer, error) {
	h := &zip.FileHeader{Name: name, Method: zip.Store}
	if compressed {
		h.Method = zip.Deflate
	}
	return z.w.CreateHeader(h)
}

// Close writes the zip's directory.
func (z *Zip) Close() error { return z.w.Close() }

// Dir is a Sink writing files under a folder.
type Dir struct {
	Root string
	open *os.File
}

// Create writes the file name under Root, making its folders.
func (d *Dir) Create(name string, _ bool) (io.Writer, error) {
	if err := d.Close(); err != nil {
		return nil, err
	}
	p := filepath.Join(d.Root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(p)
	d.open = f
	return f, err
}

// Close closes the last file written.
func (d *Dir) Close() error {
	if d.open == nil {
		return nil
	}
	err := d.open.Close()
	d.open = nil
	return err
}

// mediaRef finds the images a lesson shows by their URL.
var mediaRef = regexp.MustCompile(`/media/([0-9a-f]{64})\.[a-z]+`)

// Counts says what an export wrote.
type Counts struct{ Lessons, HelpArticles, Images int }

// Export writes the lessons of the path with slug pathSlug, or with ""
// every lesson and help article, then the images they show, to sink: a
// fixed number of statements whatever the catalog's size, and images read
// one at a time.
func Export(ctx context.Context, store *models.Content, sink Sink, pathSlug string) (Counts, error) {
	var n Counts
	lessons, err := store.ExportLessons(ctx, pathSlug)
	if err != nil {
		return n, err
	}
	var help []models.ExportedHelp
	if pathSlug == "" {
		if help, err = store.ExportHelp(ctx); err != nil {
			return n, err
		}
	}
	names, images := namer{used: map[string]bool{}}, map[string]bool{}
	for _, l := range lessons {
		if err := write(sink, names.lesson(l), lessonFile(l)); err != nil {
			return n, err
		}
		n.Lessons++
		collectImages(images, l.ContentMD)
	}
	for _, h := range help {
		if err := write(sink, names.help(h), helpFile(h)); err != nil {
			return n, err
		}
		n.HelpArticles++
		collectImages(images, h.ContentMD)
	}
	ids := make([]string, 0, len(images))
	for id := range images {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	err = store.EachImage(ctx, ids, func(img models.ContentImage) error {
		w, err := sink.Create("media/"+img.ID+"."+models.ImageExt(img.ContentType), false)
		if err == nil {
			_, err = w.Write(img.Data)
		}
		n.Images++
		return err
	})
	return n, err
}

func write(sink Sink, name string, data []byte) error {
	w, err := sink.Create(name, true)
	if err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	return nil
}

func collectImages(into map[string]bool, md string) {
	for _, m := range mediaRef.FindAllStringSubmatch(md, -1) {
		into[m[1]] = true
	}
}
