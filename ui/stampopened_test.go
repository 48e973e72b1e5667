package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// Where an open came from (a Finder hit's page and element, the open
// target) must survive the first-page path: page 1 first, then the whole.
func TestStampOpened_SurvivesPageOneFirstAndTheRest(t *testing.T) {
	at := &hitPlace{page: 11, elementID: "e-10-3"}
	set := func(om *openedMsg) { om.at, om.target = at, "report.pdf" }

	whole := stampOpened(openedMsg{uri: "dpe://h/r"}, set).(openedMsg)
	if whole.at != at || whole.target != "report.pdf" {
		t.Fatalf("whole open: at %v target %q", whole.at, whole.target)
	}

	first := firstPageMsg{openedMsg: openedMsg{uri: "dpe://h/r"}, rest: func() tea.Msg { return openedMsg{uri: "dpe://h/r"} }}
	got := stampOpened(first, set).(firstPageMsg)
	if got.at != at || got.target != "report.pdf" {
		t.Fatalf("page 1 first: at %v target %q", got.at, got.target)
	}
	final, ok := got.rest().(openedMsg)
	if !ok || final.at != at || final.target != "report.pdf" {
		t.Fatalf("the whole after page 1: %#v", got.rest())
	}

	// Anything else (an error) passes through untouched.
	if _, ok := stampOpened(errMsg{}, set).(errMsg); !ok {
		t.Fatal("an error message was changed")
	}
}
