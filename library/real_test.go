package library

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// realFiles are the files of real/ (made by LibreOffice, pandoc,
// openpyxl and Python's email package) and what each converts to.
var realFiles = []struct {
	name, fileType string
	pages          int
}{
	{"soffice.pdf", "pdf", 1},
	{"pandoc.docx", "docx", 3},
	{"openpyxl.xlsx", "xlsx", 2},
	{"pandoc.pptx", "pptx", 5},
	{"message.eml", "eml", 1},
	{"pandoc.epub", "epub", 0}, // checked against the read below
}

func putFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// badFolder is a folder with every real file, a truncated PDF, a zip that
// is no document under a .docx name and a .xlsx that is plain text.
func badFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range realFiles {
		putFile(t, filepath.Join(dir, "real", f.name), mustRead(t, "real/"+f.name))
	}
	pdf := mustRead(t, "real/soffice.pdf")
	putFile(t, filepath.Join(dir, "bad", "cut.pdf"), pdf[:len(pdf)/2])
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("readme.txt")
	w.Write([]byte("just a zip"))
	zw.Close()
	putFile(t, filepath.Join(dir, "bad", "fake.docx"), zb.Bytes())
	putFile(t, filepath.Join(dir, "bad", "text.xlsx"), []byte("name,value\na,1\n"))
	return dir
}

// TestDir_RealFormatsServedBadFilesNoted: through the MCP server, every
// real format is listed with its _meta and reads as a valid document whose
// page count the listing showed; each bad file is listed with its one-line
// cause and reading it fails with that cause, while the others list.
func TestDir_RealFormatsServedBadFilesNoted(t *testing.T) {
	dir := badFolder(t)
	srv, err := New(Options{Dir: dir, Host: "org.example.real"})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	all, _ := listAll(t, cs)
	byName := map[string]*mcp.Resource{}
	for _, r := range all {
		byName[r.Name] = r
	}
	if len(all) != len(realFiles)+3+1 {
		t.Errorf("listed %d resources, want %d real + 3 bad + status", len(all), len(realFiles))
	}
	for _, f := range realFiles {
		r := byName["real/"+f.name]
		if r == nil {
			t.Errorf("real/%s not listed", f.name)
			continue
		}
		checkResourceShape(t, r)
		if r.Meta["file_type"] != f.fileType || r.Meta["error"] != nil {
			t.Errorf("%s: _meta %v", f.name, r.Meta)
		}
		if fu, _ := r.Meta["file_uri"].(string); !strings.HasSuffix(fu, "/real/"+f.name) {
			t.Errorf("%s: file_uri %q", f.name, fu)
		}
		c := read(t, cs, r.URI)
		checkConformance(t, r.URI, c.Text)
		var d wireDoc
		if err := json.Unmarshal([]byte(c.Text), &d); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if d.FileType != f.fileType || d.PageCount != len(d.Pages) || (f.pages > 0 && d.PageCount != f.pages) {
			t.Errorf("%s: file_type %q page_count %d (%d pages), want %s, %d", f.name, d.FileType, d.PageCount, len(d.Pages), f.fileType, f.pages)
		}
		if got := r.Meta["page_count"]; got != float64(d.PageCount) {
			t.Errorf("%s: listed page_count %v, document has %d", f.name, got, d.PageCount)
		}
		var head struct {
			LastModified string `json:"last_modified"`
		}
		json.Unmarshal([]byte(c.Text), &head)
		if r.Annotations.LastModified != head.LastModified || head.LastModified == "" {
			t.Errorf("%s: lastModified %q, document %q", f.name, r.Annotations.LastModified, head.LastModified)
		}
	}
	for name, cause := range map[string]string{
		"bad/cut.pdf":   "truncated PDF",
		"bad/fake.docx": "not OOXML",
		"bad/text.xlsx": "not a XLSX file",
	} {
		r := byName[name]
		if r == nil {
			t.Errorf("%s not listed", name)
			continue
		}
		e, _ := r.Meta["error"].(string)
		if !strings.Contains(e, cause) || !strings.HasPrefix(e, name+": ") || strings.Contains(e, "\n") || !strings.Contains(r.Description, cause) {
			t.Errorf("%s: _meta.error %q, description %q: want one line naming the file and %q", name, e, r.Description, cause)
		}
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: r.URI})
		if err == nil || !strings.Contains(err.Error(), cause) {
			t.Errorf("%s: read error %v, want %q", name, err, cause)
		}
	}
}

