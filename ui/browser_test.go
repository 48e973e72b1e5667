package ui

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestOpenBar_EscReturnsToTheDocumentItWasTypedOn: a URI opened with o
// from a document is a detour; esc goes back to that document at the
// page it was on, not to the resource list.
func TestOpenBar_EscReturnsToTheDocumentItWasTypedOn(t *testing.T) {
	s := start80(t, testOptions(newFakeAgent(t)))
	s.toDocument()
	s.keys(":")
	s.typeText("3")
	s.keys("enter")
	s.waitFor("page 3/3")
	s.idle()
	s.keys("o")
	s.typeText(notesURI)
	s.keys("enter")
	s.waitFor("Agreed to ship")
	s.idle()
	s.keys("esc")
	s.waitFor("Appendix: revenue")
	golden.RequireEqual(t, s.final())
}

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
