package importer

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"
	"unicode/utf8"
)

// The bounds of a zip of content, checked before anything is imported:
// the number of entries, and the bytes once unpacked, in all and per file
// (the declared sizes first, then the bytes really read, for headers lie).
const (
	MaxZipFiles         = 1000
	MaxZipUnpacked      = 50 << 20
	MaxZipMarkdownBytes = 2 << 20
)

// Why a zip is refused as a whole (nothing of it is imported).
var (
	// ErrNotZip is an upload that is not a zip or is damaged.
	ErrNotZip = errors.New("not a zip file, or a damaged one")
	// ErrTooManyFiles is a zip of more than MaxZipFiles entries.
	ErrTooManyFiles = fmt.Errorf("more than %d files", MaxZipFiles)
	// ErrTooLarge is a zip whose files add up to more than MaxZipUnpacked.
	ErrTooLarge = fmt.Errorf("more than %d MiB once unpacked", MaxZipUnpacked>>20)
)

// UnsafeNameError is an entry whose name could write outside the folder
// (an absolute path, "..", a backslash) or that is a link.
type UnsafeNameError struct{ Name string }

func (e *UnsafeNameError) Error() string { return fmt.Sprintf("unsafe file name %q", e.Name) }

// FileTooLargeError is one file over its bound (Limit bytes).
type FileTooLargeError struct {
	Name  string
	Limit int64
}

func (e *FileTooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d MiB", e.Name, e.Limit>>20)
}

// ReadZip checks a zip of the folder format and unpacks the files the
// importer reads (*.md, media/ images) into memory, for Import. Any
// unsafe name, link, or bound crossed refuses the whole zip, so nothing is
// written. Files the importer ignores (and macOS's __MACOSX/ and ._ files)
// are counted but not read.
func ReadZip(r io.ReaderAt, size int64) (fs.FS, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, ErrNotZip
	}
	if len(zr.File) > MaxZipFiles {
		return nil, ErrTooManyFiles
	}
	var declared uint64
	for _, f := range zr.File {
		if !SafeName(f.Name) || f.Mode()&(fs.ModeSymlink|fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeIrregular) != 0 {
			return nil, &UnsafeNameError{Name: f.Name}
		}
		if limit := fileLimit(f.Name); limit > 0 {
			if f.UncompressedSize64 > uint64(limit) {
				return nil, &FileTooLargeError{Name: f.Name, Limit: limit}
			}
			declared += f.UncompressedSize64
		}
	}
	if declared > MaxZipUnpacked {
		return nil, ErrTooLarge
	}
	return unpack(zr.File)
}

// unpack reads the files the importer wants, each through a limit: a
// header that lies about a size cannot make it read more than the bounds.
func unpack(files []*zip.File) (fs.FS, error) {
	out := fstest.MapFS{}
	var total int64
	for _, f := range files {
		limit := fileLimit(f.Name)
		if limit == 0 {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, ErrNotZip
		}
		data, err := io.ReadAll(io.LimitReader(rc, limit+1))
		rc.Close()
		switch {
		case err != nil:
			return nil, ErrNotZip
		case int64(len(data)) > limit:
			return nil, &FileTooLargeError{Name: f.Name, Limit: limit}
		}
		if total += int64(len(data)); total > MaxZipUnpacked {
			return nil, ErrTooLarge
		}
		out[f.Name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return out, nil
}

// fileLimit is the bound of a file the importer reads, 0 for one it ignores.
func fileLimit(name string) int64 {
	base := path.Base(name)
	switch {
	case strings.HasSuffix(name, "/") || strings.HasPrefix(name, "__MACOSX/") || strings.HasPrefix(base, "._"):
		return 0
	case path.Dir(name) == "media" && imageExt(name) != "":
		return MaxImageBytes
	case strings.HasSuffix(name, ".md"):
		return MaxZipMarkdownBytes
	}
	return 0
}

// SafeName reports a zip entry name that stays inside the folder: relative,
// clean, with forward slashes, valid UTF-8 without control characters.
func SafeName(name string) bool {
	clean := strings.TrimSuffix(name, "/")
	switch {
	case clean == "" || !utf8.ValidString(name) || strings.ContainsAny(name, "\\:\x00"):
		return false
	case strings.HasPrefix(name, "/") || path.Clean(clean) != clean || !fs.ValidPath(clean):
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
