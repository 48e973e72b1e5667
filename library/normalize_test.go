package library

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"
)

// readErr is resources/read expected to fail; it returns the error.
func readErr(t *testing.T, cs *mcp.ClientSession, uri string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err == nil {
		t.Fatalf("read %s: no error", uri)
	}
	return err
}

func docTitle(t *testing.T, c *mcp.ResourceContents) string {
	t.Helper()
	var d struct {
		URI   string `json:"uri"`
		Pages []struct {
			Elements []struct {
				Text string `json:"text"`
			} `json:"elements"`
		} `json:"pages"`
	}
	if err := json.Unmarshal([]byte(c.Text), &d); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range d.Pages {
		for _, e := range p.Elements {
			b.WriteString(e.Text + "\n")
		}
	}
	return b.String()
}

// A file named in NFD on disk (as macOS writes it) is read by the URI a
// user types (NFC), raw or escaped, and by its own URI; the answer carries
// the URI the listing shows.
func TestNormalization_NFCURIFindsAnNFDFile(t *testing.T) {
	dir := t.TempDir()
	nfd := norm.NFD.String("café") + ".md"
	if nfd == "café.md" {
		t.Fatal("NFD form equals NFC: test would prove nothing")
	}
	write(t, filepath.Join(dir, "menu", nfd), []byte("# Menu\n\ndecomposed body\n"))
	srv, err := New(Options{Dir: dir, Host: "org.example.docs", CacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	all, _ := listAll(t, cs)
	listed := ""
	for _, r := range all {
		if strings.HasPrefix(r.URI, "dpe://") {
			listed = r.URI
		}
	}
	if want := escapeDocRef("org.example.docs", "menu/"+nfd); listed != want {
		t.Fatalf("listed %q, want %q", listed, want)
	}
	for _, uri := range []string{
		listed,
		"dpe://org.example.docs/menu/caf%C3%A9.md", // NFC, escaped
		"dpe://org.example.docs/menu/café.md",      // NFC, raw as typed
		"dpe://ORG.example.docs/menu/caf%C3%A9.md", // host case
	} {
		c := read(t, cs, uri)
		if c.URI != listed {
			t.Errorf("read %s: contents URI %q, want the listed %q", uri, c.URI, listed)
		}
		if !strings.Contains(docTitle(t, c), "decomposed body") {
			t.Errorf("read %s: not the file's content: %.200s", uri, c.Text)
		}
	}
	for _, uri := range []string{
		"dpe://org.example.docs/menu/cafe.md",
		"dpe://org.example.docs/menu/caf%C3%A9.md?x=1",
		"dpe://org.example.docs/menu/caf%C3%A9.md#p1",
		"dpe://someone@org.example.docs/menu/caf%C3%A9.md",
		"dpe://org.example.docs/caf%C3%A9.md",
	} {
		if err := readErr(t, cs, uri); !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s: %v, want not found", uri, err)
		}
	}
}

// Two files whose names differ only by normalization are two documents:
// each URI reads its own file (exact match first). A URI that matches both
// only once normalized, and neither exactly, is not found, with why.
func TestNormalization_TwoFormsAreNeverConfused(t *testing.T) {
	dir := t.TempDir()
	nfc, nfd := "café.md", norm.NFD.String("café")+".md"
	write(t, filepath.Join(dir, nfc), []byte("# C\n\ncomposed file\n"))
	write(t, filepath.Join(dir, nfd), []byte("# D\n\ndecomposed file\n"))
	// Mixed forms: "é" composed then decomposed, and the other way round;
	// the all-NFC URI matches both once normalized and neither exactly.
	e, ed := "é", norm.NFD.String("é")
	write(t, filepath.Join(dir, e+ed+".md"), []byte("# M1\n\nmixed one\n"))
	write(t, filepath.Join(dir, ed+e+".md"), []byte("# M2\n\nmixed two\n"))
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Skipf("this filesystem folds normalization forms (%d entries)", len(entries))
	}
	lib, err := Open(Options{Dir: dir, Host: "org.example.docs", CacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lib.Close() })
	cs := connect(t, lib.Server())
	if got := docTitle(t, read(t, cs, escapeDocRef("org.example.docs", nfc))); !strings.Contains(got, "composed file") || strings.Contains(got, "decomposed") {
		t.Errorf("NFC URI read %q, want the composed file", got)
	}
	if got := docTitle(t, read(t, cs, escapeDocRef("org.example.docs", nfd))); !strings.Contains(got, "decomposed file") {
		t.Errorf("NFD URI read %q, want the decomposed file", got)
	}
	if got := docTitle(t, read(t, cs, escapeDocRef("org.example.docs", e+ed+".md"))); !strings.Contains(got, "mixed one") {
		t.Errorf("mixed URI read %q, want its own file", got)
	}
	err = readErr(t, cs, escapeDocRef("org.example.docs", e+e+".md"))
	if msg := err.Error(); !strings.Contains(msg, "not found") || !strings.Contains(msg, "2 files") || !strings.Contains(msg, "Unicode normalization") {
		t.Errorf("ambiguous URI: %v, want not found naming the ambiguity", err)
	}

	// A rescan that removes one of the pair makes the other the unique
	// NFC match of the all-NFC URI.
	if err := os.Remove(filepath.Join(dir, ed+e+".md")); err != nil {
		t.Fatal(err)
	}
	if !lib.rescan() {
		t.Fatal("rescan saw no change")
	}
	if got := docTitle(t, read(t, cs, escapeDocRef("org.example.docs", e+e+".md"))); !strings.Contains(got, "mixed one") {
		t.Errorf("after the rescan, the NFC URI read %q, want the one file left", got)
	}
}
