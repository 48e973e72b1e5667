package render

import (
	"encoding/json"
	"image/color"
	"strings"
	"testing"

	gstyles "charm.land/glamour/v2/styles"
	"github.com/alecthomas/chroma/v2/styles"

	"github.com/dpe-tui/dpe-tui/dpe"
)

func TestElement_CacheServesSameWidthAndInvalidatesOnChange(t *testing.T) {
	r := New(NewTheme("notty"))
	e := el(t, "NarrativeText", "first version", nil)
	a := r.ElementLines(e, 40)
	b := r.ElementLines(e, 40)
	if &a[0] != &b[0] {
		t.Error("second render at the same width was not served from the cache")
	}
	if c := r.ElementLines(e, 41); &c[0] == &a[0] {
		t.Error("a different width shared the cached lines")
	}
	e.Text = "second version"
	if got := r.Element(e, 40); got != "second version" {
		t.Errorf("after changing Text: %q", got)
	}
	e.Category = "Title"
	if got := r.Element(e, 40); !strings.HasPrefix(got, "# second version") {
		t.Errorf("after changing Category: %q", got)
	}
	e.Metadata = map[string]json.RawMessage{"category_depth": json.RawMessage("2")}
	if got := r.Element(e, 40); !strings.HasPrefix(got, "### second version") {
		t.Errorf("after changing Metadata: %q", got)
	}
	e.Metadata["category_depth"] = json.RawMessage("1")
	if got := r.Element(e, 40); !strings.HasPrefix(got, "## second version") {
		t.Errorf("after changing a Metadata value in place: %q", got)
	}
}

func TestElement_CacheIsBounded(t *testing.T) {
	r := NewWithLimits(NewTheme("notty"), Limits{MaxCacheLines: 10})
	e := el(t, "Text", "a\nb\nc", nil)
	for w := 1; w < 100; w++ {
		r.ElementLines(e, w)
	}
	r.mu.Lock()
	n := r.cacheLines
	r.mu.Unlock()
	if n > 10 {
		t.Errorf("cache holds %d lines, limit 10", n)
	}
}

func TestElement_LongTextTruncatedWithMarker(t *testing.T) {
	r := NewWithLimits(NewTheme("notty"), Limits{MaxChars: 100})
	out := r.Element(el(t, "NarrativeText", strings.Repeat("word ", 100), nil), 80)
	if !strings.Contains(out, "… 400 more characters (full text in the inspector)") {
		t.Errorf("no truncation marker:\n%s", out)
	}
	if strings.Count(out, "word") > 20 {
		t.Errorf("more than 100 characters shown:\n%s", out)
	}
}

func TestImage_DecodeRefusedOverPixelLimit(t *testing.T) {
	r := NewWithLimits(NewTheme("dark"), Limits{MaxImagePixels: 100})
	out := r.Element(el(t, "Image", "", map[string]any{"image_base64": testPNG(t, 32, 16)}), 80)
	if !strings.Contains(out, "32×16") || !strings.Contains(out, "too large to preview (limit 100 pixels)") {
		t.Errorf("no pixel-limit message:\n%s", out)
	}
	if strings.Contains(out, "▀") {
		t.Error("preview drawn despite the limit")
	}
}

func TestImage_PreviewOnlyWithColor(t *testing.T) {
	e := el(t, "Image", "", map[string]any{"image_base64": "data:image/png;base64," + testPNG(t, 8, 8)})
	if out := New(NewTheme("dark")).Element(e, 80); !strings.Contains(out, "▀") || !strings.Contains(out, "image/png") {
		t.Errorf("dark: no preview or mime:\n%s", out)
	}
	if out := New(NewTheme("notty")).Element(e, 80); strings.Contains(out, "▀") || !strings.Contains(out, "8×8") {
		t.Errorf("notty: want text fallback with dimensions:\n%s", out)
	}
}

func TestPage_BlocksPerElementWithRelatedCaption(t *testing.T) {
	img := el(t, "Image", "", map[string]any{"image_mime_type": "image/png"})
	img.ID = "img1"
	cap1 := el(t, "FigureCaption", "Figure 1: linked by parent_id", map[string]any{"parent_id": "img1"})
	p := &dpe.Page{Index: 1, Decoded: true, Elements: []*dpe.Element{img, el(t, "Text", "between", nil), cap1}}
	r := New(NewTheme("notty"))
	blocks := r.Page(p, 60)
	if len(blocks) != 3 || blocks[0].ElementIndex != 0 || blocks[2].ElementIndex != 2 {
		t.Fatalf("blocks = %+v", blocks)
	}
	if !strings.Contains(strings.Join(blocks[0].Lines, "\n"), "Figure 1: linked by parent_id") {
		t.Errorf("image block lacks its related caption: %q", blocks[0].Lines)
	}
	lines, starts := Flatten(blocks, 1)
	if starts[1] != len(blocks[0].Lines)+1 || len(lines) != starts[2]+len(blocks[2].Lines) {
		t.Errorf("Flatten starts %v for %d lines", starts, len(lines))
	}
}

