package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/convert"
)

// open FILE shows the document get FILE produces: a Markdown file's image
// beside it (![A red rectangle](figure.png)) is embedded in both, read
// from the file's own folder by one rule. The TUI's open converted without
// the folder, so its image said "no image data" while get showed it.
func TestOpen_MarkdownImagesAsGetReadsThem(t *testing.T) {
	file := filepath.Join(realFixtures, "src", "slides.md")
	conv := convert.New(convert.Options{CacheDir: "-"})
	defer conv.Close()
	doc, err := openFileInTUI(context.Background(), conv, file)
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	images := 0
	for i := range doc.PageCount() {
		p, err := doc.Page(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		for _, el := range p.Elements {
			if el.Category == "Image" {
				images++
				if el.MetaString("image_base64") == "" {
					t.Errorf("open: image %q has no image data: %v", el.Text, el.Metadata)
				}
			}
		}
	}
	if images != 1 {
		t.Errorf("open: %d images, want 1", images)
	}
	code, out, errOut := runCLI(t, "get", "--format", "json", file)
	if code != exitOK || !strings.Contains(out, `"image_base64"`) {
		t.Errorf("get: exit %d, stderr %q, image data missing", code, errOut)
	}
}
