package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestLs_ServersShowsLocalStates: ls servers of your own office has a
// STATE per server, says in-process for a folder, and names each failed
// one on stderr with its error and the last lines of its stderr, masked.
func TestLs_ServersShowsLocalStates(t *testing.T) {
	t.Setenv("DPE_TUI_TEST_SECRET", "s3cret-value-77")
	common, _ := everythingConfigs(t, map[string]any{
		"leaky": map[string]any{"command": "/bin/sh", "args": []string{"-c", `echo first >&2; echo "key=$K" >&2; echo last >&2; exit 1`},
			"env": map[string]any{"K": "${env:DPE_TUI_TEST_SECRET}"}},
		"off": map[string]any{"command": "/bin/true", "disabled": true},
	})
	docs := t.TempDir()
	code, out, errOut := runCLI(t, "ls", "servers", "--mcp-config", common, "--docs", docs)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, re := range []string{
		`(?m)^COMPUTER\s+SERVER\s+TYPE\s+DISABLED\s+STATE$`,
		`(?m)^local\s+everything\s+stdio\s+false\s+ready$`,
		`(?m)^local\s+leaky\s+stdio\s+false\s+failed$`,
		`(?m)^local\s+off\s+stdio\s+true\s+disabled$`,
		`(?m)^local\s+\S+\s+in-process\s+false\s+ready$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no row %s in:\n%s", re, out)
		}
	}
	for _, want := range []string{"dpe-tui: server leaky on local failed: ", "dpe-tui:   first\n", "dpe-tui:   key=******\n", "dpe-tui:   last\n"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(out+errOut, "s3cret-value-77") {
		t.Fatalf("secret shown")
	}
}

// TestLs_ServersWithoutStateHaveNoStateColumn: the demo's computers are
// not this process's servers and the protocol gives them no state, so
// the table has no STATE column of dashes.
func TestLs_ServersWithoutStateHaveNoStateColumn(t *testing.T) {
	cleanEnv(t)
	code, out, errOut := runCLI(t, "ls", "servers")
	if code != 0 {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	header, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(header, "COMPUTER") || strings.Contains(header, "STATE") {
		t.Errorf("header %q; want no STATE column:\n%s", header, out)
	}
}
