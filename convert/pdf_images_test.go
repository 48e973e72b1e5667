package convert

import (
	"context"
	"image"
	"image/color"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klippa-app/go-pdfium/enums"

	"github.com/dpe-tui/dpe-tui/dpe"
)

func TestBitmapImage(t *testing.T) {
	// 2×2 BGRA with a stride of 12 (4 bytes of padding per row).
	buf := []byte{
		1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0,
		9, 10, 11, 12, 13, 14, 15, 16, 0, 0, 0, 0,
	}
	img := bitmapImage(buf, 2, 2, 12, enums.FPDF_BITMAP_FORMAT_BGRA)
	if got := img.(*image.NRGBA).NRGBAAt(1, 1); got != (color.NRGBA{R: 15, G: 14, B: 13, A: 16}) {
		t.Errorf("pixel (1,1) = %v", got)
	}
	if bitmapImage(buf[:10], 2, 2, 12, enums.FPDF_BITMAP_FORMAT_BGRA) != nil {
		t.Error("a short buffer gave an image")
	}
	if bitmapImage(buf, 2, 2, 12, enums.FPDF_BITMAP_FORMAT_UNKNOWN) != nil {
		t.Error("an unknown format gave an image")
	}
	g := bitmapImage([]byte{7, 8, 0, 9, 10, 0}, 2, 2, 3, enums.FPDF_BITMAP_FORMAT_GRAY).(*image.Gray)
	if g.GrayAt(1, 1).Y != 10 {
		t.Errorf("gray pixel (1,1) = %v", g.GrayAt(1, 1))
	}
}

func TestScaleDown(t *testing.T) {
	big := image.NewGray(image.Rect(0, 0, 3000, 1000))
	s := scaleDown(big, pdfPreviewSide)
	if b := s.Bounds(); b.Dx() != pdfPreviewSide || b.Dy() != 341 {
		t.Errorf("scaled to %v", b)
	}
	if _, gray := s.(*image.Gray); !gray {
		t.Errorf("a gray image scaled to %T", s)
	}
	small := image.NewNRGBA(image.Rect(0, 0, 10, 10))
	if scaleDown(small, pdfPreviewSide) != image.Image(small) {
		t.Error("a small image was copied")
	}
}

func TestCaptionOf(t *testing.T) {
	im := pdfImage{left: 100, bottom: 500, right: 300, top: 600}
	blk := func(text string, top float64) *pdfBlock {
		return &pdfBlock{lines: []*pdfLine{{runs: []pdfRun{{text: text}}}}, left: 100, right: 400, top: top, bottom: top - 10}
	}
	below := blk("Figure 2: the mill", 495)
	above := blk("Fig. 3 the ridge", 615)
	far := blk("Figure 4: far away", 400)
	prose := blk("Figures are drawn by hand", 495)
	if got := captionOf(im, []*pdfBlock{above, below, far, prose}, 10); got != below {
		t.Errorf("caption %v; want the one below", got)
	}
	if got := captionOf(im, []*pdfBlock{above, far}, 10); got != above {
		t.Errorf("caption %v; want the one above", got)
	}
	if got := captionOf(im, []*pdfBlock{far, prose}, 10); got != nil {
		t.Errorf("caption %v; want none", got)
	}
}

func TestFurnitureKeyAndSpot(t *testing.T) {
	for _, c := range [][2]string{{"Page 3", "Page 12"}, {"xii", "7"}, {"Chapter 2: ASN.1  handling 3", "Chapter 2: ASN.1 handling 14"}} {
		if furnitureKey(c[0]) != furnitureKey(c[1]) {
			t.Errorf("%q and %q differ: %q, %q", c[0], c[1], furnitureKey(c[0]), furnitureKey(c[1]))
		}
	}
	if furnitureKey("Harbour notes") == furnitureKey("Harbour tables") {
		t.Error("different words share a key")
	}
	a := pdfCandidate{box: pdfBox{280, 30, 310, 38}, key: "8\x00\x00page"}
	b := pdfCandidate{box: pdfBox{277, 30.5, 313, 38.5}, key: "8\x00\x00page"}
	if !sameSpot(a, b, 1) {
		t.Error("a page number one digit wider is not the same spot")
	}
	b.box.bottom, b.box.top = 40, 48
	if sameSpot(a, b, 1) {
		t.Error("a line 10 pt higher is the same spot")
	}
	b.box = pdfBox{400, 30, 420, 38}
	if sameSpot(a, b, 1) {
		t.Error("a line across the page is the same spot")
	}
}

// Numbers on a running line move as the page number does, or not at all.
func TestNumbersAlike(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		delta int
		want  bool
	}{
		{"Page 3 of 9", "Page 4 of 9", 1, true},
		{"Page 3 of 9", "Page 5 of 9", 2, true},
		{"12", "13", 1, true},
		{"xii", "xiii", 1, true},
		{"Release 2.1", "Release 2.1", 2, true},
		{"Sentence 44.0 lorem ipsum", "Sentence 46.0 lorem ipsum", 1, false},
		{"Sentence 44.0 lorem ipsum", "Sentence 47.0 lorem ipsum", 2, false},
		{"Page 3 of 9", "Page 4 of 11", 1, false},
		{"12", "14", 1, false},
	} {
		if got := numbersAlike(lineNumbers(c.a), lineNumbers(c.b), c.delta); got != c.want {
			t.Errorf("numbersAlike(%q, %q, %d) = %v, want %v", c.a, c.b, c.delta, got, c.want)
		}
	}
}

func TestBandCandidatesSkipLargeText(t *testing.T) {
	runs := []pdfRun{
		{text: "Part", left: 50, right: 80, bottom: 800, top: 814, size: 14},
		{text: "Notes", left: 50, right: 80, bottom: 30, top: 38, size: 8},
	}
	for k := 0; k < 40; k++ { // the body, at 10 pt
		y := 100 + float64(k)*14
		runs = append(runs, pdfRun{text: "body", left: 50, right: 500, bottom: y, top: y + 10, size: 10})
	}
	c := bandCandidates(runs, 842)
	if len(c) != 1 || c[0].text != "Notes" {
		t.Errorf("candidates %+v; want only the small line", c)
	}
}

// JSONPageOnly converts the one page asked for; the others stay manifest
// pages, not read.
func TestJSONPageOnly(t *testing.T) {
	c := testConverter(t)
	d, err := c.OpenFile(context.Background(), filepath.Join("testdata", "pdf", "tables.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	data, err := d.JSONPageOnly(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := dpe.Decode(data, dpe.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) != 2 || doc.Pages[0].URI == "" || strings.Contains(string(doc.Pages[0].Raw), `"elements"`) {
		t.Fatalf("page 1 is not a manifest page: %.200s", doc.Pages[0].Raw)
	}
	if err := doc.EnsurePage(1, dpe.Limits{}); err != nil || len(doc.Pages[1].Elements) == 0 {
		t.Fatalf("page 2: %v, %d elements", err, len(doc.Pages[1].Elements))
	}
	if _, err := d.JSONPageOnly(context.Background(), 2); err == nil {
		t.Error("page 3 of 2 converted")
	}
}
