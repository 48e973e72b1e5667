package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// linksDoc is a Markdown file with every kind of link the body follows,
// and the file its relative link names, in a directory of fixed length
// (the header shows the path).
func linksDoc(t *testing.T) (dir, file string) {
	t.Helper()
	dir = fixedLenDir(t)
	file = filepath.Join(dir, "links.md")
	md := "# Links\n\n" +
		"See [the spec](https://example.com/spec?a=1&b=2) and [other file](other.md) and [a section](#second).\n\n" +
		"Plain paragraph without links.\n\n" +
		"## Second\n\n" +
		"Back to [top](#links) or [mail](mailto:a@example.com).\n"
	if err := os.WriteFile(file, []byte(md), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.md"), []byte("# Other\n\nThis is the other file.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// urlRecorder is the system opener of the tests: it records, never
// launches.
type urlRecorder struct {
	mu   sync.Mutex
	urls []string
}

func (r *urlRecorder) open(_ context.Context, u string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.urls = append(r.urls, u)
	return nil
}

func (r *urlRecorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.urls...)
}

func startAt(t *testing.T, opt Options, w, h int) *session {
	t.Helper()
	opt.Width, opt.Height = w, h
	tm := teatest.NewTestModel(t, probeModel{New(opt)},
		teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	return &session{t: t, tm: tm}
}

// TestLinks_TabChoosesEnterFollowsEscComesBack: on a page with links,
// tab chooses the next link and the status line shows where it goes,
// whole; enter on a relative link opens that file over this document,
// and esc comes back to the link. Goldens at 80×24 and 120×40 of the
// chosen link.
func TestLinks_TabChoosesEnterFollowsEscComesBack(t *testing.T) {
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			dir, file := linksDoc(t)
			s := startAt(t, openFileOptions(t, file, nil), size[0], size[1])
			s.waitFor("Plain paragraph")
			s.idle()
			s.keys("tab")
			s.waitFor("link 1/3: the spec → https://example.com/spec?a=1&b=2")
			s.keys("tab")
			s.waitFor("link 2/3: other file → other.md")
			if f := s.frame(); !strings.Contains(f, "enter follow link") || !strings.Contains(f, "esc leave link") {
				t.Errorf("the footer does not say what enter and esc do on a link:\n%s", f)
			}
			s.keys("enter")
			s.waitFor("This is the other file.")
			s.idle()
			s.keys("esc") // back (the "opened" line does not hold esc)
			s.waitFor("link 2/3: other file")
			golden.RequireEqual(t, maskDir(s.final(), &fakeAgent{dir: dir}))
		})
	}
}

// TestLinks_TabPastTheLastGivesTheSidebarFocus: tab after the page's
// last link gives the sidebar focus (where tab went on a page without
// links), tab there gives it back, and the next tab starts at the first
// link again; shift+tab before the first wraps to the last and the status line says so.
func TestLinks_TabPastTheLastGivesTheSidebarFocus(t *testing.T) {
	_, file := linksDoc(t)
	s := start80(t, openFileOptions(t, file, nil))
	s.waitFor("Plain paragraph")
	s.idle()
	s.keys("tab", "tab", "tab")
	s.waitFor("link 3/3: a section → #second")
	s.keys("tab")
	s.waitFor("past the last link: the sidebar has focus")
	s.keys("tab", "tab")
	s.waitFor("link 1/3: the spec")
	s.keys("shift+tab")
	s.waitFor("link 3/3 (wrapped to the last): a section")
	s.final()
}

// TestLinks_AnchorSelectsItsHeading: enter on #second shows the heading
// "Second" (page 2 of the file); #links on that page comes back to the
// title.
func TestLinks_AnchorSelectsItsHeading(t *testing.T) {
	_, file := linksDoc(t)
	s := start80(t, openFileOptions(t, file, nil))
	s.waitFor("Plain paragraph")
	s.idle()
	s.keys("tab", "tab", "tab", "enter")
	s.waitFor("page 2/2")
	s.waitFor("Back to top")
	s.idle()
	s.keys("tab")
	s.waitFor("link 1/2: top → #links")
	s.keys("tab")
	s.waitFor("link 2/2: mail → mailto:a@example.com")
	s.keys("enter")
	s.waitFor("link mailto:a@example.com: not followed")
	s.keys("shift+tab", "enter")
	s.waitFor("page 1/2")
	s.waitFor("Plain paragraph")
	s.final()
}

