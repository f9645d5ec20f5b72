// Package imagetest makes the real image files the tests of lesson images
// upload: small PNG, JPEG and GIF files drawn by the standard encoders, a
// tiny WebP (Go has no WebP encoder) and a PNG header that claims more
// pixels than its file holds.
package imagetest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
)

// picture is a w×h image with a diagonal band, so a screenshot shows it.
func picture(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{R: 0x33, G: 0x66, B: 0xcc, A: 0xff}
			if d := x*h/w - y; d > -h/6 && d < h/6 {
				c = color.RGBA{R: 0xf5, G: 0xb7, B: 0x00, A: 0xff}
			}
			m.Set(x, y, c)
		}
	}
	return m
}

// PNG is a w×h PNG file.
func PNG(w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, picture(w, h)); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// JPEG is a w×h JPEG file.
func JPEG(w, h int) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, picture(w, h), &jpeg.Options{Quality: 80}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// GIF is a w×h GIF file.
func GIF(w, h int) []byte {
	src := picture(w, h)
	m := image.NewPaletted(src.Bounds(), palette.Plan9)
	for y := range h {
		for x := range w {
			m.Set(x, y, src.At(x, y))
		}
	}
	var b bytes.Buffer
	if err := gif.Encode(&b, m, nil); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// WebP is a valid 1×1 lossless WebP file (34 bytes).
func WebP() []byte {
	b, err := base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	if err != nil {
		panic(err)
	}
	return b
}

// WebPLossy is a valid 1×1 lossy (VP8) WebP file (42 bytes).
func WebPLossy() []byte {
	b, err := base64.StdEncoding.DecodeString("UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA")
	if err != nil {
		panic(err)
	}
	return b
}

// PNGHeader is the start of a PNG file whose header (IHDR, with a right
// checksum) claims w×h pixels of 8-bit RGBA, followed by an image data
// chunk of zeros and the end chunk: a decompression bomb's shape, a few
// dozen bytes that a decoder would turn into w×h×4 bytes.
func PNGHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8 bits, RGBA
	chunk(&b, "IHDR", ihdr)
	chunk(&b, "IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk(&b, "IEND", nil)
	return b.Bytes()
}

func chunk(b *bytes.Buffer, kind string, data []byte) {
	_ = binary.Write(b, binary.BigEndian, uint32(len(data)))
	crc := crc32.NewIEEE()
	crc.Write([]byte(kind))
	crc.Write(data)
	b.WriteString(kind)
	b.Write(data)
	_ = binary.Write(b, binary.BigEndian, crc.Sum32())
}
