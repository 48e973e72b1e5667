package render_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

// TestPage_FigureCaptionShownOnce: the TUI's page view of a picture whose
// alternative text is its caption (pandoc writes both: img alt and
// figcaption in HTML and EPUB, descr and a caption paragraph in DOCX)
// shows the caption once; the document keeps the alternative text.
func TestPage_FigureCaptionShownOnce(t *testing.T) {
	const caption = "The new pump on its frame"
	for _, file := range []string{"review.docx", "review.html", "review.epub"} {
		t.Run(file, func(t *testing.T) {
			c := convert.New(convert.Options{})
			defer c.Close()
			d, err := c.OpenFile(context.Background(), filepath.Join("..", "convert", "testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			r := render.New(render.NewTheme("dark"))
			shown, alts := 0, 0
			for i := range d.PageCount() {
				p, err := d.Page(context.Background(), i)
				if err != nil {
					t.Fatal(err)
				}
				for _, el := range p.Elements {
					if el.Category == dpe.CategoryImage && el.Text == caption {
						alts++
					}
				}
				lines, _ := render.Flatten(r.PageView(p, 80, nil), 1)
				shown += strings.Count(ansi.Strip(strings.Join(lines, "\n")), caption)
			}
			if shown != 1 || alts != 1 {
				t.Errorf("caption shown %d times (want 1); images with it as alternative text: %d (want 1)", shown, alts)
			}
		})
	}
}
