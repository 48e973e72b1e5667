package main

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/library"
)

// TestTUIFinder_OverBudgetSaysWhichLimit: the TUI's --docs Finder takes
// serve's query limits by the same flags, and an over-budget query is one
// line on the Finder screen that says so and names the limit, at 80
// columns. The *o* ×1,024 query over the demo corpus is refused by the
// pattern cap well within its deadline (--find-timeout, measured against
// it); --find-max-expansion and --find-timeout reach the folder's Finder.
func TestTUIFinder_OverBudgetSaysWhichLimit(t *testing.T) {
	if testbudget.Race {
		// The folder's index is built at low priority: under -race on a
		// loaded machine it made no progress in minutes, and the TUI
		// beside it answered frames late. The unraced run covers it.
		t.Skip("indexing the corpus under -race takes minutes; the unraced run covers it")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the folder's Finder index
	dir := t.TempDir()
	if err := copyFS(dir, library.Corpus()); err != nil {
		t.Fatal(err)
	}
	manyO := strings.TrimSpace(strings.Repeat("*o* ", 1024))
	for _, tt := range []struct {
		name  string
		flags []string
		query string
		want  string
	}{
		{"expansion_flag", []string{"--find-max-expansion", "1"}, "*e*", "local: over budget: terms one pattern matches (limit 1)"},
		{"pattern_cap", []string{"--find-timeout", "30s"}, manyO, "local: over budget: pattern terms: 1024, the limit is 16"},
		{"timeout_flag", []string{"--find-timeout", "1ns"}, "report", "local: over budget: the query ran past its deadline (limit 1ns)"},
	} { // the first waits for the index, which would slow the others
		t.Run(tt.name, func(t *testing.T) {
			var f tuiFlags
			fs := pflag.NewFlagSet("dpe-tui", pflag.ContinueOnError)
			f.define(fs)
			if err := fs.Parse(tt.flags); err != nil {
				t.Fatal(err)
			}
			if err := f.localBudgets(); err != nil {
				t.Fatal(err)
			}
			deadline := f.budgets.find
			l := startEmbeddedTUI(t, func(g *globalFlags) {
				g.Embedded.DocsDirs = []string{dir}
				g.Embedded.budgets = f.Embedded.budgets
			}, 80, 24)
			defer l.quit()
			l.waitFor("local", "ready")
			l.rune('F')
			l.waitFor("type a query")
			// The index fills in the background: a query of a pattern
			// the empty dictionary cannot expand is asked again. The
			// query is pasted, as a user would paste 4 KB.
			var frame string
			for stop := testbudget.Until(t, 60*time.Second); ; {
				l.tm.Send(tea.PasteMsg{Content: tt.query})
				t0 := time.Now()
				l.enter()
				frame = l.waitUntil("an answer", func(f string) bool {
					return strings.Contains(f, "over budget") || !strings.Contains(f, "esc cancels")
				})
				if strings.Contains(frame, "over budget") {
					if took := time.Since(t0); tt.name == "pattern_cap" && took >= deadline {
						t.Fatalf("over budget after %s, not within the query's deadline of %s", took, deadline)
					}
					break
				}
				if time.Now().After(stop) {
					t.Fatalf("never over budget:\n%s", frame)
				}
				time.Sleep(100 * time.Millisecond)
				l.rune('/')
			}
			frame = l.waitFor("over budget")
			lines := 0
			for _, line := range strings.Split(frame, "\n") {
				if strings.Contains(line, "over budget") {
					lines++
					if strings.TrimSpace(line) != tt.want {
						t.Errorf("the over-budget line is %q, want %q", strings.TrimSpace(line), tt.want)
					}
				}
			}
			if lines != 1 {
				t.Errorf("%d lines say over budget, want 1:\n%s", lines, frame)
			}
		})
	}
}
