package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCLI_ErrorsSayTheCauseInTheUsersTerms: each bad input is one line
// naming it and the cause as the user reads it — no syscall ("lstat"), no
// program name twice, no empty name taken for a file — and a bad argument
// or flag value is usage (exit 2).
func TestCLI_ErrorsSayTheCauseInTheUsersTerms(t *testing.T) {
	cleanEnv(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "nosuch.docx")
	file := filepath.Join(dir, "plain.md")
	writeFile(t, file, "# Plain\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"get empty", []string{"get", ""}, exitUsage, "an argument is empty"},
		{"diff empty", []string{"diff", file, ""}, exitUsage, "an argument is empty; diff needs two documents"},
		{"completion unknown shell", []string{"completion", "tcsh"}, exitUsage, `dpe-tui: completion: unknown command "tcsh"`},
		{"docs missing", []string{"--docs", filepath.Join(dir, "nodir"), "ls", "resources"}, exitUsage, "nodir: no such directory"},
		{"docs a file", []string{"--docs", file, "ls", "resources"}, exitUsage, "plain.md: not a directory (a regular file)"},
		{"get missing", []string{"get", missing}, exitRuntime, missing + ": no such file or directory"},
		{"check missing", []string{"check", missing}, exitRuntime, missing + ": no such file or directory"},
		{"hash missing", []string{"hash", missing}, exitRuntime, missing + ": no such file or directory"},
		{"convert missing", []string{"convert", missing}, exitRuntime, missing + ": no such file or directory"},
		{"diff missing", []string{"diff", file, missing}, exitRuntime, missing + ": no such file or directory"},
		{"convert over its input", []string{"convert", file, "-o", filepath.Join(dir, ".", "plain.md")}, exitUsage, "is the file being converted; name another file to write"},
		{"open a dpe URI", []string{"open", "dpe://io.github.dpetui.library/report.md"}, exitUsage, "a dpe:// URI is resolved by a computer of an office"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "lstat") || strings.Contains(errOut, "dpe-tui: dpe-tui") {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, tc.code, errOut, tc.want)
			}
			oneLine(t, tc.name, errOut)
		})
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "# Plain\n" {
		t.Errorf("convert -o over its input wrote it: %q %v", b, err)
	}
	code, _, errOut := runStdin(t, "", "get", "-")
	if code != exitRuntime || !strings.Contains(errOut, "stdin: empty; pipe a document into it (DPE JSON, or any file convert - reads)") {
		t.Errorf("get - of nothing: exit %d %q", code, errOut)
	}
}

// TestTUI_WithoutATerminalSaysSo: the TUI started with no terminal at all
// (cron, a script: no controlling terminal, stdin not a TTY) is one line
// saying what it needs and what to run instead, not Bubble Tea's "error
// opening TTY: … no such device or address".
func TestTUI_WithoutATerminalSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	for _, args := range [][]string{{"open", "../../convert/testdata/handbook.html"}, {}} {
		cmd := exec.Command(bin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitRuntime ||
			string(out) != "dpe-tui: the TUI needs a terminal, and none is attached; print a document with 'dpe-tui get FILE' instead\n" {
			t.Errorf("%v: %v %q", args, err, out)
		}
	}
}
