package main

import (
	"encoding/json"
	"testing"
)

// A PDF's pictures come out of `convert` as Image elements with their alt
// text and a preview, and a scanned page says it has no text layer.
func TestConvertPDFImagesAndScannedPage(t *testing.T) {
	code, out, errOut := runCLI(t, "convert", convertFixture("pdf/figure.pdf"))
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	doc := decodeConverted(t, []byte(out))
	var alts []string
	for _, el := range doc.Pages[0].Elements {
		if el.Category == "Image" {
			alts = append(alts, el.Text)
			if len(el.Metadata["image_base64"]) < 100 {
				t.Errorf("image %q has no preview", el.Text)
			}
		}
	}
	if len(alts) != 2 || alts[0] != "A lighthouse drawn in grey" || alts[1] != "A beacon on a ridge, in grey" {
		t.Errorf("images %q; want the two figures' alt texts in order", alts)
	}

	code, out, errOut = runCLI(t, "convert", convertFixture("pdf/scanned.pdf"))
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	doc = decodeConverted(t, []byte(out))
	var page struct {
		Metadata struct {
			NoTextLayer bool `json:"no_text_layer"`
		} `json:"metadata"`
	}
	json.Unmarshal(doc.Pages[0].Raw, &page)
	els := doc.Pages[0].Elements
	if !page.Metadata.NoTextLayer || len(els) != 1 || els[0].Category != "Image" {
		t.Errorf("scanned page: no_text_layer %v, %d elements; want true and one Image", page.Metadata.NoTextLayer, len(els))
	}
}

// `get --page N` of a PDF reads one page, and still tells its running
// header and page number (repeated on the pages beside it) from body text
// that only sits where a header would.
func TestGetPDFPageTagsOnlyRunningLines(t *testing.T) {
	furniture := func(file string) []string {
		t.Helper()
		code, out, errOut := runCLI(t, "get", convertFixture(file), "--page", "2", "--format", "json")
		if code != exitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", file, code, errOut)
		}
		var page struct {
			Elements []struct{ Category, Text string } `json:"elements"`
		}
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var tagged []string
		for _, el := range page.Elements {
			switch el.Category {
			case "Header", "Footer", "PageNumber":
				tagged = append(tagged, el.Category+": "+el.Text)
			}
		}
		return tagged
	}
	if got := furniture("pdf/onecolumn.pdf"); len(got) != 2 || got[0] != "Header: Harbour notes · one column" || got[1] != "PageNumber: Page 2" {
		t.Errorf("onecolumn page 2 furniture %q; want its header and page number", got)
	}
	if got := furniture("pdf/plain.pdf"); len(got) != 0 {
		t.Errorf("plain page 2 furniture %q; want none (its first line is body text)", got)
	}
}
