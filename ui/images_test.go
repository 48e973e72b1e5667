package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// bombPNG is a 1-bit PNG declaring 4096×4096: about 2 KB on the wire, 16.7
// megapixels once decoded.
func bombPNG(tb testing.TB) string {
	tb.Helper()
	img := image.NewPaletted(image.Rect(0, 0, 4096, 4096), color.Palette{color.Black, color.White})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	if buf.Len() > 8<<10 {
		tb.Fatalf("bomb PNG is %d bytes, want a small file", buf.Len())
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// imagePageDoc is one page of n Image elements that all share data.
func imagePageDoc(tb testing.TB, n int, data string) []byte {
	tb.Helper()
	els := make([]any, n)
	for i := range els {
		els[i] = map[string]any{"element_id": "img" + string(rune('a'+i%26)), "category": "Image",
			"ele_metadata": map[string]any{"image_base64": data, "image_mime_type": "image/png"}}
	}
	raw, err := json.Marshal(map[string]any{"doc_ref": "bomb", "title": "Images", "page_count": 1,
		"pages": []any{map[string]any{"page_index": 0, "title": "Images", "elements": els}}})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// countingModel counts the messages the program handles after the first
// key press q, and keeps the last model for inspection.
type countingModel struct {
	Model
	afterQ *atomic.Int64
	total  *atomic.Int64
	sawQ   *atomic.Bool
}

func (c countingModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	c.total.Add(1)
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "q" {
		c.sawQ.Store(true)
	}
	if c.sawQ.Load() {
		c.afterQ.Add(1)
	}
	if pm, ok := msg.(probeMsg); ok {
		pm.reply <- c.Model.View().Content
		return c, nil
	}
	m, cmd := c.Model.Update(msg)
	c.Model = m.(Model)
	return c, cmd
}

func TestImages_TwoThousandImagePageQuitsAtOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bomb.json")
	if err := os.WriteFile(path, imagePageDoc(t, 2000, bombPNG(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := testOptions(nil)
	opt.Agent, opt.OpenTarget = nil, path
	c := countingModel{Model: New(opt), afterQ: &atomic.Int64{}, total: &atomic.Int64{}, sawQ: &atomic.Bool{}}
	tm := teatest.NewTestModel(t, c, teatest.WithInitialTermSize(goldenW, goldenH),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	s := &session{t: t, tm: tm}
	s.waitFor("2000 elements")
	s.keys("q")
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(testbudget.Left(t, 60*time.Second))).(countingModel)
	// q is the next message after whatever was already queued: at most the
	// decodes in flight (the concurrency bound) answer before it.
	_, _, decoders := imageBudgets(fm.m.e.opt)
	if n := c.afterQ.Load(); n > int64(2+decoders) {
		t.Fatalf("%d messages handled from q to the end, want q, the quit and at most %d decode results", n, decoders)
	}
	if n := c.total.Load(); n > 200 {
		t.Fatalf("%d messages in all for one page: decoding is not bounded", n)
	}
	// Every image declares 16.7 MP; the 64 MP page budget lets 3 decode.
	if got := fm.m.docS().images.decodes; got > 3 {
		t.Fatalf("%d decodes started, want at most 3 (page budget)", got)
	}
}

func TestImages_PageBudgetPlaceholderSaysWhy(t *testing.T) {
	m := openImages(t, nil, decodedDoc(t, imagePageDoc(t, 20, bombPNG(t))))
	// Only images in view (plus a small lookahead) were even considered.
	if n := len(m.docS().images.started); n >= 20 {
		t.Fatalf("%d of 20 images handled at once: off-screen ones must wait", n)
	}
	press(t, m, "G") // the end of the page: past the three that fit
	out := frame(m)
	if !strings.Contains(out, "image not previewed: page pixel budget 64 MP reached") {
		t.Fatalf("no budget placeholder on screen:\n%s", out)
	}
	if m.docS().images.decodes != 3 {
		t.Fatalf("decodes = %d, want 3 (3×16.7 MP fit in 64 MP)", m.docS().images.decodes)
	}
}

func TestImages_DocumentBudgetAndStaleResultsDropped(t *testing.T) {
	m := openImages(t, func(o *Options) { o.ImageDocPixels = 40 }, // the tiny PNG is 8×4: one fits
		decodedDoc(t, imagePageDoc(t, 4, tinyPNG(t))))
	if m.docS().images.decodes != 1 {
		t.Fatalf("decodes = %d, want 1 within a 40-pixel document budget", m.docS().images.decodes)
	}
	if out := frame(m); !strings.Contains(out, "image not previewed: document pixel budget 40 pixels reached") {
		t.Fatalf("no document budget placeholder:\n%s", out)
	}
	// A result from an older document generation is dropped.
	el := m.docS().pages[0].p.Elements[0]
	before, _ := m.e.renderer.PreviewOf(el)
	m.update(imageDecodedMsg{gen: m.docS().images.gen - 1, page: 0, el: 0, ptr: el, err: context.Canceled})
	after, _ := m.e.renderer.PreviewOf(el)
	if before.Problem != after.Problem || (before.Thumb == nil) != (after.Thumb == nil) {
		t.Fatal("a stale decode result changed the preview")
	}
}

// openImages opens a decoded document in a model driven synchronously, with
// every command (probe, decodes) run to the end.
func openImages(t *testing.T, tweak func(*Options), op *dpe.Opened) *model {
	t.Helper()
	opt := Options{Theme: "dark", Width: 100, Height: 40, Now: func() time.Time { return fixedNow }, StatusTimeout: -1, OpenTarget: "img.json"}
	if tweak != nil {
		tweak(&opt)
	}
	m := New(opt).m
	o := m.e.ops.add("open", 0)
	run(t, m, m.update(openedFor(m, o.id, op, "img.json")))
	return m
}

func decodedDoc(tb testing.TB, raw []byte) *dpe.Opened {
	tb.Helper()
	d, err := dpe.Decode(raw, dpe.DefaultLimits())
	if err != nil {
		tb.Fatal(err)
	}
	if err := d.EnsurePage(0, dpe.DefaultLimits()); err != nil {
		tb.Fatal(err)
	}
	return &dpe.Opened{Kind: dpe.KindDocument, Doc: d, Body: raw}
}

// BenchmarkKeyToFrameWhileImagesDecode is one key press (Update + View) on
// the 2,000-image page while previews decode in the background with no
// budget in the way.
func BenchmarkKeyToFrameWhileImagesDecode(b *testing.B) {
	opt := Options{Theme: "dark", Width: 100, Height: 40, Now: func() time.Time { return fixedNow }, StatusTimeout: -1,
		OpenTarget: "img.json", ImagePagePixels: 1 << 62, ImageDocPixels: 1 << 62}
	m := New(opt).m
	results := make(chan tea.Msg, 64)
	var runCmd func(tea.Cmd)
	runCmd = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			msg := c()
			if bm, ok := msg.(tea.BatchMsg); ok {
				for _, c := range bm {
					runCmd(c)
				}
				return
			}
			if msg != nil {
				results <- msg
			}
		}()
	}
	o := m.e.ops.add("open", 0)
	op := decodedDoc(b, imagePageDoc(b, 2000, bombPNG(b)))
	runCmd(m.update(openedFor(m, o.id, op, "img.json")))
	// Wait for the header probe, so that decodes are running when timing
	// starts.
	for m.docS().images.probed[0] == nil {
		runCmd(m.update(<-results))
	}
	_ = m.view()
	keys := []string{"j", "j", "j", "k"}
	i := 0
	for b.Loop() {
		// Install what has arrived, as the program would between keys.
		for drained := false; !drained; {
			select {
			case msg := <-results:
				runCmd(m.update(msg))
			default:
				drained = true
			}
		}
		runCmd(m.update(keyMsg(keys[i%len(keys)])))
		_ = m.view()
		i++
	}
	b.ReportMetric(float64(m.docS().images.decodes), "decodes")
}

// --images off draws no preview and says so on the description line,
// which keeps the size and dimensions; nothing stays "pending".
func TestImages_OffKeepsSizeAndDimensionsNoPending(t *testing.T) {
	opt := Options{Theme: "dark", Width: 100, Height: 40, Now: func() time.Time { return fixedNow }, StatusTimeout: -1, OpenTarget: "img.json", Images: "off"}
	m := New(opt).m
	if cmd := m.startImageQuery(); cmd != nil {
		t.Fatal("--images off should not query the terminal")
	}
	o := m.e.ops.add("open", 0)
	run(t, m, m.update(openedFor(m, o.id, decodedDoc(t, imagePageDoc(t, 2, tinyPNG(t))), "img.json")))
	out := frame(m)
	if strings.Contains(out, "preview pending") || strings.Contains(out, "▀") {
		t.Fatalf("--images off shows a pending or drawn preview:\n%s", out)
	}
	if !regexp.MustCompile(`▣ image/png · \d+ B · 8×4 \(previews off\)`).MatchString(out) {
		t.Fatalf("the description line should keep size and dimensions and say previews are off:\n%s", out)
	}
	if n := m.docS().images.decodes; n != 0 {
		t.Fatalf("%d images decoded with previews off", n)
	}
}
