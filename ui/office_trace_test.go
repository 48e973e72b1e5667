package ui

import (
	"strings"
	"testing"
)

// TestOffice_XShowsTheLastTraceOrSaysWhatItIsFor: x on the office screen
// did nothing. Before any open it says what x shows; after an open, back
// on the office, it shows that open's trace.
func TestOffice_XShowsTheLastTraceOrSaysWhatItIsFor(t *testing.T) {
	s := start(t, testOptions(newFakeAgent(t)))
	s.waitFor("build-box")
	s.idle()
	s.keys("x")
	s.waitFor("x shows the resolver trace of a document: none opened yet")
	s.toDocument()
	s.idle()
	s.keys("esc", "esc", "esc") // the screens (the "opened" line does not hold esc)
	s.waitUntil("the office", func(f string) bool {
		return strings.Contains(f, "build-box") && strings.Contains(f, "COMPUTER")
	})
	s.idle()
	s.keys("x")
	s.waitFor("Timeline")
	s.keys("esc")
	s.waitFor("COMPUTER")
}
