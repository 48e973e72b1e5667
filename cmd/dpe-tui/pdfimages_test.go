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