// TestLinks_EscAfterAnAnchorComesBackToTheLink: an #anchor followed is
// a move inside the document, so esc takes it back (as the README says
// and a browser's back does) instead of leaving the document: the page
// the link is on is shown again with the link chosen, and the footer
// said beforehand what esc would do. Once back, esc goes on as before
// (leave the link, then out).
func TestLinks_EscAfterAnAnchorComesBackToTheLink(t *testing.T) {
	_, file := linksDoc(t)
	s := start80(t, openFileOptions(t, file, nil))
	s.waitFor("Plain paragraph")
	s.idle()
	s.keys("tab", "tab", "tab")
	s.waitFor("link 3/3: a section → #second")
	s.keys("enter")
	s.waitFor("page 2/2")
	s.waitFor("Back to top")
	s.idle()
	if f := s.frame(); !strings.Contains(f, "esc back to the link") {
		t.Errorf("the footer does not say esc goes back to the link:\n%s", f)
	}
	s.keys("esc")
	s.waitFor("back at the link")
	s.waitFor("page 1/2")
	s.keys("tab")
	// tab goes on from the link esc came back to: past the last, the
	// sidebar takes the focus.
	s.waitFor("past the last link: the sidebar has focus")
	s.final()
}

// TestLinks_HTTPOpensOnlyAfterTheConfirmation: enter on an http(s) link
// shows the URL whole and opens nothing; esc (or enter) leaves it
// unopened; y hands exactly that URL to the system opener. Goldens of
// the confirmation at 80×24 and 120×40.
func TestLinks_HTTPOpensOnlyAfterTheConfirmation(t *testing.T) {
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			dir, file := linksDoc(t)
			rec := &urlRecorder{}
			opt := openFileOptions(t, file, nil)
			opt.OpenURL = rec.open
			s := startAt(t, opt, size[0], size[1])
			s.waitFor("Plain paragraph")
			s.idle()
			s.keys("tab", "enter")
			s.waitFor("Open this link in the system's browser?")
			s.keys("esc")
			s.waitFor("link 1/3")
			s.keys("enter")
			s.waitFor("Open this link in the system's browser?")
			s.keys("enter")
			s.waitFor("link 1/3")
			if got := rec.got(); len(got) != 0 {
				t.Fatalf("opened %q before y", got)
			}
			s.keys("enter")
			s.waitFor("Open this link in the system's browser?")
			frame := maskDir(normalize(s.frame()), &fakeAgent{dir: dir})
			s.keys("y")
			s.waitFor("in the system's browser")
			s.final()
			if got := rec.got(); len(got) != 1 || got[0] != "https://example.com/spec?a=1&b=2" {
				t.Fatalf("opener got %q, want the link's URL once", got)
			}
			golden.RequireEqual(t, frame)
		})
	}
}

// hostileLinksJSON is a DPE document whose links carry control bytes
// and schemes no terminal hyperlink may have.
func hostileLinksJSON(t *testing.T) string {
	t.Helper()
	el := map[string]any{"element_id": "n1", "category": "NarrativeText", "doc_ref": "links",
		"text": "safe and evil and local and dpe",
		"ele_metadata": map[string]any{
			"link_urls":  []string{"https://example.com/ok", "https://evil.example/\x1b]0;pwned\x07x", "file:///etc/passwd", "dpe://local/x"},
			"link_texts": []string{"safe", "evil", "local", "dpe"},
		}}
	doc := map[string]any{"doc_ref": "links", "title": "Links", "page_count": 1,
		"pages": []any{map[string]any{"page_index": 0, "title": "One", "doc_ref": "links", "elements": []any{el}}}}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "links.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLinks_HyperlinksAreHTTPOnlyAndClean: with Hyperlinks on, the
// body makes http(s) links OSC 8 hyperlinks and nothing else: a URL
// with control bytes, file: and dpe: links stay text; with it off there
// is no hyperlink at all.
func TestLinks_HyperlinksAreHTTPOnlyAndClean(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("hyperlinks=%v", on), func(t *testing.T) {
			opt := testOptions(nil)
			opt.OpenTarget = hostileLinksJSON(t)
			opt.Hyperlinks = on
			s := start80(t, opt)
			s.waitFor("safe and evil")
			out := s.finalANSI()
			n := strings.Count(out, "\x1b]8;")
			switch {
			case on && (n != 2 || !strings.Contains(out, "\x1b]8;;https://example.com/ok\x07")):
				t.Fatalf("want one hyperlink (opened and closed) to https://example.com/ok, got %d OSC 8:\n%q", n, out)
			case !on && n != 0:
				t.Fatalf("hyperlinks off, got %d OSC 8:\n%q", n, out)
			}
			for _, bad := range []string{"pwned", "\x1b]0;", "8;;file:", "8;;dpe:", "evil.example"} {
				if strings.Contains(out, bad) {
					t.Errorf("the frame holds %q:\n%q", bad, out)
				}
			}
		})
	}
}

