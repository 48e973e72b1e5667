package ui

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// start80 is start at 80×24, the size of the goldens of the screens in
// openfile, finding, finder and diffview.
func start80(t *testing.T, opt Options) *session {
	t.Helper()
	opt.Width, opt.Height = 80, 24
	tm := teatest.NewTestModel(t, probeModel{New(opt)},
		teatest.WithInitialTermSize(80, 24),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	return &session{t: t, tm: tm}
}

// countingSource counts the pages converted, so a test can tell that the
// first page showed before the others were converted.
type countingSource struct {
	PageSource
	mu    sync.Mutex
	pages []int
}

func (c *countingSource) Page(ctx context.Context, i int) (*dpe.Page, error) {
	c.mu.Lock()
	c.pages = append(c.pages, i)
	c.mu.Unlock()
	return c.PageSource.Page(ctx, i)
}

// JSON is the converter's whole document, as the source it counts has it
// (the inspector hashes a converted file from it).
func (c *countingSource) JSON(ctx context.Context) ([]byte, error) {
	w, ok := c.PageSource.(wholeJSON)
	if !ok {
		return nil, errors.New("the source writes no whole document")
	}
	return w.JSON(ctx)
}

func (c *countingSource) converted() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.pages...)
}

// convertOpener is the OpenFile `dpe-tui open` wires: the real converter.
func convertOpener(t *testing.T, seen **countingSource) OpenFileFunc {
	t.Helper()
	c := convert.New(convert.Options{})
	t.Cleanup(func() { c.Close() })
	return func(ctx context.Context, path string) (PageSource, error) {
		d, err := c.OpenFile(ctx, path)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { d.Close() })
		cs := &countingSource{PageSource: d}
		if seen != nil {
			*seen = cs
		}
		return cs, nil
	}
}

func openFileOptions(t *testing.T, file string, seen **countingSource) Options {
	opt := testOptions(nil)
	opt.OpenTarget = file
	opt.OpenFile = convertOpener(t, seen)
	return opt
}

func TestOpenFile_PDFFirstPageShowsAlone(t *testing.T) {
	var src *countingSource
	s := start80(t, openFileOptions(t, filepath.Join("..", "convert", "testdata", "soffice.pdf"), &src))
	s.waitFor("page 1/1")
	s.waitFor("Introduction")
	s.idle()
	if got := src.converted(); len(got) != 1 || got[0] != 0 {
		t.Fatalf("pages converted when page 1 showed = %v, want only [0]", got)
	}
	s.keys(":")
	s.typeText("2")
	s.keys("enter")
	s.waitFor(":2: no such page (1–1)") // and the prompt closed
	golden.RequireEqual(t, s.final())
}

func TestOpenFile_ColonJumpConvertsOnlyThatPage(t *testing.T) {
	var src *countingSource
	s := start80(t, openFileOptions(t, filepath.Join("..", "convert", "testdata", "soffice.pptx"), &src))
	s.waitFor("page 1/")
	s.idle()
	n := len(src.Skeleton().Pages)
	if n < 3 {
		t.Fatalf("fixture has %d pages; the jump needs three", n)
	}
	s.keys(":")
	s.typeText("3")
	s.keys("enter")
	s.waitFor("page 3/")
	out := s.final()
	if got := src.converted(); len(got) != 2 || got[0] != 0 || got[1] != 2 {
		t.Fatalf("pages converted after :3 = %v, want [0 2]", got)
	}
	golden.RequireEqual(t, out)
}

func TestOpenFile_XLSXTableScrolls(t *testing.T) {
	s := start80(t, openFileOptions(t, filepath.Join("..", "convert", "testdata", "soffice.xlsx"), nil))
	s.waitFor("Region")
	s.idle()
	if f := s.frame(); strings.Contains(f, "The end of the corpus") {
		t.Fatalf("the last rows already show at 80×24; the scroll test needs a longer table:\n%s", f)
	}
	s.keys("t")
	for range 30 {
		s.keys("down")
	}
	s.waitFor("The end of the corpus")
	golden.RequireEqual(t, s.final())
}

