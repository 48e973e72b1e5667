package main

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestOpenTUI_PagesLoadedOutOfOrderAreNotOutOfOrder: a converted PDF whose
// pages were visited out of order (4, then 2) validates as `check` does:
// the conformance view has no "pages are not in page_index order"
// warning (each converted page stood at position 0 of its own).
func TestOpenTUI_PagesLoadedOutOfOrderAreNotOutOfOrder(t *testing.T) {
	l, _, done := startOpenTUI(t, "../../convert/testdata/pdf/footlines.pdf", 120, 40)
	defer done()
	l.waitFor("page 1/6")
	for _, n := range []string{"4", "2"} {
		l.key(tea.KeyPressMsg{Code: ':', Text: ":"})
		l.key(tea.KeyPressMsg{Code: rune(n[0]), Text: n})
		l.key(tea.KeyPressMsg{Code: tea.KeyEnter})
		l.waitUntil("page "+n+" converted", func(f string) bool {
			return strings.Contains(f, "page "+n+"/6") && !strings.Contains(f, "esc cancels")
		})
	}
	l.key(tea.KeyPressMsg{Code: 'c', Text: "c"})
	f := l.waitUntil("the conformance view", func(f string) bool {
		return strings.Contains(f, "Conformance ·") && !strings.Contains(f, "validating")
	})
	if strings.Contains(f, "page_index order") {
		t.Fatalf("pages visited out of order are reported out of order:\n%s", f)
	}
	code, out, errOut := runCLI(t, "check", "../../convert/testdata/pdf/footlines.pdf")
	if strings.Contains(out+errOut, "page_index order") {
		t.Fatalf("check: exit %d\n%s%s", code, out, errOut)
	}
	l.quit()
}
