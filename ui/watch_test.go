package ui

import (
	"archive/zip"
	"bytes"
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

// docxOf is a DOCX of pages, each a heading and its paragraphs, split at
// page breaks, as Word writes them.
func docxOf(t testing.TB, pages [][]string) []byte {
	t.Helper()
	const ns = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	var body strings.Builder
	for i, paras := range pages {
		if i > 0 {
			body.WriteString(`<w:p><w:r><w:br w:type="page"/></w:r></w:p>`)
		}
		fmt.Fprintf(&body, `<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Chapter %d</w:t></w:r></w:p>`, i+1)
		for _, p := range paras {
			fmt.Fprintf(&body, `<w:p><w:r><w:t>%s</w:t></w:r></w:p>`, p)
		}
	}
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, f := range [][2]string{
		{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		{"word/document.xml", `<?xml version="1.0"?><w:document ` + ns + `><w:body>` + body.String() + `</w:body></w:document>`},
	} {
		w, err := z.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// saveAs writes data as an editor saves: a new file renamed over the old.
func saveAs(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func handbookPages(second string) [][]string {
	return [][]string{
		{"Open the valve.", "Check the gauge."},
		{"Log the reading.", second, "Close the valve."},
		{"Hand over the shift."},
	}
}

func watchOptions(t *testing.T, path string) Options {
	opt := openFileOptions(t, path, nil)
	opt.Watch = true
	return opt
}

// A watched file read again when it changes on disk: the same page and
// element stay on screen, and what changed is marked as D marks it (± on
// the page in the sidebar, the gutter on the element, n walks it); an
// edited paragraph is changed (±) with its old text shown under it.
func TestWatch_ChangedFileShowsAtTheSamePlaceWithChangesMarked(t *testing.T) {
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "handbook.docx")
			saveAs(t, path, docxOf(t, handbookPages("Sign the log.")))
			opt := watchOptions(t, path)
			opt.Width, opt.Height = size[0], size[1]
			s := start(t, opt)
			s.waitFor("Open the valve.")
			s.keys("]")
			s.waitFor("Sign the log.")
			s.idle()
			s.keys("j", "j") // the second paragraph
			s.idle()
			saveAs(t, path, docxOf(t, handbookPages("Sign the log twice.")))
			s.waitFor("Sign the log twice.")
			s.waitFor("handbook.docx changed on disk: +1 −1")
			s.keys("n")
			// The edited paragraph is one element changed (±), its old
			// text under it, not one added.
			s.waitFor("change 1/1: changed")
			s.waitFor("was: Sign the log.")
			out := s.final()
			if !strings.Contains(out, "page 2/3") {
				t.Fatalf("the reload left page 2:\n%s", out)
			}
			// The temp dir differs in length from run to run.
			out = regexp.MustCompile(`file /tmp/\S*`).ReplaceAllString(out, "file <tmp>/handbook.docx")
			golden.RequireEqual(t, out)
		})
	}
}

// A file caught half-written does not convert: one line says so and the
// version before stays on screen; the write that completes it is read.
func TestWatch_HalfWrittenFileKeepsTheViewAndSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "handbook.docx")
	full := docxOf(t, handbookPages("Sign the log."))
	saveAs(t, path, full)
	s := start80(t, watchOptions(t, path))
	s.waitFor("Open the valve.")
	s.idle()
	next := docxOf(t, handbookPages("Sign the log twice."))
	saveAs(t, path, next[:len(next)/2])
	s.waitFor("handbook.docx changed on disk but does not read")
	s.waitFor("Open the valve.")
	saveAs(t, path, next)
	s.waitFor("handbook.docx changed on disk:")
	s.keys("]")
	s.waitFor("Sign the log twice.")
	s.final()
}

// Without --watch a change on disk is not read: the view is the one
// opened until r.
func TestWatch_OffByDefault(t *testing.T) {
	path := filepath.Join(t.TempDir(), "handbook.docx")
	saveAs(t, path, docxOf(t, handbookPages("Sign the log.")))
	opt := openFileOptions(t, path, nil)
	s := start80(t, opt)
	s.waitFor("Open the valve.")
	s.idle()
	saveAs(t, path, docxOf(t, [][]string{{"Replaced."}}))
	time.Sleep(10 * watchInterval) // the poll would have seen it by now
	s.keys("r")
	s.waitFor("Replaced.")
	s.final()
}

// watchHandbook is the handbook watched at 80×24, its page 1 shown.
func watchHandbook(t *testing.T) (string, *session) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "handbook.docx")
	saveAs(t, path, docxOf(t, handbookPages("Sign the log.")))
	s := start80(t, watchOptions(t, path))
	s.waitFor("Open the valve.")
	s.idle()
	return path, s
}

// The watch stops when the document closes: its poll's context ends.
func TestWatch_StopsWhenTheDocumentCloses(t *testing.T) {
	_, s := watchHandbook(t)
	s.keys("q")
	m := s.tm.FinalModel(t, teatest.WithFinalTimeout(testbudget.Left(t, 20*time.Second))).(probeModel).m
	d := m.docS()
	if d == nil || d.watch == nil {
		t.Fatal("the document opened with --watch is not watched")
	}
	if d.watch.ctx.Err() == nil {
		t.Fatal("the watch goes on after the document closed")
	}
}