// blockingSource converts page 1 at once and blocks every other page
// until its context ends, recording that it did.
type blockingSource struct {
	doc       *dpe.Document
	cancelled chan struct{}
	once      sync.Once
	running   chan struct{}
	started   sync.Once
}

func (b *blockingSource) Skeleton() *dpe.Document { return b.doc }

func (b *blockingSource) Page(ctx context.Context, i int) (*dpe.Page, error) {
	if i == 0 {
		return dpe.DecodePage([]byte(`{"page_index":0,"elements":[{"category":"NarrativeText","text":"first page"}]}`), dpe.DefaultLimits())
	}
	b.started.Do(func() { close(b.running) })
	<-ctx.Done()
	b.once.Do(func() { close(b.cancelled) })
	return nil, ctx.Err()
}

func TestOpenFile_EscCancelsAPageConversion(t *testing.T) {
	doc, err := dpe.Decode([]byte(`{"doc_ref":"big.pdf","title":"Big","page_count":3,"pages":[`+
		`{"page_index":0,"uri":"convert:page/0"},{"page_index":1,"uri":"convert:page/1"},{"page_index":2,"uri":"convert:page/2"}]}`), dpe.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	b := &blockingSource{doc: doc, cancelled: make(chan struct{}), running: make(chan struct{})}
	opt := testOptions(nil)
	opt.OpenTarget = "/tmp/big.pdf"
	opt.OpenFile = func(ctx context.Context, path string) (PageSource, error) {
		if path != "/tmp/big.pdf" {
			t.Errorf("OpenFile(%q), want the target path", path)
		}
		return b, nil
	}
	s := start80(t, opt)
	s.waitFor("first page")
	s.keys("]")
	s.waitFor("loading page 2")
	select {
	case <-b.running:
	case <-time.After(testbudget.Left(t, 10*time.Second)):
		t.Fatal("page 2 is not being converted")
	}
	s.keys("esc")
	select {
	case <-b.cancelled:
	case <-time.After(testbudget.Left(t, 10*time.Second)):
		t.Log(s.frame())
		t.Fatal("esc did not cancel the conversion's context")
	}
	s.waitFor("cancelled: loading page 2")
	s.keys("[")
	s.waitFor("first page")
	s.final()
}

func TestOpenFile_ConversionErrorIsOneSanitizedLine(t *testing.T) {
	opt := testOptions(nil)
	opt.OpenTarget = "evil.pdf"
	opt.OpenFile = func(ctx context.Context, path string) (PageSource, error) {
		return nil, errors.New("evil.pdf: encrypted PDF\x1b]0;pwned\x07 (a password is needed)")
	}
	s := start80(t, opt)
	s.waitFor("encrypted PDF")
	out := s.final()
	if strings.ContainsRune(out, '\x1b') || strings.Contains(out, "\a") {
		t.Fatalf("escape sequence reached the screen:\n%q", out)
	}
}

func TestOpenFile_DPEJSONStillFetched(t *testing.T) {
	if _, ok := localFile("file:///srv/report.dpe.json"); ok {
		t.Error("a DPE JSON file must be fetched and decoded, not converted")
	}
	if _, ok := localFile("https://example.com/a.pdf"); ok {
		t.Error("a URL must be fetched, not converted")
	}
	if p, ok := localFile("file:///srv/a.pdf"); !ok || p != filepath.FromSlash("/srv/a.pdf") {
		t.Errorf("localFile(file:///srv/a.pdf) = %q, %v", p, ok)
	}
}

// frame is the current screen as plain text.
func (s *session) frame() string {
	s.t.Helper()
	reply := make(chan string, 1)
	s.tm.Send(probeMsg{reply: reply})
	select {
	case f := <-reply:
		return f
	case <-time.After(testbudget.Left(s.t, 10*time.Second)):
		s.t.Fatal("no frame")
	}
	return ""
}
