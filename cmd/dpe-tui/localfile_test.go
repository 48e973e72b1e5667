//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLocalFile_OneRuleForEveryCommand: get, open, convert, check and hash
// refuse a symlink to /proc/self/status and a FIFO the same way, at once,
// in one line naming the file and the cause (get printed an empty page
// for the symlink where convert refused it), and read a symlink to a
// regular file.
func TestLocalFile_OneRuleForEveryCommand(t *testing.T) {
	dir := t.TempDir()
	status := filepath.Join(dir, "status.txt")
	if err := os.Symlink("/proc/self/status", status); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.md")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	notes := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(notes, []byte("# Notes\n\nOne line.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	toNotes := filepath.Join(dir, "to-notes.md")
	if err := os.Symlink(notes, toNotes); err != nil {
		t.Fatal(err)
	}
	commands := [][]string{
		{"get", "--format", "text"},
		{"open"},
		{"convert", "-o", filepath.Join(dir, "out.json")},
		{"check"},
		{"hash"},
	}
	for _, c := range commands {
		for _, in := range []struct{ file, cause string }{
			{status, "/proc is a pseudo-filesystem"},
			{fifo, "a FIFO"},
		} {
			args := append([]string{c[0], in.file}, c[1:]...)
			code, out, errOut := runBounded(t, args...)
			want := "dpe-tui: " + in.file + ": not a regular file (" + in.cause + ")\n"
			if code != exitRuntime || out != "" || errOut != want {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", args, code, out, errOut, exitRuntime, want)
			}
		}
	}
	for _, c := range [][]string{{"get", toNotes, "--format", "text"}, {"check", toNotes}, {"hash", toNotes}} {
		if code, _, errOut := runBounded(t, c...); code != exitOK {
			t.Errorf("%q (a symlink to a regular file): exit %d, stderr %q", c, code, errOut)
		}
	}
}

// The push state the browser reads (which folder went to which remote) is
// read under the same rule: a FIFO in its place is not opened (it would
// block the browser's start), a regular file is read.
func TestLocalFile_PushStateIsReadOnlyFromARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "push.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if got := readPushState(fifo); len(got) != 0 {
		t.Errorf("a FIFO read as %v", got)
	}
	state := filepath.Join(dir, "state.json")
	if err := os.WriteFile(state, []byte(`{"https://r.example/x":{"dir":"/notes"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := readPushState(state); len(got) != 1 {
		t.Errorf("the state file read as %v", got)
	}
}