func TestPage_NotLoadedAndEmpty(t *testing.T) {
	r := New(NewTheme("notty"))
	b := r.Page(&dpe.Page{URI: "https://x/p2.json"}, 80)
	if len(b) != 1 || b[0].ElementIndex != -1 || !strings.Contains(b[0].Lines[0], "not loaded") {
		t.Errorf("unloaded page: %+v", b)
	}
	b = r.Page(&dpe.Page{Decoded: true}, 80)
	if len(b) != 1 || !strings.Contains(b[0].Lines[0], "empty") {
		t.Errorf("empty page: %+v", b)
	}
}

func TestNewTheme_UnknownNameIsNotty(t *testing.T) {
	if th := NewTheme("solarized"); th.Name != "notty" || th.Color {
		t.Errorf("NewTheme(solarized) = %q color %v", th.Name, th.Color)
	}
	// One palette: Glamour and chroma use the Tokyo Night variants the
	// theme's colours come from, by fixed name (never "auto").
	want := map[string][2]string{"dark": {"tokyo-night", "tokyonight-night"}, "light": {"light", "tokyonight-day"}}
	for n, w := range want {
		th := NewTheme(n)
		if th.Name != n || !th.Color || th.Glamour != w[0] || th.Chroma != w[1] || th.Palette.Fg == "" {
			t.Errorf("NewTheme(%s): glamour %q chroma %q palette %+v", n, th.Glamour, th.Chroma, th.Palette)
		}
		if styles.Get(th.Chroma).Name != th.Chroma {
			t.Errorf("chroma has no style %q", th.Chroma)
		}
		if _, ok := gstyles.DefaultStyles[th.Glamour]; !ok {
			t.Errorf("glamour has no style %q", th.Glamour)
		}
	}
	if th := NewTheme("dark"); th.Background != (color.RGBA{0x1A, 0x1B, 0x26, 0xFF}) {
		t.Errorf("dark background %v", th.Background)
	}
}

func TestCategory_V01MapsToStandardRenderers(t *testing.T) {
	r := New(NewTheme("notty"))
	pairs := [][2]*dpe.Element{
		{el(t, "heading", "H", nil), el(t, "Title", "H", nil)},
		{el(t, "list", "i", nil), el(t, "ListItem", "i", nil)},
		{el(t, "code", "x", map[string]any{"language": "go"}), el(t, "CodeSnippet", "x", map[string]any{"language": "go"})},
		{el(t, "table", "a,b\n1,2", nil), el(t, "Table", "a,b\n1,2", nil)},
		{el(t, "separator", "", nil), el(t, "PageBreak", "", nil)},
		{el(t, "formula", "x", nil), el(t, "Formula", "x", nil)},
		{el(t, "header", "x", nil), el(t, "Header", "x", nil)},
		{el(t, "UncategorizedText", "x", nil), el(t, "Text", "x", nil)},
		{el(t, "text", "**x**", nil), el(t, "NarrativeText", "**x**", nil)},
		{el(t, "TITLE", "x", nil), el(t, "Title", "x", nil)},
		{el(t, "form", "k: v", nil), el(t, "FormKeysValues", "k: v", nil)},
		{el(t, "chart", "c", nil), el(t, "Image", "c", nil)},
	}
	for _, p := range pairs {
		if a, b := r.Element(p[0], 40), r.Element(p[1], 40); a != b {
			t.Errorf("%s renders %q, %s renders %q", p[0].Category, a, p[1].Category, b)
		}
	}
}

func TestPageView_AppliesTableScrollByIndex(t *testing.T) {
	tbl := el(t, "Table", wideTableText(12, 3), nil)
	p := &dpe.Page{Decoded: true, Elements: []*dpe.Element{el(t, "Text", "x", nil), tbl}}
	r := New(NewTheme("notty"))
	b := r.PageView(p, 80, map[int]TableView{1: {XOffset: 3}})
	if got := b[1].Lines[0]; got != "◂ cols 5–9 of 12 ▸" {
		t.Errorf("scrolled table marker = %q", got)
	}
	if got := r.Page(p, 80)[1].Lines[0]; got != "cols 2–6 of 12 ▸" {
		t.Errorf("unscrolled table marker = %q", got)
	}
}

func TestRenderer_ConcurrentUseIsSafe(t *testing.T) {
	r := New(NewTheme("dark"))
	fs := fixtures(t)
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i, f := range fs {
				w := 30 + (i+g)%3*20
				r.Table(f.el, w, f.view)
				r.TableWindow(f.el, w, TableView{XOffset: g}, 0, 3)
				if g == 0 && i%10 == 0 {
					r.Invalidate(f.el)
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	r.Reset()
	if got := r.Element(fs[0].el, 80); !strings.Contains(got, "Annual Report 2024") {
		t.Errorf("after Reset: %q", got)
	}
}

func TestImageData_DecodesForSaving(t *testing.T) {
	data, mime, err := ImageData(el(t, "Image", "", map[string]any{"image_base64": testPNG(t, 4, 4)}), 0)
	if err != nil || mime != "image/png" || len(data) < 8 || string(data[1:4]) != "PNG" {
		t.Fatalf("ImageData = %d bytes, %q, %v", len(data), mime, err)
	}
	if _, _, err := ImageData(el(t, "Image", "", map[string]any{"image_base64": testPNG(t, 4, 4)}), 10); err == nil {
		t.Error("no error over the byte limit")
	}
	if d, m, err := ImageData(el(t, "Image", "", nil), 0); d != nil || m != "" || err != nil {
		t.Errorf("no data: %v %q %v", d, m, err)
	}
}
