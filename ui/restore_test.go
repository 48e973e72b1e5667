package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// stateOptions are opt with positions kept under a test's own
// XDG_STATE_HOME, as dpe-tui keeps them under the user's.
func stateOptions(t *testing.T, opt Options) Options {
	t.Helper()
	opt.StateFile = filepath.Join(StateDir(), "positions.json")
	if !strings.HasPrefix(opt.StateFile, os.TempDir()) {
		t.Fatalf("the state file %s is not under the test's XDG_STATE_HOME", opt.StateFile)
	}
	return opt
}

// stateHome is a test's XDG_STATE_HOME. A positions write a command
// started may still be finishing when the program has ended (its temp
// file and rename), so the folder is removed again until it is gone: a
// t.TempDir failed the test now and then with "directory not empty".
func stateHome(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dpe-tui-state-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 50 {
			if err := os.RemoveAll(dir); err == nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	return dir
}

// quit presses q and waits for the program to end (the positions are
// written before it does).
func (s *session) quit() Model {
	s.t.Helper()
	s.idle()
	s.keys("q")
	return s.tm.FinalModel(s.t, teatest.WithFinalTimeout(testbudget.Left(s.t, 20*time.Second))).(probeModel).Model
}

// Reopening a document returns to the page and element it was left at,
// and says so.
func TestRestore_ReopeningReturnsToThePlaceLeft(t *testing.T) {
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", stateHome(t))
			path := filepath.Join(t.TempDir(), "handbook.docx")
			saveAs(t, path, docxOf(t, handbookPages("Sign the log.")))
			opt := stateOptions(t, openFileOptions(t, path, nil))
			opt.Width, opt.Height = size[0], size[1]
			s := start(t, opt)
			s.waitFor("Open the valve.")
			s.keys("]")
			s.waitFor("Sign the log.")
			s.idle()
			s.keys("j", "j")
			s.quit()

			s = start(t, opt)
			s.waitFor("back at page 2, where you left it")
			out := s.final()
			if !strings.Contains(out, "page 2/3") || !strings.Contains(out, "▌ Sign the log.") {
				t.Fatalf("not back at the element left:\n%s", out)
			}
			out = regexp.MustCompile(`file /tmp/\S*`).ReplaceAllString(out, "file <tmp>/handbook.docx")
			golden.RequireEqual(t, out)
		})
	}
}

// A document changed since it was left, with positional element ids (a
// converter numbers them in reading order, so after an edit an id names
// another element): the element left is found by its dpe1 content hash,
// wherever it moved on the page, and said "where you left it"; when it
// was edited or deleted, the place its surviving neighbour gives is
// shown and said "near where you left it"; with nothing left around it,
// the page's top.
func TestRestore_ChangedDocumentFindsTheElementByContentElseNearIt(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", stateHome(t))
	path := filepath.Join(t.TempDir(), "doc.json")
	write := func(texts ...string) {
		var els []any
		for i, text := range texts {
			els = append(els, map[string]any{"element_id": fmt.Sprintf("e%d", i), "category": "NarrativeText", "text": text})
		}
		b, err := json.Marshal(map[string]any{"doc_ref": "d", "title": "Changing", "page_count": 2, "pages": []any{
			map[string]any{"page_index": 0, "elements": []any{map[string]any{"category": "NarrativeText", "text": "First page."}}},
			map[string]any{"page_index": 1, "elements": els},
		}})
		if err != nil {
			t.Fatal(err)
		}
		saveAs(t, path, b)
	}
	opt := testOptions(nil)
	opt.OpenTarget = path
	opt = stateOptions(t, opt)
	reopen := func(want string) *documentScreen {
		t.Helper()
		s := start80(t, opt)
		s.waitFor(want)
		return s.quit().m.docS()
	}
	selected := func(d *documentScreen) string {
		if el := d.selected(); el != nil && d.page == 1 {
			return el.Text
		}
		return fmt.Sprintf("page %d sel %d", d.page+1, d.sel)
	}
	write("Alpha.", "Bravo.", "Charlie.", "Delta.")
	s := start80(t, opt)
	s.waitFor("First page.")
	s.keys("]")
	s.waitFor("Alpha.")
	s.keys("j") // Bravo., id e1
	s.quit()

	write("Zulu.", "Yankee.", "Alpha.", "Bravo.", "Charlie.", "Delta.") // e1 is Yankee now
	if d := reopen("back at page 2, where you left it"); selected(d) != "Bravo." {
		t.Fatalf("moved down two: selected %q, want Bravo. (by content, not by the id e1)", selected(d))
	}
	write("Zulu.", "Yankee.", "Alpha.", "Bravo, edited.", "Charlie.", "Delta.")
	if d := reopen("back at page 2, near where you left it"); selected(d) != "Bravo, edited." {
		t.Fatalf("edited: selected %q, want the element between the neighbours that are left", selected(d))
	}
	write("Zulu.", "Yankee.", "Alpha.", "Charlie.", "Delta.") // the edited one deleted
	if d := reopen("back at page 2, near where you left it"); selected(d) != "Charlie." {
		t.Fatalf("deleted: selected %q, want the element after the neighbour left (Charlie.)", selected(d))
	}
	write("One.", "Two.")
	if d := reopen("back at page 2, near where you left it"); d.page != 1 || d.sel != 0 {
		t.Fatalf("nothing around it left: want page 2's top; page %d, sel %d", d.page+1, d.sel)
	}
}

// The state file holds the last maxPositions documents, newest last, one
// entry per URI.
func TestRestore_StateFileIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dpe-tui", "positions.json")
	p := positions{path: path, loaded: true}
	for i := range maxPositions + 100 {
		p.remember(position{URI: fmt.Sprintf("file:///doc-%d.pdf", i), Page: 2})
	}
	p.remember(position{URI: "file:///doc-200.pdf", Page: 3})
	if msg := p.save()().(positionsSavedMsg); msg.err != nil {
		t.Fatal(msg.err)
	}
	list, err := readPositions(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != maxPositions || list[len(list)-1].URI != "file:///doc-200.pdf" || list[len(list)-1].Page != 3 {
		t.Fatalf("%d entries, newest %+v", len(list), list[len(list)-1])
	}
	if list[0].URI != "file:///doc-100.pdf" || list[len(list)-2].URI != "file:///doc-599.pdf" {
		t.Fatalf("kept %s … %s, want doc-100 … doc-599 then doc-200 (the first 100 dropped, doc-200 once)", list[0].URI, list[len(list)-2].URI)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("state file mode: %v %v", st, err)
	}
}
