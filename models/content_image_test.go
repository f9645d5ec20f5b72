package models_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"aula/internal/imagetest"
	"aula/internal/pgtest"
	"aula/models"
)

// The content decides: each accepted format by its bytes (a file name
// plays no part), with its size read from its header.
func TestCheckImageAcceptsByContent(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		data       []byte
		w, h       int
	}{
		{"png", "image/png", imagetest.PNG(30, 20), 30, 20},
		{"jpeg", "image/jpeg", imagetest.JPEG(16, 9), 16, 9},
		{"gif", "image/gif", imagetest.GIF(7, 5), 7, 5},
		{"webp lossless", "image/webp", imagetest.WebP(), 1, 1},
		{"webp lossy", "image/webp", imagetest.WebPLossy(), 1, 1},
		{"largest side", "image/png", imagetest.PNG(models.MaxImageSide, 1), models.MaxImageSide, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := models.CheckImage(t.Context(), tc.data)
			if err != nil || got.ContentType != tc.want || got.Width != tc.w || got.Height != tc.h {
				t.Fatalf("CheckImage = %+v, %v; want %s %d×%d", got, err, tc.want, tc.w, tc.h)
			}
			if models.ImageExt(got.ContentType) == "" {
				t.Fatalf("no extension for %s", got.ContentType)
			}
		})
	}
}

// Everything else is refused with the reason: other formats (SVG, HTML,
// text), a truncated file, too many pixels claimed by a header (refused
// before any pixel is decoded: 50000×50000 RGBA would be 10 GB) and too
// many bytes.
func TestCheckImageRefuses(t *testing.T) {
	whole := imagetest.PNG(64, 64)
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="9" height="9"/></svg>`), models.ErrImageType},
		{"html", []byte("<!DOCTYPE html><script>alert(1)</script>"), models.ErrImageType},
		{"html after a png's magic", append([]byte("\x89PNG\r\n\x1a\n"), "<script>alert(1)</script>"...), models.ErrImageBroken},
		{"text", []byte("just words"), models.ErrImageType},
		{"empty", nil, models.ErrImageType},
		{"truncated png", whole[:len(whole)/2], models.ErrImageBroken},
		{"truncated gif", imagetest.GIF(40, 40)[:60], models.ErrImageBroken},
		{"png header only", whole[:33], models.ErrImageBroken},
		{"50000×50000", imagetest.PNGHeader(50000, 50000), models.ErrImagePixels},
		{"side over the bound", imagetest.PNGHeader(models.MaxImageSide+1, 1), models.ErrImagePixels},
		{"pixels over the bound", imagetest.PNGHeader(9000, 9000), models.ErrImagePixels},
		{"bytes over the bound", append(append([]byte{}, whole...), make([]byte, models.MaxImageBytes)...), models.ErrImageTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := models.CheckImage(t.Context(), tc.data)
			if !errors.Is(err, tc.want) {
				t.Fatalf("CheckImage = %+v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestCleanAlt(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      error
	}{
		{"  A router's\n ports  ", "A router's ports", nil},
		{"", "", models.ErrAltMissing},
		{" \t\n ", "", models.ErrAltMissing},
		{strings.Repeat("é", models.MaxAltRunes), strings.Repeat("é", models.MaxAltRunes), nil},
		{strings.Repeat("é", models.MaxAltRunes+1), "", models.ErrAltTooLong},
		{"a\x00b", "", models.ErrAltInvalid},
		{"a\xffb", "", models.ErrAltInvalid},
	} {
		got, err := models.CleanAlt(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("CleanAlt(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// An image is stored once by its SHA-256: the same bytes uploaded again
// (to the same lesson with a new alt, or to another lesson) add no bytes;
// each lesson lists it once with its newest alt. An unknown lesson is
// ErrNotFound and stores nothing.
func TestAddImageIsContentAddressed(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	c := models.NewContent(db.DB)
	importedLesson(t, c, "Intro.\n\n## Tags\n\nA tag.\n")
	data := imagetest.PNG(12, 8)
	up := func(lesson, alt string) (models.LessonImage, error) {
		info, err := models.CheckImage(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		return c.AddImage(ctx, lesson, models.ImageUpload{Data: data, Info: info, Alt: alt})
	}
	first, err := up("vl", "A blue square")
	if err != nil || len(first.ID) != 64 || first.Size != len(data) || first.Width != 12 {
		t.Fatalf("first upload = %+v, %v", first, err)
	}
	again, err := up("vl", "A blue square, again")
	if err != nil || again.ID != first.ID {
		t.Fatalf("again = %+v, %v", again, err)
	}
	if _, err := up("nope", "x"); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("unknown lesson: %v", err)
	}
	var stored int64
	db.DB.Raw(`SELECT count(*) FROM content_images`).Scan(&stored)
	list, err := c.LessonImages(ctx, "vl")
	if err != nil || stored != 1 || len(list) != 1 || list[0].Alt != "A blue square, again" || list[0].ContentType != "image/png" {
		t.Fatalf("%d stored, list %+v, %v", stored, list, err)
	}
	img, err := c.Image(ctx, first.ID, true)
	if err != nil || img.ContentType != "image/png" || !bytes.Equal(img.Data, data) {
		t.Fatalf("Image = %v", err)
	}
	if meta, err := c.Image(ctx, first.ID, false); err != nil || meta.Data != nil {
		t.Fatalf("Image without data = %+v, %v", meta, err)
	}
	for _, id := range []string{strings.Repeat("0", 64), "../etc", strings.ToUpper(first.ID)} {
		if _, err := c.Image(ctx, id, false); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("Image(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

// A header claiming 50000×50000 pixels is refused from the header alone:
// checking it allocates kilobytes, not the 10 GB its pixels would take.
func TestCheckImageBombAllocatesNothing(t *testing.T) {
	bomb := imagetest.PNGHeader(50000, 50000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := models.CheckImage(t.Context(), bomb)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("figure image_bomb_check_allocated_bytes = %d", allocated)
	if !errors.Is(err, models.ErrImagePixels) || allocated > 1<<20 {
		t.Fatalf("CheckImage = %v after allocating %d bytes", err, allocated)
	}
}

// Whatever the bytes, CheckImage never panics, and what it accepts is one
// of the four formats within the bounds.
func FuzzCheckImage(f *testing.F) {
	for _, seed := range [][]byte{imagetest.PNG(3, 2), imagetest.JPEG(3, 2), imagetest.GIF(3, 2), imagetest.WebP(),
		imagetest.WebPLossy(), imagetest.PNGHeader(50000, 50000), []byte("<svg/>")} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := models.CheckImage(context.Background(), data)
		if err != nil {
			return
		}
		if models.ImageExt(info.ContentType) == "" || info.Width <= 0 || info.Height <= 0 ||
			info.Width > models.MaxImageSide || info.Height > models.MaxImageSide || info.Width*info.Height > models.MaxImagePixels {
			t.Fatalf("accepted %+v", info)
		}
	})
}
