package ui

import (
	"strings"
	"testing"
	"time"
)

// TestTable_StatusSaysTheCellOnlyWhileItsCursorIsShown: the status
// line's "table row R col C · enter shows the cell" goes with the cell
// cursor: after esc put the cursor away it said table mode was on while
// the footer had left it (and after ctrl+o back to the page it looked
// like table mode had come back by itself). A table key brings both
// back.
func TestTable_StatusSaysTheCellOnlyWhileItsCursorIsShown(t *testing.T) {
	opt := openFileOptions(t, longHitsCSV(t), nil)
	opt.StatusTimeout = time.Millisecond // "opened …" goes at once: the line below is the screen's
	s := start80(t, opt)
	s.waitFor("r01")
	s.idle()
	s.keys("l")
	s.waitFor("enter shows the cell")
	s.keys("esc")
	s.waitFor("left the table")
	s.waitUntil("the status line after esc", func(f string) bool { return !strings.Contains(f, "left the table") })
	s.idle()
	if f := s.frame(); strings.Contains(f, "enter shows the cell") {
		t.Errorf("the cell cursor is put away but the status line still names its cell:\n%s", f)
	}
	s.keys("l")
	s.waitFor("enter shows the cell")
	s.final()
}
