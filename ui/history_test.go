package ui

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
)

// Forward in the history has a key every terminal sends: ctrl+i is tab
// where the terminal does not disambiguate keys, and tab is the sidebar
// focus. > goes forward and < back, in every terminal.
func TestHistory_ForwardHasAKeyEveryTerminalSends(t *testing.T) {
	m := openJSON(t, 80, 24, twoPageTableDoc())
	d := m.docS()
	press(t, m, ":", "2", "enter")
	press(t, m, "<")
	if d.page != 0 {
		t.Fatalf("< went to page %d, want 1", d.page+1)
	}
	press(t, m, ">")
	if d.page != 1 {
		t.Fatalf("> went to page %d, want 2", d.page+1)
	}
	// tab, what such a terminal sends for ctrl+i, is the sidebar focus,
	// never a history move.
	press(t, m, "ctrl+o", "tab")
	if d.page != 0 {
		t.Fatalf("tab moved in the history: page %d", d.page+1)
	}
}

// The help names ctrl+i only once the terminal said it tells ctrl+i
// from tab (a tea.KeyboardEnhancementsMsg); before, forward is >.
func TestHistory_HelpNamesCtrlIOnlyWhereTheTerminalSendsIt(t *testing.T) {
	m := openJSON(t, 100, 60, twoPageTableDoc())
	press(t, m, "?")
	f := frame(m)
	if !regexp.MustCompile(` >\s+forward in history`).MatchString(f) || strings.Contains(f, "ctrl+i") {
		t.Fatalf("help without key disambiguation:\n%s", f)
	}
	press(t, m, "?")
	run(t, m, m.update(tea.KeyboardEnhancementsMsg{Flags: 1}))
	press(t, m, "?")
	if f := frame(m); !regexp.MustCompile(`ctrl\+i/>\s+forward in history`).MatchString(f) {
		t.Fatalf("help with key disambiguation:\n%s", f)
	}
}

