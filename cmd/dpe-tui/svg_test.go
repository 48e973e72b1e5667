package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_SVGIsAnImage: an SVG drawing LibreOffice Draw exports is an
// image: get gives one Image element holding the drawing (image/svg+xml,
// its A4 page in pixels) and --format md its image line; it was refused
// as an unknown file type, and called "binary" when fetched.
func TestGet_SVGIsAnImage(t *testing.T) {
	p := filepath.Join(realFixtures, "soffice-figure.svg")
	code, out, errOut := runCLI(t, "get", "--format", "json", p)
	if code != exitOK {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	var d struct {
		FileType string `json:"file_type"`
		Pages    []struct {
			Elements []struct {
				Category string
				Meta     struct {
					Mime   string `json:"image_mime_type"`
					Data   string `json:"image_base64"`
					Width  int    `json:"image_width"`
					Height int    `json:"image_height"`
				} `json:"ele_metadata"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.FileType != "svg" || len(d.Pages) != 1 || len(d.Pages[0].Elements) != 1 {
		t.Fatalf("get: %.400s", out)
	}
	el := d.Pages[0].Elements[0]
	if el.Category != "Image" || el.Meta.Mime != "image/svg+xml" || el.Meta.Data == "" || el.Meta.Width != 794 || el.Meta.Height != 1123 {
		t.Errorf("element %s %s %dx%d, data %d bytes", el.Category, el.Meta.Mime, el.Meta.Width, el.Meta.Height, len(el.Meta.Data))
	}
	code, md, errOut := runCLI(t, "get", "--format", "md", p)
	if code != exitOK || !strings.Contains(md, "![](soffice-figure.svg)") {
		t.Errorf("get --format md: exit %d %s\n%s", code, errOut, md)
	}
	if code, _, errOut := runCLI(t, "check", "--strict", p); code != exitOK {
		t.Errorf("check --strict: exit %d %s", code, errOut)
	}
}