// TestDir_ChangedFileIsListedAgainAndReconverted: with the Finder's
// re-walk, a file changed on disk (new size and mtime) sends
// resources/list_changed and its next read is converted again (the cache
// is keyed by path + size + mtime).
func TestDir_ChangedFileIsListedAgainAndReconverted(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "notes.md")
	putFile(t, p, []byte("# First\n\nbody\n"))
	lib, err := Open(Options{Dir: dir, Host: "org.example.real", Finder: &FinderOptions{Memory: true, Rescan: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	notified := make(chan struct{}, 16)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := lib.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			select {
			case notified <- struct{}{}:
			default:
			}
		},
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	uri := "dpe://org.example.real/notes.md"
	wait := func(what string) {
		t.Helper()
		select {
		case <-notified:
		case <-ctx.Done():
			t.Fatalf("no resources/list_changed after %s", what)
		}
	}
	if got := read(t, cs, uri).Text; !strings.Contains(got, `"title":"First"`) {
		t.Fatalf("first read: %.200s", got)
	}
	// A new mtime and size: the re-walk sees it.
	putFile(t, p, []byte("# Second title\n\nbody\n"))
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	deadline := testbudget.Until(t, 20*time.Second)
	for {
		wait("the file changed")
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			if r.URI == uri && r.Title == "Second title" {
				if got := read(t, cs, uri).Text; !strings.Contains(got, `"title":"Second title"`) {
					t.Fatalf("read after the change: %.200s", got)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("listing never showed the changed title")
		}
	}
}

// A file whose page count is learnt only when it is read (a PDF) is
// listed without a page_count until then, not as one page; a file changed
// since the walk is listed, once read, with its new mtime as lastModified,
// as with its new page count.
func TestDir_ReadRefinesPageCountAndLastModified(t *testing.T) {
	dir := t.TempDir()
	// Three pages whose /Pages object is in a compressed object stream,
	// where the walk's page-count hint cannot see it.
	if _, err := exec.LookPath("qpdf"); err != nil {
		interoptest.Need(t, "qpdf is not installed: %v", err)
	}
	one := "../convert/testdata/soffice.pdf"
	if out, err := exec.Command("qpdf", "--empty", "--pages", one, one, one, "--", "--object-streams=generate", filepath.Join(dir, "made by soffice.pdf")).CombinedOutput(); err != nil {
		t.Fatalf("qpdf: %v: %s", err, out)
	}
	md := filepath.Join(dir, "a.md")
	putFile(t, md, []byte("# One\n\nfirst\n"))
	lib, err := Open(Options{Dir: dir, Host: "org.example.real"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	cs := connect(t, lib.Server())
	ctx := context.Background()
	listed := func(uri string) *mcp.Resource {
		t.Helper()
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			if r.URI == uri {
				return r
			}
		}
		t.Fatalf("%s is not listed", uri)
		return nil
	}
	pdfURI, mdURI := "dpe://org.example.real/made%20by%20soffice.pdf", "dpe://org.example.real/a.md"
	if pc, ok := listed(pdfURI).Meta["page_count"]; ok {
		t.Errorf("unread PDF listed with page_count %v, want none (%q)", pc, listed(pdfURI).Description)
	}
	read(t, cs, pdfURI)
	if pc, _ := listed(pdfURI).Meta["page_count"].(float64); pc != 3 {
		t.Errorf("read PDF listed with page_count %v, want 3", listed(pdfURI).Meta["page_count"])
	}

	putFile(t, md, []byte("# One\n\nfirst\n\n# Two\n\nsecond\n"))
	later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(md, later, later); err != nil {
		t.Fatal(err)
	}
	read(t, cs, mdURI)
	r := listed(mdURI)
	if pc, _ := r.Meta["page_count"].(float64); pc != 2 || r.Annotations == nil || !strings.HasPrefix(r.Annotations.LastModified, "2030-01-01") {
		t.Errorf("changed file listed with page_count %v, lastModified %+v; want 2 and 2030-01-01", r.Meta["page_count"], r.Annotations)
	}
}

// TestDir_PDFWithBytesAfterItsEOFIsListedAndReads: a PDF with junk
// appended after %%EOF (a mail gateway's footer, a botched download
// resumed) is read by PDFium, so the listing agrees: its title and page
// count, no error. A PDF cut short is still listed as truncated.
func TestDir_PDFWithBytesAfterItsEOFIsListedAndReads(t *testing.T) {
	dir := t.TempDir()
	pdf := mustRead(t, "real/soffice.pdf")
	junk := bytes.Repeat([]byte("junk after the end \x00\xff"), 400)
	putFile(t, filepath.Join(dir, "tail.pdf"), append(append([]byte(nil), pdf...), junk...))
	putFile(t, filepath.Join(dir, "cut.pdf"), pdf[:len(pdf)/2])
	srv, err := New(Options{Dir: dir, Host: "org.example.tail"})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	all, _ := listAll(t, cs)
	byName := map[string]*mcp.Resource{}
	for _, r := range all {
		byName[r.Name] = r
	}
	r := byName["tail.pdf"]
	if r == nil {
		t.Fatalf("tail.pdf not listed: %v", byName)
	}
	if r.Meta["error"] != nil {
		t.Fatalf("tail.pdf listed as broken: %v", r.Meta["error"])
	}
	c := read(t, cs, r.URI)
	var d wireDoc
	if err := json.Unmarshal([]byte(c.Text), &d); err != nil {
		t.Fatal(err)
	}
	if d.PageCount == 0 || r.Meta["page_count"] != float64(d.PageCount) {
		t.Errorf("tail.pdf: listed page_count %v, the document has %d", r.Meta["page_count"], d.PageCount)
	}
	if cut := byName["cut.pdf"]; cut == nil {
		t.Error("cut.pdf not listed")
	} else if e, _ := cut.Meta["error"].(string); !strings.Contains(e, "truncated PDF") {
		t.Errorf("cut.pdf: _meta.error %q, want truncated PDF", e)
	}
}
