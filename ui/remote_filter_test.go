package ui

import (
	"strings"
	"testing"
)

// / filters the remote list as it does the other lists: the letters
// typed go to the filter (they ran commands: /TEST ran E), esc clears
// it, and ? help does not offer the Finder, which needs an office.
func TestRemote_FilterAndHelpWithoutAnOffice(t *testing.T) {
	tr := newTestRemote(t, false)
	remoteFixture(t, tr)
	s := start(t, remoteOptions(tr, 100, 30))
	s.waitFor("file:///proj/")
	s.keys("enter")
	s.waitFor("notes/")
	s.keys("/")
	s.typeText("C.M")
	s.waitFor(`filter "C.M": 1 of 3`)
	f := s.frame()
	if !strings.Contains(f, "c.md") || strings.Contains(f, "d.md") || strings.Contains(f, "notes/") {
		t.Fatalf("the filter kept the wrong rows:\n%s", f)
	}
	s.keys("enter", "esc")
	s.waitUntil("the filter cleared", func(f string) bool {
		return strings.Contains(f, "d.md") && strings.Contains(f, "notes/") && !strings.Contains(f, `filter "`)
	})
	s.keys("?")
	s.waitFor("list again (local files read again)")
	if f := s.frame(); strings.Contains(f, "find in the office") {
		t.Fatalf("help offers the Finder with no office:\n%s", f)
	}
	s.final()
}
