package ui

import (
	"strings"
	"testing"
)

// An image without text or a URL of its own, its id a hash: the save
// name is the document's title, the page and which image of the page it
// is; one with a caption after it takes the caption.
func TestDocImage_SaveNameIsNoHash(t *testing.T) {
	png := tinyPNG(t)
	img := func(id string) map[string]any {
		return map[string]any{"element_id": id, "category": "Image", "text": "",
			"ele_metadata": map[string]any{"image_base64": png, "image_mime_type": "image/png"}}
	}
	m := openJSON(t, 80, 24, map[string]any{"doc_ref": "h", "title": "Field Report", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			img("3f9a1c0d8e7b6a5f4e3d2c1b0a998877"),
			img("77aa1c0d8e7b6a5f4e3d2c1b0a998877"),
			img("88bb1c0d8e7b6a5f4e3d2c1b0a998877"),
			map[string]any{"category": "FigureCaption", "text": "Pump house: north side?"},
		}}}})
	for _, want := range []string{"Field-Report-page-1-image-1.png", "Field-Report-page-1-image-2.png", "Pump-house:-north-side?.png"} {
		press(t, m, "s")
		got := m.bar.input.Value()
		press(t, m, "esc", "j")
		if strings.Contains(got, "3f9a") || strings.Contains(got, "77aa") || strings.Contains(got, "88bb") {
			t.Fatalf("proposed %q: the element id, a hash", got)
		}
		if got != strings.NewReplacer(":", "_", "?", "_").Replace(want) {
			t.Errorf("proposed %q, want %q", got, want)
		}
	}
}

// One pixel is one pixel.
func TestDocImage_OnePixelIsSingular(t *testing.T) {
	if got := megapixels(1); got != "1 pixel" {
		t.Fatalf("megapixels(1) = %q", got)
	}
}
