package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realFixtures holds files made by tools nobody here wrote (pandoc,
// LibreOffice, openpyxl), shared with package convert.
const realFixtures = "../../convert/testdata"

// TestGet_LocalRealFilesAsMarkdown: get FILE converts a PDF, a DOCX and an
// XLSX in-process (no server) and prints their Markdown.
func TestGet_LocalRealFilesAsMarkdown(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string // in this order
	}{
		{"soffice.pdf", []string{"Fixture Corpus", "Introduction", "This corpus is converted by tools nobody here wrote."}},
		{"pandoc.docx", []string{"# Fixture Corpus", "\n# Introduction\n", "\n## Lists\n", "- First item", "  - Nested item"}},
		{"openpyxl.xlsx", []string{"Page 1: Sales", "| Region | Q1 | Q2 | Total |", "| North | 10 | 12 | 22 |", "Page 2: Notes"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, tc.file))
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			at := 0
			for _, w := range tc.want {
				i := strings.Index(out[at:], w)
				if i < 0 {
					t.Fatalf("%q missing (or out of order) in:\n%.2000s", w, out)
				}
				at += i + len(w)
			}
		})
	}
}

// TestGet_LocalJSONIsTheConvertedDocument: --format json prints the DPE
// document convert makes, with file_type and the file:// URI of the file.
func TestGet_LocalJSONIsTheConvertedDocument(t *testing.T) {
	p := filepath.Join(realFixtures, "pandoc.docx")
	code, out, errOut := runCLI(t, "get", "--format", "json", p)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var d struct {
		FileType  string `json:"file_type"`
		FileURI   string `json:"file_uri"`
		PageCount int    `json:"page_count"`
		Pages     []json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v\n%.500s", err, out)
	}
	abs, _ := filepath.Abs(p)
	if d.FileType != "docx" || d.FileURI != "file://"+filepath.ToSlash(abs) || d.PageCount < 2 || len(d.Pages) != d.PageCount {
		t.Errorf("file_type %q file_uri %q page_count %d pages %d", d.FileType, d.FileURI, d.PageCount, len(d.Pages))
	}
}

// TestCheck_LocalRealPDFIsClean: the converted LibreOffice PDF has no
// conformance violations (check exits 0).
func TestCheck_LocalRealPDFIsClean(t *testing.T) {
	code, out, errOut := runCLI(t, "check", "--json", filepath.Join(realFixtures, "soffice.pdf"))
	if code != exitOK || strings.Contains(out, `"severity":"violation"`) {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
}

// TestGet_LocalBadFilesFailInOneLine: a missing file, a truncated PDF, a
// zip that is no document and a legacy .doc each end the command at once
// with exit 1 and one line naming the file once.
func TestGet_LocalBadFilesFailInOneLine(t *testing.T) {
	dir := t.TempDir()
	pdf, err := os.ReadFile(filepath.Join(realFixtures, "soffice.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("notes/readme.txt")
	w.Write([]byte("not an office file"))
	zw.Close()
	ole := append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 504)...)
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.pdf"), "no such file"},
		{write("cut.pdf", pdf[:len(pdf)/3]), "cut.pdf"},
		{write("fake.docx", zb.Bytes()), "not OOXML"},
		{write("old.doc", ole), "legacy Word binary"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			code, out, errOut := runBounded(t, "get", "--format", "md", tc.path) // a bound against hangs
			if code != exitRuntime || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, filepath.Base(tc.path)) != 1 {
				t.Errorf("stderr %q: want one line naming %s once, with %q", errOut, filepath.Base(tc.path), tc.want)
			}
		})
	}
}

// TestGet_LocalMarkdownEmbedsImagesOfItsFolderOnly: a Markdown file named
// on the command line embeds an image next to it, never one outside its
// folder.
func TestGet_LocalMarkdownEmbedsImagesOfItsFolderOnly(t *testing.T) {
	png, err := os.ReadFile(filepath.Join(realFixtures, "src", "figure.png"))
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	dir := filepath.Join(t.TempDir(), "doc")
	if err := os.MkdirAll(filepath.Join(dir, "img"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "img", "f.png"), png, 0o600)
	os.WriteFile(filepath.Join(outside, "secret.png"), png, 0o600)
	if err := os.Symlink(filepath.Join(outside, "secret.png"), filepath.Join(dir, "link.png")); err != nil {
		t.Fatal(err)
	}
	md := "# Doc\n\n![inside](img/f.png)\n\n![link](link.png)\n\n![up](../" + filepath.Base(outside) + "/secret.png)\n"
	p := filepath.Join(dir, "doc.md")
	os.WriteFile(p, []byte(md), 0o600)
	code, out, errOut := runCLI(t, "get", "--format", "json", p)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var d struct {
		FileType string `json:"file_type"`
		Pages    []struct {
			Elements []struct {
				Text string         `json:"text"`
				Meta map[string]any `json:"ele_metadata"`
			} `json:"elements"`
		} `json:"pages"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	embedded := map[string]bool{}
	for _, e := range d.Pages[0].Elements {
		if e.Meta["image_base64"] != nil {
			embedded[e.Text] = true
		}
	}
	if d.FileType != "md" || !embedded["inside"] || embedded["link"] || embedded["up"] {
		t.Errorf("file_type %q, embedded %v: want only the image inside the folder", d.FileType, embedded)
	}
}

// TestServe_DemoListsAndServesRealDocuments: the demo stack (embedded
// corpus, no --docs) lists the real/ files with their _meta, and get
// reads them through the office, converted on first read.
func TestServe_DemoListsAndServesRealDocuments(t *testing.T) {
	st := startDocsStack(t, "", nil)
	rows := lsJSON(t, st.URL)
	want := map[string]string{"soffice.pdf": "pdf", "pandoc.docx": "docx", "openpyxl.xlsx": "xlsx",
		"pandoc.pptx": "pptx", "message.eml": "eml", "pandoc.epub": "epub"}
	uris := map[string]string{}
	for _, r := range rows {
		uri, _ := r["uri"].(string)
		for name, ft := range want {
			if strings.HasSuffix(uri, "/real/"+name) {
				if r["file_type"] != ft {
					t.Errorf("%s: file_type %v, want %s", name, r["file_type"], ft)
				}
				if n, _ := r["page_count"].(float64); n < 1 {
					t.Errorf("%s: page_count %v", name, r["page_count"])
				}
				uris[name] = uri
			}
		}
	}
	if len(uris) != len(want) {
		t.Fatalf("demo lists %d of the %d real files: %v", len(uris), len(want), uris)
	}
	for name, text := range map[string]string{"soffice.pdf": "This corpus is converted by tools nobody here wrote.", "pandoc.docx": "\n# Introduction\n", "openpyxl.xlsx": "| North | 10 | 12 | 22 |"} {
		code, out, errOut := runAgent(t, "get", uris[name], "--url="+st.URL, "--format", "md")
		if code != 0 || !strings.Contains(out, text) {
			t.Errorf("get %s: exit %d, stderr %q, stdout %.300q", name, code, errOut, out)
		}
	}
}
