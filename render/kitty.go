package render

import (
	"fmt"
	"image"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/kitty"
)

// Image modes: how a decoded preview reaches the screen.
const (
	// ImagesBlocks draws half-block cells (two pixels a cell, in colour):
	// works on every colour terminal, and is the fallback.
	ImagesBlocks = "blocks"
	// ImagesKitty transmits the preview once with the kitty graphics
	// protocol as a virtual placement, then draws Unicode placeholder
	// cells: ordinary text, so the renderer's diffing, clipping and
	// scrolling keep working.
	ImagesKitty = "kitty"
	// ImagesSixel is accepted and drawn as blocks: a sixel image is
	// painted at the cursor outside the cell grid, and the Bubble Tea v2
	// renderer, which rewrites only changed cells, neither knows the cells
	// it covers nor repaints it when the view scrolls, so it would be
	// left behind or erased at random. Blocks draw the same preview
	// correctly.
	ImagesSixel = "sixel"
	// ImagesOff draws no preview (the description line stays).
	ImagesOff = "off"
)

// KittyImage is a preview transmitted to the terminal under ID, placed
// virtually over Cols×Rows cells.
type KittyImage struct {
	ID         uint32
	Cols, Rows int
}

// MaxKittyID is the largest image id: the id travels as the placeholder
// cells' 24-bit foreground colour.
const MaxKittyID = 1<<24 - 1

// SetImageMode picks how previews with a transmitted kitty image are drawn
// (ImagesKitty), or that none are (ImagesOff: the description line says
// so); any other mode draws half-blocks. Previews are drawn
// again on their next use.
func (r *Renderer) SetImageMode(mode string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if mode != ImagesKitty && mode != ImagesOff {
		mode = ImagesBlocks
	}
	r.imageMode = mode
	r.cache = map[cacheKey]cacheEntry{}
	r.cacheLines = 0
}

// ImageMode is the mode SetImageMode installed (ImagesBlocks by default).
func (r *Renderer) ImageMode() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.imageMode == "" {
		return ImagesBlocks
	}
	return r.imageMode
}

// PreviewCells is the cell size of img's preview in a column of width
// cells: at most previewMaxCols×previewMaxRows, about square pixels on a
// terminal whose cells are twice as tall as wide. Kitty placements and
// half-blocks use the same size, so switching modes keeps the layout.
func PreviewCells(img image.Image, width int) (cols, rows int) {
	b := img.Bounds()
	iw, ih := b.Dx(), b.Dy()
	if iw <= 0 || ih <= 0 || width <= 0 {
		return 0, 0
	}
	cols = min(width, previewMaxCols, iw)
	rows = max((cols*ih+iw)/(2*iw), 1)
	if rows > previewMaxRows {
		rows = previewMaxRows
		cols = max(min(cols, rows*2*iw/ih), 1)
	}
	return cols, rows
}

// KittyTransmit is the escape sequence that sends img (a decoded preview,
// re-encoded here as PNG: no byte of the document reaches the terminal)
// under id, with a virtual placement of cols×rows cells (a=T, U=1),
// quietly (q=2: the terminal sends no answer into the input), in chunks.
func KittyTransmit(id uint32, img image.Image, cols, rows int) (string, error) {
	if id == 0 || id > MaxKittyID {
		return "", fmt.Errorf("kitty image id %d out of range", id)
	}
	if img == nil || cols <= 0 || rows <= 0 {
		return "", fmt.Errorf("kitty image %d: nothing to place", id)
	}
	var b strings.Builder
	err := kitty.EncodeGraphics(&b, img, &kitty.Options{
		Action: kitty.TransmitAndPut, Transmission: kitty.Direct, Format: kitty.PNG,
		ID: int(id), Quiet: 2, VirtualPlacement: true, Columns: cols, Rows: rows, Chunk: true,
	})
	if err != nil {
		return "", fmt.Errorf("kitty image %d: %w", id, err)
	}
	return b.String(), nil
}

// KittyDelete is the escape sequence that deletes image id and frees its
// data (a=d, d=I).
func KittyDelete(id uint32) string {
	o := kitty.Options{Action: kitty.Delete, Delete: kitty.DeleteID, DeleteResources: true, ID: int(id), Quiet: 2}
	return ansi.KittyGraphics(nil, o.Options()...)
}

// KittyPlaceholders draws image id's placement as rows lines of cols
// placeholder cells (U+10EEEE with the row and column diacritics), the id
// in the foreground colour.
func KittyPlaceholders(id uint32, cols, rows int) []string {
	fg := fmt.Sprintf("\x1b[38;2;%d;%d;%dm", id>>16&0xFF, id>>8&0xFF, id&0xFF)
	lines := make([]string, rows)
	var sb strings.Builder
	for y := range rows {
		sb.Reset()
		sb.WriteString(fg)
		for x := range cols {
			sb.WriteRune(kitty.Placeholder)
			sb.WriteRune(kitty.Diacritic(y))
			sb.WriteRune(kitty.Diacritic(x))
		}
		sb.WriteString("\x1b[39m")
		lines[y] = sb.String()
	}
	return lines
}
