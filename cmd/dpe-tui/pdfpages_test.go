package main

import (
	"encoding/json"
	"strings"
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

// `check` of a scanned PDF notes the page without a text layer, 1-based,
// and says nothing of the kind on a page that has text.
func TestCheckPDFNamesThePageWithoutText(t *testing.T) {
	code, out, errOut := runCLI(t, "check", convertFixture("pdf/scanned.pdf"))
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "DPE-E053 $.pages[0].metadata.no_text_layer  page 1 has no text layer") || !strings.Contains(out, "1 note(s)") {
		t.Errorf("check of a scanned page:\n%s\nwant a DPE-E053 note naming page 1", out)
	}
	code, out, _ = runCLI(t, "check", convertFixture("pdf/figure.pdf"))
	if code != exitOK || strings.Contains(out, "DPE-E053") {
		t.Errorf("check of a page with text: exit %d\n%s\nwant no DPE-E053", code, out)
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

// A table that continues on the next page is linked to its first part
// (continued_from, the repeated header counted) by `get --page N` of the
// second page alone just as by `convert` of the whole file.
func TestGetPDFPageLinksAContinuedTable(t *testing.T) {
	type link struct {
		ID       string
		From     string
		Repeated int
	}
	type elements = []struct {
		ID       string                     `json:"element_id"`
		Category string                     `json:"category"`
		Meta     map[string]json.RawMessage `json:"ele_metadata"`
	}
	links := func(els elements) []link {
		var out []link
		for _, el := range els {
			if el.Category != "Table" {
				continue
			}
			var l link
			l.ID = el.ID
			json.Unmarshal(el.Meta["continued_from"], &l.From)
			json.Unmarshal(el.Meta["repeated_header_rows"], &l.Repeated)
			out = append(out, l)
		}
		return out
	}
	code, out, errOut := runCLI(t, "convert", convertFixture("pdf/tables.pdf"))
	if code != exitOK || errOut != "" {
		t.Fatalf("convert: exit %d, stderr %q", code, errOut)
	}
	var whole struct {
		Pages []struct{ Elements elements } `json:"pages"`
	}
	if err := json.Unmarshal([]byte(out), &whole); err != nil || len(whole.Pages) < 2 {
		t.Fatalf("convert: %d pages, %v", len(whole.Pages), err)
	}
	want := links(whole.Pages[1].Elements)
	if len(want) == 0 || want[0].From == "" || want[0].Repeated != 1 {
		t.Fatalf("convert: page 2's tables %+v; want the long ledger continued with its header repeated", want)
	}
	code, out, errOut = runCLI(t, "get", convertFixture("pdf/tables.pdf"), "--page", "2", "--format", "json")
	if code != exitOK || errOut != "" {
		t.Fatalf("get --page 2: exit %d, stderr %q", code, errOut)
	}
	var page struct{ Elements elements }
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatal(err)
	}
	if got := links(page.Elements); len(got) != len(want) || got[0] != want[0] {
		t.Errorf("get --page 2: tables %+v; want %+v as convert has them", got, want)
	}
}