// The time from a save of a 100-page DOCX to its change on screen, for
// the record (logged with -v; no test asserts a wall-clock figure).
func TestWatch_HundredPageDOCXFigure(t *testing.T) {
	// Pages of prose as a report has them: 100 pages of 8 paragraphs of
	// 60 words drawn from a vocabulary, about 300 KB of text.
	vocab := strings.Fields("valve gauge reading shift pump borehole intake pressure flow meter north south creek supply demand " +
		"capacity network main repair crew report quarter budget safety permit sample quality iron chlorine tank reservoir " +
		"pipe leak customer billing telemetry sensor alarm night day weekly monthly annual review plan target spend")
	pages := func(word string) [][]string {
		seed := uint32(7)
		var ps [][]string
		for i := range 100 {
			var paras []string
			for j := range 8 {
				var w []string
				for range 60 {
					seed = seed*1664525 + 1013904223
					w = append(w, vocab[seed>>16%uint32(len(vocab))])
				}
				paras = append(paras, fmt.Sprintf("Paragraph %d of page %d: %s %s.", j, i+1, word, strings.Join(w, " ")))
			}
			ps = append(ps, paras)
		}
		return ps
	}
	path := filepath.Join(t.TempDir(), "big.docx")
	saveAs(t, path, docxOf(t, pages("first")))
	s := start80(t, watchOptions(t, path))
	s.waitFor("page 1/100")
	s.keys(":")
	s.typeText("50")
	s.keys("enter")
	s.waitFor("page 50/100")
	s.waitFor("Paragraph 0 of page 50: first")
	s.idle()
	next := docxOf(t, pages("second"))
	t0 := time.Now()
	saveAs(t, path, next)
	s.waitFor("Paragraph 0 of page 50: second")
	shown := time.Since(t0)
	s.waitFor("big.docx changed on disk: ")
	t.Logf("100-page DOCX (%d bytes): the change on screen %v after the save, marked %v after it", len(next), shown, time.Since(t0))
	s.final()
}

// A watched DPE JSON file is compared as D compares it: the fresh read
// with the version on screen.
func TestWatch_DPEJSONFileIsComparedAsDDoes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.json")
	doc := twoPageTableDoc()
	write := func() {
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		saveAs(t, path, b)
	}
	write()
	opt := testOptions(nil)
	opt.OpenTarget, opt.Watch = path, true
	s := start80(t, opt)
	s.waitFor("No table here.")
	s.idle()
	doc["pages"].([]any)[0].(map[string]any)["elements"] = []any{map[string]any{"category": "NarrativeText", "text": "A table later."}}
	write()
	s.waitFor("A table later.")
	s.waitFor("changed: +1 −1")
	s.final()
}

// A watched DPE JSON file whose table has one cell edited: the table is
// one element changed, and only the edited row is marked in the gutter,
// not every row of it.
func TestWatch_ChangedTableMarksOnlyTheChangedRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.json")
	write := func(south string) {
		html := "<table><tr><th>area</th><th>flow</th></tr><tr><td>north</td><td>10</td></tr><tr><td>south</td><td>" + south +
			"</td></tr><tr><td>east</td><td>30</td></tr><tr><td>west</td><td>40</td></tr></table>"
		b, err := json.Marshal(map[string]any{"doc_ref": "t", "title": "Flows", "file_type": "html", "page_count": 1, "pages": []any{
			map[string]any{"page_index": 0, "elements": []any{
				map[string]any{"category": "NarrativeText", "text": "Flows by area."},
				map[string]any{"category": "Table", "text": "area flow north 10 south " + south + " east 30 west 40",
					"ele_metadata": map[string]any{"text_as_html": html}},
			}}}})
		if err != nil {
			t.Fatal(err)
		}
		saveAs(t, path, b)
	}
	write("20")
	opt := testOptions(nil)
	opt.OpenTarget, opt.Watch = path, true
	s := start80(t, opt)
	s.waitFor("north")
	s.idle()
	write("25")
	s.waitFor("25")
	s.waitFor("changed:")
	out := s.final()
	marked := 0
	for _, l := range strings.Split(out, "\n") {
		_, l, _ = strings.Cut(l, "│") // the body, right of the sidebar
		for _, cell := range []string{"area", "north", "south", "east", "west"} {
			if strings.Contains(l, cell) && strings.Contains(l, "±") {
				marked++
				if cell != "south" {
					t.Errorf("the row of %s is marked, though only south's changed:\n%s", cell, out)
				}
			}
		}
	}
	if marked != 1 {
		t.Fatalf("%d rows marked, want the south row alone:\n%s", marked, out)
	}
}

// A watched file deleted on disk: one line says so, the last version
// read stays on screen, and the file written again is read.
func TestWatch_DeletedFileSaysSoAndKeepsTheLastVersion(t *testing.T) {
	path, s := watchHandbook(t)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	s.waitFor("handbook.docx was deleted or moved away on disk; showing the last version read")
	if f := s.frame(); !strings.Contains(f, "Open the valve.") {
		t.Fatalf("the view went with the file:\n%s", f)
	}
	saveAs(t, path, docxOf(t, [][]string{{"Written again."}}))
	s.waitFor("Written again.")
	s.final()
}
