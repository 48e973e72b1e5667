package main

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// TestExitCodes_OneTableForHelpAndREADME: the root help is rendered from
// exitCodes, and the README's table lists the same codes in the same
// order with the same meanings (backticks aside): the README once had a
// code --help did not list.
func TestExitCodes_OneTableForHelpAndREADME(t *testing.T) {
	code, out, _ := runCLI(t, "--help")
	if code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	// The help wraps each meaning: compare words.
	flat := strings.Join(strings.Fields(out), " ")
	seen := map[int]bool{}
	for _, e := range exitCodes {
		if seen[e.code] {
			t.Errorf("exit code %d is in the table twice", e.code)
		}
		seen[e.code] = true
		if line := strconv.Itoa(e.code) + " " + e.meaning; !strings.Contains(flat, line) {
			t.Errorf("--help lacks %q", line)
		}
	}
	// And reads in 80 columns.
	_, table, _ := strings.Cut(out, "Exit codes:")
	table, _, _ = strings.Cut(table, "\n\n")
	for _, l := range strings.Split(table, "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("--help's exit table has a line of %d columns: %q", n, l)
		}
	}

	f, err := os.Open("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile("^\\| `(\\d+)` \\| (.*) \\|$")
	var readme []int
	var meanings []string
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			in = strings.Contains(strings.ToLower(line), "exit codes")
			continue
		}
		if m := row.FindStringSubmatch(line); in && m != nil {
			n, _ := strconv.Atoi(m[1])
			readme = append(readme, n)
			meanings = append(meanings, m[2])
		}
	}
	if len(readme) != len(exitCodes) {
		t.Fatalf("README lists exit codes %v; the table has %d", readme, len(exitCodes))
	}
	for i, e := range exitCodes {
		if readme[i] != e.code {
			t.Errorf("README row %d is code %d, the table's is %d", i, readme[i], e.code)
		}
		if got := strings.ReplaceAll(meanings[i], "`", ""); got != e.meaning {
			t.Errorf("README's code %d says %q; the table (and --help) says %q", e.code, got, e.meaning)
		}
	}
}

// TestCLI_VersionBesideACommandIsRefused: `-v ls` must not print the
// version and drop the command the user typed.
func TestCLI_VersionBesideACommandIsRefused(t *testing.T) {
	for _, args := range [][]string{{"-v", "ls", "computers"}, {"--version", "get", "x.json"}} {
		code, out, errOut := runCLI(t, args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "--version is used alone") || !strings.Contains(errOut, strconv.Quote(args[1])) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	code, out, _ := runCLI(t, "--version", "--no-color")
	if code != exitOK || !strings.HasPrefix(out, "dpe-tui ") {
		t.Errorf("--version --no-color: exit %d, %q", code, out)
	}
	// After the command, -v is the command's own: serve's --verbose.
	code, out, errOut := runCLI(t, "serve", "-v", "--help")
	if code != exitOK || strings.Contains(errOut, "--version") || !strings.Contains(out, "serve") {
		t.Errorf("serve -v --help: exit %d, stdout %.80q, stderr %q", code, out, errOut)
	}
}

// TestCLI_UnknownCommandSuggestsTheNearOne: a typo names the command
// it is near; a word near none gets no guess.
func TestCLI_UnknownCommandSuggestsTheNearOne(t *testing.T) {
	for arg, want := range map[string]string{"lss": `did you mean "ls"?`, "compuer": `did you mean "computer"?`, "zzzzzz": ""} {
		code, _, errOut := runCLI(t, arg)
		if code != exitUsage || !strings.Contains(errOut, strconv.Quote(arg)) || (want != "") != strings.Contains(errOut, "did you mean") || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q", arg, code, errOut)
		}
	}
}

// TestVersionHint_SaysTheNextStep: after a 4008 that negotiation could
// not fix, the line ends with the version to ask for, or with what this
// build speaks.
func TestVersionHint_SaysTheNextStep(t *testing.T) {
	for sv, want := range map[string]string{
		"0.4.0": "; this server speaks 0.4.0: run with --a2c-version 0.4.0",
		"0.5.0": "; this server speaks 0.5.0: run with --a2c-version 0.5.0",
		"0.6.1": "; this build speaks " + protocol.ExplicitVersions + ", not 0.6.1",
		"":      "",
	} {
		if got := versionHint(&protocol.Error{Code: protocol.CodeVersionMismatch, ServerVersion: sv}); got != want {
			t.Errorf("server %q: %q, want %q", sv, got, want)
		}
	}
	if got := versionHint(&protocol.Error{Code: 4014, ServerVersion: "0.4.0"}); got != "" {
		t.Errorf("another code got a version hint: %q", got)
	}
}
