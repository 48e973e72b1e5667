package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/ui"
)

// TestMan_ExitStatusAndKeysAreSections: the man page gives the exit codes
// (from the one table) and every key of the keymap as tagged paragraphs
// of their own sections, not as the help's pre-wrapped text, which man
// filled into broken lines ("the" alone on a line of code 1's meaning).
func TestMan_ExitStatusAndKeysAreSections(t *testing.T) {
	cleanEnv(t)
	code, page, errOut := runCLI(t, "man")
	if code != 0 {
		t.Fatalf("man: exit %d: %s", code, errOut)
	}
	if strings.Contains(page, "Exit codes:") {
		t.Errorf("the description still holds the help's exit-code text")
	}
	_, exits, ok := strings.Cut(page, "\n.SH EXIT STATUS\n")
	exits, keys, ok2 := strings.Cut(exits, "\n.SH KEYS\n")
	if !ok || !ok2 {
		t.Fatalf("no EXIT STATUS then KEYS section:\n%s", page)
	}
	for _, e := range exitCodes {
		if !strings.Contains(exits, fmt.Sprintf(".TP\n.B %d\n", e.code)) {
			t.Errorf("exit code %d is not a tagged paragraph", e.code)
		}
	}
	for _, r := range ui.KeyRows() {
		if !strings.Contains(keys, "["+roffText(r.Action)+"]") {
			t.Errorf("key action %s is not in KEYS", r.Action)
		}
	}
	if _, err := exec.LookPath("man"); err != nil {
		return
	}
	cmd := exec.Command("man", "-l", "-")
	cmd.Stdin = strings.NewReader(page)
	cmd.Env = append(cmd.Environ(), "MANWIDTH=80", "MANPAGER=cat", "PAGER=cat")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("man -l: %v", err)
	}
	text := regexp.MustCompile(".\b").ReplaceAllString(string(out), "")
	if !regexp.MustCompile(`(?m)^\s+1\s+runtime or network error`).MatchString(text) {
		t.Errorf("code 1 and its meaning are not one paragraph at 80 columns:\n%s", text)
	}
	if regexp.MustCompile(`(?m)^\s+the$`).MatchString(text) {
		t.Errorf("a meaning is broken into lines of one word:\n%s", text)
	}
}