// manyParagraphs is a one-page document of n paragraphs "Paragraph i."
// (ids p0…), the last one a heading "Second" with an #anchor link to it
// in paragraph 1.
func manyParagraphs(n int) map[string]any {
	var els []any
	for i := range n {
		el := map[string]any{"element_id": fmt.Sprintf("p%d", i), "category": "NarrativeText", "text": fmt.Sprintf("Paragraph %d.", i)}
		if i == 1 {
			el["text"] = "Paragraph 1 goes to second."
			el["ele_metadata"] = map[string]any{"link_urls": []string{"#second"}, "link_texts": []string{"second"}}
		}
		if i == n-1 {
			el["category"], el["text"] = "Title", "Second"
		}
		els = append(els, el)
	}
	return map[string]any{"doc_ref": "m", "title": "Many", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": els}}}
}

// Jumps inside one page are jumps too: a search hit, :N and an #anchor
// link each record the element left, and ctrl+o comes back to it.
func TestHistory_JumpsWithinAPageAreRecorded(t *testing.T) {
	m := openJSON(t, 80, 24, manyParagraphs(30))
	d := m.docS()
	press(t, m, "j", "j", "j") // Paragraph 3
	if d.sel != 3 {
		t.Fatalf("sel %d after jjj", d.sel)
	}
	press(t, m, "/")
	for _, r := range "Paragraph 20" {
		press(t, m, string(r))
	}
	press(t, m, "enter")
	if d.sel != 20 {
		t.Fatalf("the search hit selected %d, want 20", d.sel)
	}
	press(t, m, "esc") // the search put away
	press(t, m, "ctrl+o")
	if d.sel != 3 {
		t.Fatalf("ctrl+o after a search hit went to %d, want 3 (the element left)", d.sel)
	}
	press(t, m, "j", "j") // Paragraph 5
	press(t, m, ":", "1", "enter")
	if d.sel != 0 {
		t.Fatalf(":1 selected %d", d.sel)
	}
	press(t, m, "ctrl+o")
	if d.sel != 5 {
		t.Fatalf("ctrl+o after :1 went to %d, want 5", d.sel)
	}
	press(t, m, "g", "tab") // the #second link on Paragraph 1
	if l, ok := d.curLink(); !ok || l.URL != "#second" {
		t.Fatalf("tab did not choose the anchor link: %v %v", l, ok)
	}
	from := d.sel
	press(t, m, "enter")
	if d.sel != 29 {
		t.Fatalf("the #second link selected %d, want the heading (29)", d.sel)
	}
	press(t, m, "ctrl+o")
	if d.sel != from {
		t.Fatalf("ctrl+o after the anchor went to %d, want %d", d.sel, from)
	}
	press(t, m, "ctrl+i")
	if d.sel != 29 {
		t.Fatalf("ctrl+i went to %d, want the heading again", d.sel)
	}
}

// threeLinkedFiles is a.md → b.md → c.md, each linking to the next.
func threeLinkedFiles(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	for _, f := range []struct{ name, md string }{
		{"a.md", "# File A\n\nAlpha goes to [b](b.md).\n"},
		{"b.md", "# File B\n\nBravo goes to [c](c.md).\n"},
		{"c.md", "# File C\n\nCharlie is the end.\n"},
	} {
		saveAs(t, filepath.Join(dir, f.name), []byte(f.md))
	}
	return dir
}

// modelAt is the model of opt, started synchronously (Init run).
func modelAt(t *testing.T, opt Options) *model {
	t.Helper()
	opt.Theme, opt.StatusTimeout = "dark", -1
	mm := New(opt)
	run(t, mm.m, mm.Init())
	return mm.m
}

func showing(t *testing.T, m *model, want string) {
	t.Helper()
	if !strings.Contains(frame(m), want) {
		t.Fatalf("want %q on screen:\n%s", want, frame(m))
	}
}

// Two ctrl+o pressed before the first one's document opened go back two
// places, and the forward history still holds both places left: ctrl+i
// twice comes back to where it started. Local files (no office) go back
// and forth as well, read again from disk.
func TestHistory_FastCtrlOWhileOpeningKeepsTheForwardHistory(t *testing.T) {
	dir := threeLinkedFiles(t)
	opt := openFileOptions(t, filepath.Join(dir, "a.md"), nil)
	opt.Width, opt.Height = 80, 24
	m := modelAt(t, opt)
	showing(t, m, "Alpha goes to")
	press(t, m, "tab", "enter")
	showing(t, m, "Bravo goes to")
	press(t, m, "tab", "enter")
	showing(t, m, "Charlie is the end")
	// Both keys before any open answers.
	first := m.update(keyMsg("ctrl+o"))
	second := m.update(keyMsg("ctrl+o"))
	run(t, m, tea.Batch(first, second))
	showing(t, m, "Alpha goes to")
	if n := len(m.e.jumps.fwd); n != 2 {
		t.Fatalf("forward history holds %d places, want 2 (b and c)", n)
	}
	press(t, m, "ctrl+i")
	showing(t, m, "Bravo goes to")
	press(t, m, "ctrl+i")
	showing(t, m, "Charlie is the end")
	press(t, m, "ctrl+i")
	if !strings.Contains(m.statusText(), "no later place") {
		t.Fatalf("after the newest place: %q", m.statusText())
	}
}

// A move whose open fails puts the history back: the place it went to
// is still there to go to.
func TestHistory_FailedOpenPutsTheHistoryBack(t *testing.T) {
	dir := threeLinkedFiles(t)
	opt := openFileOptions(t, filepath.Join(dir, "a.md"), nil)
	opt.Width, opt.Height = 80, 24
	m := modelAt(t, opt)
	press(t, m, "tab", "enter")
	showing(t, m, "Bravo goes to")
	if err := os.Remove(filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	press(t, m, "ctrl+o")
	if len(m.e.jumps.back) != 1 || len(m.e.jumps.fwd) != 0 || m.e.jumps.move != nil {
		t.Fatalf("after a failed move: back %d fwd %d move %v", len(m.e.jumps.back), len(m.e.jumps.fwd), m.e.jumps.move)
	}
}

// A document reopened where it was left: the history's newest place is
// that same place, and ctrl+o goes past it to the place before, at once.
func TestHistory_RestoredPlaceIsNotAStep(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", stateHome(t))
	b, err := json.Marshal(twoPageTableDoc())
	if err != nil {
		t.Fatal(err)
	}
	opt := stateOptions(t, Options{Theme: "dark", Width: 80, Height: 24, Now: func() time.Time { return fixedNow }, StatusTimeout: -1, OpenTarget: "doc.json"})
	m := New(opt).m
	run(t, m, m.e.positions.load())
	open := func() {
		o := m.e.ops.add("open", 0)
		run(t, m, m.update(openedFor(m, o.id, decodedDoc(t, b), "doc.json")))
	}
	open()
	press(t, m, ":", "2", "enter")
	// Back out of it (to a screen under it) and open it again: it comes
	// back to page 2.
	m.stack = append([]screen{newErrorScreen(m.e, "under", errors.New("x"))}, m.stack...)
	run(t, m, m.pop())
	open()
	if d := m.docS(); d.page != 1 || !strings.Contains(m.statusText(), "where you left it") {
		t.Fatalf("reopened at page %d, status %q", d.page+1, m.statusText())
	}
	press(t, m, "ctrl+o")
	if d := m.docS(); d.page != 0 {
		t.Fatalf("ctrl+o after the restore stayed on page %d (the restored place was a step)", d.page+1)
	}
}

// A skill's SKILL.md and the image it links to go back and forth in the
// history, each read again through the skill channel (as a URI through
// the office they name nothing).
func TestHistory_SkillFilesReopenThroughTheSkillChannel(t *testing.T) {
	a := newSkillAgent(t)
	png, err := base64.StdEncoding.DecodeString(tinyPNG(t))
	if err != nil {
		t.Fatal(err)
	}
	a.files = map[string]*client.SkillFile{"assets/logo.png": {Skill: "pdf-tools", RelPath: "assets/logo.png", MimeType: "image/png", Data: png, Blob: true}}
	s := startSkills(t, a, [2]int{80, 24}, t.TempDir())
	s.toSkill()
	s.waitFor("Convert PDFs")
	s.idle()
	s.keys("tab", "tab", "tab")
	s.waitFor("the logo → assets/logo.png")
	s.keys("enter")
	s.waitFor("pdf-tools/assets/logo.png, from skill pdf-tools on")
	s.idle()
	s.keys("ctrl+o")
	s.waitFor("opened pdf-tools")
	s.waitFor("Convert PDFs")
	s.idle()
	s.keys("ctrl+i")
	s.waitFor("pdf-tools/assets/logo.png, from skill pdf-tools on")
	s.final()
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := len(a.asked); n != 4 || a.asked[2] != "box/pdf-tools/" || a.asked[3] != "box/pdf-tools/assets/logo.png" {
		t.Fatalf("get_skill asked %q, want SKILL.md, the logo, SKILL.md again, the logo again", a.asked)
	}
}
