package models

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/image/webp"
)

// The bounds of an image a lesson shows. Bytes bound the upload; pixels
// bound the memory its decoding takes, checked from the header before any
// pixel is decoded (a 50 kB PNG can claim 50000×50000 pixels: 10 GB).
const (
	// MaxImageBytes is the largest image file accepted (5 MiB).
	MaxImageBytes = 5 << 20
	// MaxImagePixels is the most pixels (width × height) an image may have.
	MaxImagePixels = 40_000_000
	// MaxImageSide is the longest width or height accepted, in pixels.
	MaxImageSide = 10_000
	// MaxAltRunes is the longest alt text, in characters.
	MaxAltRunes = 250
	// maxLessonImages bounds the list an author sees beside the editor.
	maxLessonImages = 200
)

// Why an image is refused. Each has its own message for the author.
var (
	// ErrImageType is a file that is not a PNG, JPEG, WebP or GIF by its content.
	ErrImageType = errors.New("the file is not a PNG, JPEG, WebP or GIF image")
	// ErrImageTooLarge is a file over MaxImageBytes.
	ErrImageTooLarge = errors.New("the image file is too large")
	// ErrImagePixels is an image whose header claims too many pixels.
	ErrImagePixels = errors.New("the image has too many pixels")
	// ErrImageBroken is an image whose header is right but whose data is
	// truncated or corrupt.
	ErrImageBroken = errors.New("the image is truncated or damaged")
	// ErrAltMissing is an image without a description.
	ErrAltMissing = errors.New("the image has no alt text")
	// ErrAltTooLong is a description over MaxAltRunes characters.
	ErrAltTooLong = errors.New("the alt text is too long")
	// ErrAltInvalid is a description with a NUL or bytes that are not UTF-8
	// (the site's edge refuses them first; this guards other callers).
	ErrAltInvalid = errors.New("the alt text has a NUL character or bytes that are not UTF-8")
)

// imageFormat is one accepted format: its magic bytes and decoders.
type imageFormat struct {
	contentType string
	ext         string
	magic       func([]byte) bool
	config      func(io.Reader) (image.Config, error)
	decode      func(io.Reader) (image.Image, error)
}

