package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestLinks_SidebarFocusFooterListsTheKeysThatWork: past the last link
// the sidebar has the focus, and the footer says what works there: enter
// opens the entry under the cursor, tab gives the page the focus back,
// . inspects (enter no longer does); no hint names enter for the page.
func TestLinks_SidebarFocusFooterListsTheKeysThatWork(t *testing.T) {
	dir, file := linksDoc(t)
	s := start80(t, openFileOptions(t, file, nil))
	s.waitFor("Plain paragraph")
	s.idle()
	s.keys("tab", "tab", "tab", "tab")
	s.waitFor("past the last link: the sidebar has focus")
	out := s.final()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	foot := lines[len(lines)-1]
	if !strings.HasPrefix(foot, "enter open • tab back to the page") || strings.Contains(foot, "enter/.") || strings.Count(foot, "enter") != 1 {
		t.Fatalf("the sidebar's footer does not lead with its keys, or names enter twice:\n%s", foot)
	}
	golden.RequireEqual(t, maskDir(out, &fakeAgent{dir: dir}))
}
