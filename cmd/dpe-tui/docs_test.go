package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/cli.md and docs/conformance.md from the commands")

// checkDoc compares the file at path (from the repository root) with
// what the commands print, or rewrites it with -update-docs.
func checkDoc(t *testing.T, path, got string) {
	t.Helper()
	file := filepath.Join("..", "..", path)
	if *updateDocs {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/dpe-tui -run TestDocs -update-docs)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from what the commands print (run go test ./cmd/dpe-tui -run TestDocs -update-docs)", path)
	}
}

// helpPaths is every command a user can ask help for, root first, in
// the order the root help lists them.
func helpPaths() [][]string {
	a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || !sub.IsAvailableCommand() {
				continue
			}
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(a.rootCmd(), nil)
	return paths
}

// TestDocs_CLIIsTheCommandsHelp: docs/cli.md is the --help of every
// command, exactly as the command prints it without colour.
func TestDocs_CLIIsTheCommandsHelp(t *testing.T) {
	cleanEnv(t)
	t.Setenv("NO_COLOR", "1")
	var b strings.Builder
	b.WriteString("# Command reference\n\n<!-- Generated from each command's --help by `go test ./cmd/dpe-tui -run TestDocs -update-docs`; do not edit. -->\n\n")
	b.WriteString("How the commands behave is in [usage.md](usage.md); back to the [README](../README.md).\n")
	paths := helpPaths()
	for _, p := range paths {
		code, out, errOut := runCLI(t, append(p, "--help")...)
		if code != 0 || errOut != "" {
			t.Fatalf("%q --help: exit %d, stderr %q", p, code, errOut)
		}
		if strings.ContainsRune(out, 0x1b) {
			t.Fatalf("%q --help has escape sequences with NO_COLOR", p)
		}
		b.WriteString("\n## " + strings.Join(append([]string{"dpe-tui"}, p...), " ") + "\n\n```\n")
		for _, l := range strings.Split(strings.Trim(out, "\n"), "\n") {
			b.WriteString(strings.TrimRight(l, " ") + "\n")
		}
		b.WriteString("```\n")
	}
	// The commands the README lists one line each are all here.
	for _, want := range []string{"open", "ls", "get", "check", "convert", "hash", "diff", "find", "push", "remote", "serve", "computer", "mcp", "config", "version", "completion"} {
		if !strings.Contains(b.String(), "\n## dpe-tui "+want+"\n") {
			t.Errorf("docs/cli.md would have no section for %q", want)
		}
	}
	checkDoc(t, "docs/cli.md", b.String())
}

// TestDocs_ConformanceIsCheckRules: docs/conformance.md's table is
// `check --rules --json`, row for row.
func TestDocs_ConformanceIsCheckRules(t *testing.T) {
	cleanEnv(t)
	code, out, errOut := runCLI(t, "check", "--rules", "--json")
	if code != 0 || errOut != "" {
		t.Fatalf("check --rules --json: exit %d, stderr %q", code, errOut)
	}
	var b strings.Builder
	b.WriteString("# Conformance rules\n\n<!-- Generated from `dpe-tui check --rules --json` by `go test ./cmd/dpe-tui -run TestDocs -update-docs`; do not edit. -->\n\n")
	b.WriteString("`dpe-tui check` and the TUI's `c` report apply these rules; each finding names its rule id, severity and JSON path. " +
		"`--ignore ID,…` silences rules, `--strict` makes warnings violations, `check --rules` prints this table. Back to the [README](../README.md).\n\n")
	b.WriteString("| id | severity | name | what it checks | source |\n|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	rows := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r ruleLine
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || r.ID == "" {
			t.Fatalf("check --rules --json line %q: %v", l, err)
		}
		b.WriteString("| " + cell(r.ID) + " | " + cell(r.Severity) + " | " + cell(r.Name) + " | " + cell(r.What) + " | " + cell(r.Source) + " |\n")
		rows++
	}
	if rows < 40 {
		t.Fatalf("check --rules --json printed %d rules", rows)
	}
	checkDoc(t, "docs/conformance.md", b.String())
}

// TestDocs_LinksResolve: every relative link of the README and the docs
// names a file that exists.
func TestDocs_LinksResolve(t *testing.T) {
	files := []string{"README.md", "SECURITY.md", "CONTRIBUTING.md"}
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			p := filepath.Join("..", "..", filepath.Dir(f), target)
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, m[1])
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links found: the pattern no longer matches", checked)
	}
}
