package convert

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// TestPDFUnwatchCalls holds the wazero this build uses to the field
// pdfUnwatchCalls switches: when a new version moves it, this fails
// instead of every conversion silently paying a goroutine per call.
func TestPDFUnwatchCalls(t *testing.T) {
	c := New(Options{})
	defer c.Close()
	if _, err := c.pdf.start(); err != nil {
		t.Fatal(err)
	}
	inst, release, err := c.pdf.instance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	defer inst.Close()
	f, ok := pdfWatchSwitch(inst)
	if !ok {
		t.Fatal("wazero's ensureTermination is not where pdfWatchSwitch looks: calls stay watched")
	}
	if f.Bool() {
		t.Fatal("calls are still watched after the engine started")
	}
}

// TestPDFCharsAgreeWithGoPDFium: pdfChars's one-call reads give what
// go-pdfium's requests give, character by character, on a page of the
// corpus; and they are available with this build's go-pdfium (else every
// page pays four to seven calls a character again).
func TestPDFCharsAgreeWithGoPDFium(t *testing.T) {
	pg := directPage(t, "twocolumns.pdf")
	inst, tp, ch, raw := pg.inst, pg.tp, pg.ch, pg.raw
	for i := range pg.count {
		u, _ := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp, Index: i})
		if got, err := ch.unicodeAt(raw, i); err != nil || got != rune(u.Unicode) {
			t.Fatalf("char %d: %q (%v), go-pdfium %q", i, got, err, rune(u.Unicode))
		}
		bx, berr := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: i})
		l, tp2, rt, b, ok, err := ch.looseBox(raw, i)
		if err != nil || ok != (berr == nil) || ok && (l != float64(bx.Rect.Left) || tp2 != float64(bx.Rect.Top) || rt != float64(bx.Rect.Right) || b != float64(bx.Rect.Bottom)) {
			t.Fatalf("char %d box %v %v %v %v (%v, %v), go-pdfium %+v (%v)", i, l, tp2, rt, b, ok, err, bx, berr)
		}
		o, oerr := inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp, Index: i})
		if y, ok := ch.originY(raw, i); ok != (oerr == nil) || ok && y != o.Y {
			t.Fatalf("char %d origin y %v (%v), go-pdfium %+v (%v)", i, y, ok, o, oerr)
		}
	}
}

// TestPDFFontAgreesWithGoPDFium: pdfChars's one-call font read judges
// each character's font as go-pdfium's FPDFText_GetFontInfo does, on a
// page with prose and code in one family (DejaVu Sans and Sans Mono).
func TestPDFFontAgreesWithGoPDFium(t *testing.T) {
	pg := directPage(t, "samefamily.pdf")
	seen := map[bool]int{}
	for i := range pg.count {
		want := pg.r.monospace(pg.tp, i)
		got, err := pg.ch.monospace(pg.raw, i)
		if err != nil || got != want {
			t.Fatalf("char %d: monospace %v (%v), go-pdfium's font says %v", i, got, err, want)
		}
		seen[got]++
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Fatalf("fixed-pitch and proportional characters: %v (want both)", seen)
	}
}

// pdfDirectPage is page 1 of a corpus PDF opened for pdfChars's reads.
type pdfDirectPage struct {
	inst  pdfium.Pdfium
	r     *pdfReader
	tp    references.FPDF_TEXTPAGE
	ch    *pdfChars
	raw   uint64
	count int
}

func directPage(t *testing.T, name string) pdfDirectPage {
	t.Helper()
	c := New(Options{})
	t.Cleanup(func() { c.Close() })
	data, err := os.ReadFile(filepath.Join("testdata", "pdf", name))
	if err != nil {
		t.Fatal(err)
	}
	inst, release, err := c.pdf.instance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r, err := openReader(context.Background(), inst, release, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.close() })
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: r.doc.Document, Index: 0}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage}) })
	ch := r.chars()
	raw, ok := pdfTextPageHandle(inst, tp.TextPage)
	if ch == nil || !ok {
		t.Fatal("pdfChars cannot reach go-pdfium's module or text page handle")
	}
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || n.Count < 100 {
		t.Fatalf("%v chars, %v", n, err)
	}
	return pdfDirectPage{inst: inst, r: r, tp: tp.TextPage, ch: ch, raw: raw, count: n.Count}
}
