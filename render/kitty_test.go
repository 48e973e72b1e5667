package render

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/kitty"

	"github.com/dpe-tui/dpe-tui/dpe"
)

func testImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), 0x80, 0xFF})
		}
	}
	return img
}

var apcRe = regexp.MustCompile("\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\\\")

// The transmission is our own PNG of the decoded preview, sent as one
// virtual placement (a=T, U=1) with the id, the cell size and q=2, in
// chunks no larger than the protocol allows.
func TestKittyTransmit_IDSizeQuietVirtualPlacementAndOurPNG(t *testing.T) {
	img := testImage(200, 120)
	// Noise, so the PNG needs several chunks.
	seed := uint32(1)
	for i := 0; i < len(img.Pix); i += 4 {
		seed = seed*1664525 + 1013904223
		img.Pix[i+2] = uint8(seed >> 24)
	}
	seq, err := KittyTransmit(7, img, 40, 12)
	if err != nil {
		t.Fatal(err)
	}
	chunks := apcRe.FindAllStringSubmatch(seq, -1)
	if len(chunks) < 2 || strings.Join(apcRe.FindAllString(seq, -1), "") != seq {
		t.Fatalf("%d chunks; the sequence is not only kitty APCs: %q", len(chunks), seq[:min(len(seq), 200)])
	}
	first := "," + chunks[0][1] + ","
	for _, want := range []string{",a=T,", ",i=7,", ",q=2,", ",U=1,", ",c=40,", ",r=12,", ",f=100,", ",m=1,"} {
		if !strings.Contains(first, want) {
			t.Errorf("first chunk options %q lack %q", chunks[0][1], want)
		}
	}
	var payload strings.Builder
	for i, c := range chunks {
		if len(c[2]) > kitty.MaxChunkSize {
			t.Errorf("chunk %d is %d bytes", i, len(c[2]))
		}
		if i > 0 && strings.Contains(c[1], "i=") {
			t.Errorf("chunk %d repeats the header: %q", i, c[1])
		}
		payload.WriteString(c[2])
	}
	if last := chunks[len(chunks)-1][1]; !strings.Contains(last, "m=0") {
		t.Errorf("last chunk options %q lack m=0", last)
	}
	raw, err := base64.StdEncoding.DecodeString(payload.String())
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("payload is not a PNG: %v", err)
	}
	if got.Bounds() != img.Bounds() || color.NRGBAModel.Convert(got.At(10, 20)) != img.At(10, 20) {
		t.Fatalf("payload decodes to %v, pixel %v", got.Bounds(), got.At(10, 20))
	}
	for _, bad := range []uint32{0, MaxKittyID + 1} {
		if _, err := KittyTransmit(bad, img, 1, 1); err == nil {
			t.Errorf("id %d accepted", bad)
		}
	}
}

// Placeholder cells: U+10EEEE with the row then the column diacritic, the
// image id as the 24-bit foreground; one cell wide each.
func TestKittyPlaceholders_IDInForegroundRowColumnDiacritics(t *testing.T) {
	lines := KittyPlaceholders(0x010203, 3, 2)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	for y, l := range lines {
		if !strings.HasPrefix(l, "\x1b[38;2;1;2;3m") || !strings.HasSuffix(l, "\x1b[39m") {
			t.Errorf("line %d %q: id not in the foreground", y, l)
		}
		var want strings.Builder
		for x := range 3 {
			want.WriteRune(kitty.Placeholder)
			want.WriteRune(kitty.Diacritic(y))
			want.WriteRune(kitty.Diacritic(x))
		}
		if got := ansi.Strip(l); got != want.String() {
			t.Errorf("line %d cells %+q, want %+q", y, got, want.String())
		}
		if w := ansi.StringWidth(l); w != 3 {
			t.Errorf("line %d is %d cells wide, want 3", y, w)
		}
	}
}

func TestKittyDelete_FreesTheImage(t *testing.T) {
	got := KittyDelete(9)
	m := apcRe.FindStringSubmatch(got)
	if m == nil || m[0] != got {
		t.Fatalf("not one kitty APC: %q", got)
	}
	opts := "," + m[1] + ","
	for _, want := range []string{",a=d,", ",d=I,", ",i=9,", ",q=2,"} {
		if !strings.Contains(opts, want) {
			t.Errorf("delete %q lacks %q", got, want)
		}
	}
}

// The renderer draws a transmitted preview as placeholders in kitty mode,
// as half-blocks otherwise or when the column is too narrow.
func TestRenderer_ImageModeKittyDrawsPlaceholders(t *testing.T) {
	r := New(NewTheme("dark")).DeferImages()
	el := &dpe.Element{Category: "Image", Text: ""}
	img := testImage(40, 20)
	cols, rows := PreviewCells(img, 80)
	if cols != 40 || rows != 10 {
		t.Fatalf("PreviewCells = %d×%d, want 40×10", cols, rows)
	}
	r.SetPreview(el, Preview{Mime: "image/png", Thumb: img, Kitty: KittyImage{ID: 5, Cols: cols, Rows: rows}})
	count := func(w int) (placeholders, blocks int) {
		for _, l := range r.image(el, w, imageContext{}) {
			placeholders += strings.Count(l, string(kitty.Placeholder))
			blocks += strings.Count(l, "▀")
		}
		return
	}
	if p, b := count(80); p != 0 || b == 0 {
		t.Fatalf("blocks mode: %d placeholders, %d blocks", p, b)
	}
	r.SetImageMode(ImagesKitty)
	if p, b := count(80); p != cols*rows || b != 0 {
		t.Fatalf("kitty mode: %d placeholders (want %d), %d blocks", p, cols*rows, b)
	}
	if p, _ := count(20); p != 0 {
		t.Fatalf("a column narrower than the placement still drew %d placeholders", p)
	}
	r.SetImageMode(ImagesSixel)
	if r.ImageMode() != ImagesBlocks {
		t.Fatalf("sixel mode is %q, want blocks", r.ImageMode())
	}
}
