package library

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/internal/hostilefiles"
)

// hostileFile writes the named hostile file into dir.
func hostileFile(t *testing.T, dir, name, as string) {
	t.Helper()
	for _, f := range hostilefiles.All() {
		if f.Name == name {
			var buf bytes.Buffer
			if err := f.Write(&buf); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, as), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no hostile file %s", name)
}

// resourceBy lists the library and returns the resource named name.
func resourceBy(t *testing.T, cs *mcp.ClientSession, name string) *mcp.Resource {
	t.Helper()
	res, _ := listAll(t, cs)
	for _, r := range res {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("%s is not listed", name)
	return nil
}

// waitListing polls the listing of name until ok holds, up to the test's
// own deadline.
func waitListing(t *testing.T, cs *mcp.ClientSession, name string, ok func(*mcp.Resource) bool) *mcp.Resource {
	t.Helper()
	for {
		r := resourceBy(t, cs, name)
		if ok(r) {
			return r
		}
		if dl, has := t.Deadline(); has && time.Until(dl) < 5*time.Second {
			t.Fatalf("%s still listed as %q: %q %v", name, r.Title, r.Description, r.Meta)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A walk converts files inline only within its ListBudget: past it (here
// at once) every file is listed by name and type straight away, readable,
// and converted in the background, where each listing is refined with
// what its conversion learnt: a title, or the document's own error, with
// the conversion deadline (ConvertTimeout, the converter's own) naming
// the limit. A folder of slow files never keeps the others waiting.
func TestOpen_SlowFilesListedByNameAndConvertedInTheBackground(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "good.md"), []byte("# Good title\n\nStill here.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Seconds of parsing before its output budget: past a 200 ms
	// conversion deadline, whatever the machine.
	hostileFile(t, dir, "docx-tiny-paragraphs.docx", "slow.docx")
	lib, err := Open(Options{Dir: dir, ListBudget: time.Nanosecond, ConvertTimeout: 200 * time.Millisecond, CacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	cs := connect(t, lib.Server())
	slow := resourceBy(t, cs, "slow.docx")
	if slow.Title != "slow.docx" || slow.Meta["file_type"] != "docx" || slow.Meta["error"] != nil {
		t.Errorf("before its conversion slow.docx is listed as %q %v, want its name and type", slow.Title, slow.Meta)
	}
	if got := read(t, cs, "dpe://"+DefaultHost+"/good.md"); !strings.Contains(got.Text, "Still here.") {
		t.Errorf("good.md read %.200q", got.Text)
	}
	waitListing(t, cs, "good.md", func(r *mcp.Resource) bool { return r.Title == "Good title" })
	r := waitListing(t, cs, "slow.docx", func(r *mcp.Resource) bool { return r.Meta["error"] != nil })
	if e, _ := r.Meta["error"].(string); !strings.Contains(e, "conversion time in milliseconds over the limit") || !strings.Contains(e, "> 200") {
		t.Errorf("slow.docx's error %q does not name the conversion deadline", e)
	}
}
