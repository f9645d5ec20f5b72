package browser

import (
	"context"
	"os"
	"path/filepath"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// Phone is the viewport of the phone the layout is checked on (CSS pixels).
var Phone = [2]int64{390, 844}

// Desktop is the viewport of the laptop the layout is checked on.
var Desktop = [2]int64{1366, 900}

// Viewport makes the page w×h CSS pixels; mobile also emulates a touch
// phone (its meta viewport honoured, no scrollbars taking width).
func (b *Browser) Viewport(size [2]int64, mobile bool) {
	b.T.Helper()
	opts := []chromedp.EmulateViewportOption{}
	if mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	b.step("emulate the viewport", chromedp.EmulateViewport(size[0], size[1], opts...))
}

// ColorScheme emulates the system's prefers-color-scheme: "light" or "dark".
func (b *Browser) ColorScheme(scheme string) {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, StepTimeout)
	defer cancel()
	_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
	if err != nil {
		b.Fatalf("emulate prefers-color-scheme %s: %v", scheme, err)
	}
}

// Shot saves what the viewport shows as dir/name.png when dir is not
// empty (the screenshots a person looks at after a layout change); it
// returns the file written, or "".
func (b *Browser) Shot(dir, name string) string {
	b.T.Helper()
	if dir == "" {
		return ""
	}
	png := value(b, "screenshot "+name, chromedp.CaptureScreenshot())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatalf("screenshot folder: %v", err)
	}
	file := filepath.Join(dir, name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		b.Fatalf("save screenshot: %v", err)
	}
	return file
}
