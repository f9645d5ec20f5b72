package static_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"aula/static"
)

// npmSource is where npm puts each vendored file (package.json pins the versions).
func npmSource() map[string]string {
	return map[string]string{
		"htmx.min.js": "../node_modules/htmx.org/dist/htmx.min.js",
		"sse.min.js":  "../node_modules/htmx-ext-sse/dist/sse.min.js",
	}
}

// sums reads vendor/SHA256SUMS (sha256sum's format) from fsys.
func sums(t *testing.T, fsys fs.FS) map[string]string {
	t.Helper()
	b, err := fs.ReadFile(fsys, "vendor/SHA256SUMS")
	if err != nil {
		t.Fatalf("read the vendored files' checksums: %v", err)
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("vendor/SHA256SUMS: bad line %q", sc.Text())
		}
		m[name] = sum
	}
	return m
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// The files compiled into the binary are the ones whose checksums are in
// git, and every vendored file has one.
func TestVendoredFilesMatchChecksums(t *testing.T) {
	want := sums(t, static.FS)
	if len(want) != len(npmSource()) {
		t.Errorf("vendor/SHA256SUMS lists %d files, want %d", len(want), len(npmSource()))
	}
	entries, err := fs.ReadDir(static.FS, "vendor")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "SHA256SUMS" {
			continue
		}
		b, err := fs.ReadFile(static.FS, "vendor/"+e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if got := sha(b); got != want[e.Name()] {
			t.Errorf("vendor/%s has checksum %s, vendor/SHA256SUMS says %q", e.Name(), got, want[e.Name()])
		}
	}
	for name := range want {
		if _, err := fs.Stat(static.FS, "vendor/"+name); err != nil {
			t.Errorf("vendor/SHA256SUMS lists %s, which is not vendored: %v", name, err)
		}
	}
}

// npm's copies (go tool task assets installs them) are the vendored ones.
// With AULA_PIN_VENDOR=1 (go tool task assets:pin, after a version bump in
// package.json) the test copies npm's files into vendor/ and rewrites the
// checksums instead.
func TestVendoredFilesMatchNpm(t *testing.T) {
	if _, err := os.Stat("../node_modules"); errors.Is(err, os.ErrNotExist) {
		t.Skip("node_modules is not installed (go tool task assets)")
	}
	pin := os.Getenv("AULA_PIN_VENDOR") == "1"
	want := sums(t, static.FS)
	var lines []string
	for _, name := range []string{"htmx.min.js", "sse.min.js"} {
		b, err := os.ReadFile(npmSource()[name])
		if err != nil {
			t.Fatalf("npm's %s: %v (run go tool task assets)", name, err)
		}
		lines = append(lines, fmt.Sprintf("%s  %s\n", sha(b), name))
		if pin {
			if err := os.WriteFile(filepath.Join("vendor", name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if sha(b) != want[name] {
			t.Errorf("npm's %s (%s) differs from the vendored one (%s): after changing package.json, "+
				"run go tool task assets:pin and commit static/vendor", npmSource()[name], sha(b), want[name])
		}
	}
	if pin {
		if err := os.WriteFile("vendor/SHA256SUMS", []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckNamesEveryMissingFile(t *testing.T) {
	whole := fstest.MapFS{}
	for _, name := range static.Required() {
		whole[name] = &fstest.MapFile{Data: []byte("x")}
	}
	if err := static.Check(whole); err != nil {
		t.Fatalf("every file present: %v", err)
	}
	if err := static.Check(static.FS); err != nil {
		t.Fatalf("the embedded files: %v", err)
	}
	tests := []struct {
		name    string
		drop    []string
		empty   string
		missing []string
	}{
		{"no sse.min.js", []string{"vendor/sse.min.js"}, "", []string{"static/vendor/sse.min.js"}},
		{"no vendor folder", []string{"vendor/htmx.min.js", "vendor/sse.min.js"}, "", []string{"static/vendor/htmx.min.js", "static/vendor/sse.min.js"}},
		{"an empty htmx.min.js", nil, "vendor/htmx.min.js", []string{"static/vendor/htmx.min.js"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for k, v := range whole {
				fsys[k] = v
			}
			for _, d := range tt.drop {
				delete(fsys, d)
			}
			if tt.empty != "" {
				fsys[tt.empty] = &fstest.MapFile{}
			}
			err := static.Check(fsys)
			if !errors.Is(err, static.ErrMissing) {
				t.Fatalf("Check: %v, want ErrMissing", err)
			}
			for _, w := range append(tt.missing, "git checkout -- static", "task assets") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not mention %q", err, w)
				}
			}
		})
	}
}
