package ui

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestErrorDetail_NothingToShowSaysSo: E before any error says so on the
// status line instead of doing nothing.
func TestErrorDetail_NothingToShowSaysSo(t *testing.T) {
	s := start80(t, testOptions(newFakeAgent(t)))
	s.toDocument()
	s.idle()
	s.keys("E")
	s.waitFor("no error to show")
	golden.RequireEqual(t, s.final())
}