// imageFormats are the only formats accepted; SVG and anything else that
// a browser could run as a document never are.
var imageFormats = []imageFormat{
	{"image/png", "png", prefix("\x89PNG\r\n\x1a\n"), png.DecodeConfig, png.Decode},
	{"image/jpeg", "jpg", prefix("\xff\xd8\xff"), jpeg.DecodeConfig, jpeg.Decode},
	// gif.Decode reads the first frame only: the frames after it are not
	// held in memory at once (gif.DecodeAll would, each as large as the
	// header allows), and a browser shows what it can of the rest.
	{"image/gif", "gif", func(b []byte) bool { return prefix("GIF87a")(b) || prefix("GIF89a")(b) }, gif.DecodeConfig, gif.Decode},
	{"image/webp", "webp", func(b []byte) bool { return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP" },
		webp.DecodeConfig, webp.Decode},
}

func prefix(p string) func([]byte) bool {
	return func(b []byte) bool { return bytes.HasPrefix(b, []byte(p)) }
}

// ImageExt is the file extension of an accepted content type ("" for any other).
func ImageExt(contentType string) string {
	for _, f := range imageFormats {
		if f.contentType == contentType {
			return f.ext
		}
	}
	return ""
}

// ImageInfo is what CheckImage learnt of an accepted image.
type ImageInfo struct {
	ContentType   string
	Width, Height int
}

// decodeSlot lets one image be decoded at a time: a decode holds up to
// MaxImagePixels × 8 bytes, and uploads are rare (authors only).
var decodeSlot = make(chan struct{}, 1)

// CheckImage decides what data is by its content alone (never a file name
// or a client's Content-Type): its magic bytes pick the format, that
// format's header gives the size, which must be within the pixel bounds,
// and only then is the whole image decoded, to refuse a truncated or
// corrupt file.
func CheckImage(ctx context.Context, data []byte) (ImageInfo, error) {
	if len(data) > MaxImageBytes {
		return ImageInfo{}, ErrImageTooLarge
	}
	var f *imageFormat
	for i := range imageFormats {
		if imageFormats[i].magic(data) {
			f = &imageFormats[i]
			break
		}
	}
	if f == nil {
		return ImageInfo{}, ErrImageType
	}
	cfg, err := f.config(bytes.NewReader(data))
	if err != nil {
		return ImageInfo{}, fmt.Errorf("%w: %v", ErrImageBroken, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return ImageInfo{}, ErrImageBroken
	}
	if cfg.Width > MaxImageSide || cfg.Height > MaxImageSide || cfg.Width*cfg.Height > MaxImagePixels {
		return ImageInfo{}, ErrImagePixels
	}
	select {
	case decodeSlot <- struct{}{}:
	case <-ctx.Done():
		return ImageInfo{}, ctx.Err()
	}
	defer func() { <-decodeSlot }()
	if _, err := f.decode(bytes.NewReader(data)); err != nil {
		return ImageInfo{}, fmt.Errorf("%w: %v", ErrImageBroken, err)
	}
	return ImageInfo{ContentType: f.contentType, Width: cfg.Width, Height: cfg.Height}, nil
}

// CleanAlt is the alt text as stored: its runs of white space (line
// breaks included) made one space and trimmed; it must keep 1 to
// MaxAltRunes characters of valid UTF-8 without NUL.
func CleanAlt(s string) (string, error) {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return "", ErrAltInvalid
	}
	s = strings.Join(strings.Fields(s), " ")
	switch {
	case s == "":
		return "", ErrAltMissing
	case utf8.RuneCountInString(s) > MaxAltRunes:
		return "", ErrAltTooLong
	}
	return s, nil
}

// LessonImage is an image given to a lesson, without its bytes.
type LessonImage struct {
	ID          string
	ContentType string
	Width       int
	Height      int
	Size        int
	// Alt is the description given with its newest upload to the lesson.
	Alt     string
	AddedAt time.Time
}

// ImageUpload is an accepted image (see CheckImage) and its alt text.
type ImageUpload struct {
	Data []byte
	Info ImageInfo
	Alt  string
	// UploadedBy is the author's user id.
	UploadedBy string
}

// ImagesLesson is the lesson images are given to, whatever its status
// (an author adds images to a draft before anyone reads it).
func (s *Content) ImagesLesson(ctx context.Context, id string) (*Lesson, error) {
	var l Lesson
	if err := conn(ctx, s.db).Where("id = ?", id).Take(&l).Error; err != nil {
		return nil, notFound(err)
	}
	return &l, nil
}

// AddImage stores an image once by the SHA-256 of its bytes (uploading
// the same bytes again, to this lesson or another, stores nothing new)
// and lists it among the lesson's images with its alt text, the newest
// first. A lesson that does not exist is ErrNotFound.
func (s *Content) AddImage(ctx context.Context, lessonID string, up ImageUpload) (LessonImage, error) {
	sum := sha256.Sum256(up.Data)
	img := LessonImage{ID: hex.EncodeToString(sum[:]), ContentType: up.Info.ContentType,
		Width: up.Info.Width, Height: up.Info.Height, Size: len(up.Data), Alt: up.Alt}
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if _, err := s.ImagesLesson(ctx, lessonID); err != nil {
			return err
		}
		if err := tx.Exec(`INSERT INTO content_images (id, content_type, width, height, size, data, lesson_id, uploaded_by)
			VALUES (?, ?, ?, ?, ?, ?, ?, NULLIF(?, '')::uuid) ON CONFLICT (id) DO NOTHING`,
			img.ID, img.ContentType, img.Width, img.Height, img.Size, up.Data, lessonID, up.UploadedBy).Error; err != nil {
			return fmt.Errorf("store image: %w", err)
		}
		return tx.Raw(`INSERT INTO lesson_images (lesson_id, image_id, alt, uploaded_by) VALUES (?, ?, ?, NULLIF(?, '')::uuid)
			ON CONFLICT (lesson_id, image_id) DO UPDATE SET alt = EXCLUDED.alt, uploaded_by = EXCLUDED.uploaded_by, added_at = now()
			RETURNING added_at`, lessonID, img.ID, img.Alt, up.UploadedBy).Row().Scan(&img.AddedAt)
	})
	if err != nil {
		return LessonImage{}, fmt.Errorf("add image to lesson %s: %w", lessonID, err)
	}
	return img, nil
}

// LessonImages is the images given to a lesson, the newest first.
func (s *Content) LessonImages(ctx context.Context, lessonID string) ([]LessonImage, error) {
	var out []LessonImage
	err := conn(ctx, s.db).Raw(`SELECT i.id, i.content_type, i.width, i.height, i.size, li.alt, li.added_at
		FROM lesson_images li JOIN content_images i ON i.id = li.image_id
		WHERE li.lesson_id = ? ORDER BY li.added_at DESC, i.id LIMIT ?`, lessonID, maxLessonImages).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list lesson images: %w", err)
	}
	return out, nil
}

// StoredImage is an image's bytes and what they are, as served.
type StoredImage struct {
	ID          string
	ContentType string
	Data        []byte
}

// imageID is the form of an image's name: its SHA-256 in lower-case hex.
var imageID = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Image returns a stored image; withData false leaves its bytes unread
// (enough to answer a browser that already has them). An unknown id is
// ErrNotFound.
func (s *Content) Image(ctx context.Context, id string, withData bool) (*StoredImage, error) {
	if !imageID.MatchString(id) {
		return nil, ErrNotFound
	}
	cols := "id, content_type"
	if withData {
		cols += ", data"
	}
	var img StoredImage
	if err := conn(ctx, s.db).Table("content_images").Select(cols).Where("id = ?", id).Take(&img).Error; err != nil {
		return nil, notFound(err)
	}
	return &img, nil
}
