package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/library"
)

// TestFind_EmbeddedWaitsForIndex: a one-shot find on the embedded demo
// (no --url) answers from the complete index, not from the empty one the
// demo has just started building.
func TestFind_EmbeddedWaitsForIndex(t *testing.T) {
	// The Finder's index starts empty, but compiled PDFium (for the demo's
	// PDF) is the one in the user's cache, as the other tests use it:
	// compiling it again was half this test's CPU, and minutes of it under
	// -race on a loaded machine. convert's tests compile it cold.
	isolatedCache(t)
	code, out, errOut := runCLI(t, "find", "Lantern Creek", "--timeout=4m") // -race on a busy machine is slow to index
	if code != 0 || !strings.Contains(out, "annual-operations-2026.md\tp.3\t") {
		t.Fatalf("find on the embedded demo: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "alpha: 2 hits of 2; indexed: 25/25 documents\n") || strings.Contains(errOut, "incomplete") {
		t.Errorf("stderr %q", errOut)
	}
}

// TestFind_DocsSharesMCPIndex: the CLI's --docs and mcp --docs keep the
// index of one folder in one place under XDG_CACHE_HOME, and find --docs
// waits for it.
func TestFind_DocsSharesMCPIndex(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pumps.md"), []byte("# Pumps\n\nThe pump station runs at night.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// What runMCP opens for mcp --docs DIR.
	lib, err := library.Open(library.Options{Dir: dir, Host: library.DefaultHost, Finder: &library.FinderOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := lib.Finder().Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := lib.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "find", "pump", "--docs", dir)
	if code != 0 || !strings.Contains(out, "pumps.md") || !strings.Contains(errOut, "indexed: 1/1 documents") {
		t.Fatalf("find --docs: exit %d\n%s\n%s", code, out, errOut)
	}
	dirs, err := os.ReadDir(filepath.Join(cache, "dpe-tui", "finder"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("index dirs for one folder: %v (%v)", dirs, err)
	}
}

// TestFind_IncompleteIndexExit: a Finder that has not indexed anything
// yet answers with no hits; find says the answer is partial and exits
// exitIncomplete rather than 0.
func TestFind_IncompleteIndexExit(t *testing.T) {
	st := startStack(t, "http")
	never := make(chan struct{}) // the build never starts
	lib := openLibrary(t, library.Options{FS: fstest.MapFS{}, Host: "io.github.dpetui.gamma", Name: "shelf", Generated: 4,
		Finder: &library.FinderOptions{Start: never}})
	joinComputer(t, st.URL, st.Office, "gamma", map[string]*mcp.Server{"shelf": lib.Server()})
	code, out, errOut := runCLI(t, "find", "generated", "--url="+st.URL, "--computer", "gamma")
	if code != exitIncomplete || out != "" {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitIncomplete, out, errOut)
	}
	if !strings.Contains(errOut, "dpe-tui: answered from an incomplete index on gamma\n") || !strings.Contains(errOut, "no hits, but the index is not complete") {
		t.Errorf("stderr %q", errOut)
	}
}
