//go:build unix

package ui

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The state file is written only onto a regular file or a new name: a
// FIFO (or a device) there is left as it is, and the write says why in
// one line.
func TestRestore_StateFileIsNeverWrittenOntoAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "positions.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	err := writePositions(path, []position{{URI: "file:///a.pdf", Page: 2}})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("write onto a FIFO: %v", err)
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", st, err)
	}
	if _, err := readPositions(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("read of a FIFO: %v", err)
	}
}