// TestLinks_TextIsMarkedInTheBody: each link's text is marked where the
// body shows it, and the one tab chose stands out from the others.
func TestLinks_TextIsMarkedInTheBody(t *testing.T) {
	_, file := linksDoc(t)
	s := start80(t, openFileOptions(t, file, nil))
	s.waitFor("Plain paragraph")
	s.idle()
	s.keys("tab", "tab")
	s.waitFor("link 2/3")
	out := s.finalANSI()
	st := newStyles("dark")
	for _, want := range []string{st.link.Render("the spec"), st.linkCur.Render("other file"), st.link.Render("a section")} {
		if !strings.Contains(out, want) {
			t.Errorf("the body lacks the marked link %q:\n%q", want, out)
		}
	}
}

// TestLinks_HelpListsTabAndEnterOnce: on a page with links tab is the
// next link in the help (not also the sidebar focus), and on a chosen
// link enter is "follow link" (not also inspect or the table's cell).
func TestLinks_HelpListsTabAndEnterOnce(t *testing.T) {
	doc := map[string]any{"doc_ref": "ln", "title": "Links", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "Table", "text": "a b", "ele_metadata": map[string]any{
				"text_as_html": "<table><tr><th>Alpha</th><th>Beta</th></tr><tr><td>1</td><td>2</td></tr></table>",
				"link_urls":    []string{"https://example.com/"}, "link_texts": []string{"Alpha"}}},
		}}}}
	m := openJSON(t, 80, 24, doc)
	before := m.top().Keys()
	press(t, m, "tab")
	if _, ok := m.docS().curLink(); !ok {
		t.Fatal("tab chose no link")
	}
	for _, keys := range []screenKeys{before, m.top().Keys()} {
		seen := map[string]string{}
		for _, col := range keys.full {
			for _, b := range col {
				for _, k := range b.Keys() {
					if was, ok := seen[k]; ok {
						t.Errorf("key %q is listed twice (%q and %q)", k, was, b.Help().Desc)
					}
					seen[k] = b.Help().Desc
				}
			}
		}
		if seen["tab"] != "next link" {
			t.Errorf("help says tab is %q on a page with links, want next link", seen["tab"])
		}
	}
}

// TestLinks_SkillLinkOpensThePackageFile: in a skill's SKILL.md a
// relative link followed with tab and enter reads that file of the
// package, as the linked-files list (L) does.
func TestLinks_SkillLinkOpensThePackageFile(t *testing.T) {
	a := newSkillAgent(t)
	s := startSkills(t, a, [2]int{80, 24}, t.TempDir())
	s.toSkill()
	s.idle()
	s.keys("tab", "tab")
	s.waitFor("link 2/5: the script → ./scripts/run.py#main")
	s.keys("enter")
	s.waitFor("print('converting')")
	s.final()
	if got := a.asked[len(a.asked)-1]; got != "box/pdf-tools/scripts/run.py" {
		t.Errorf("asked for %q, want the link's path without ./ and #fragment", got)
	}
}

// TestLinks_RelativeLinkOfADPEJSONOpensTheFileBesideIt: a DPE JSON opened
// from disk follows its relative links as a converted file does: the
// file beside it opens over it (it said the JSON was "neither a local
// file nor a dpe:// URI").
func TestLinks_RelativeLinkOfADPEJSONOpensTheFileBesideIt(t *testing.T) {
	dir := t.TempDir()
	el := map[string]any{"element_id": "n1", "category": "NarrativeText", "doc_ref": "rel",
		"text":         "see the notes file",
		"ele_metadata": map[string]any{"link_urls": []string{"notes.md"}, "link_texts": []string{"notes"}}}
	doc := map[string]any{"doc_ref": "rel", "title": "Rel", "page_count": 1,
		"pages": []any{map[string]any{"page_index": 0, "title": "One", "doc_ref": "rel", "elements": []any{el}}}}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "rel.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Notes\n\nThe notes beside the JSON.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := start80(t, openFileOptions(t, p, nil))
	s.waitFor("see the notes file")
	s.idle()
	s.keys("tab")
	s.waitFor("link 1/1: notes → notes.md")
	s.keys("enter")
	s.waitFor("The notes beside the JSON.")
	s.final()
}
