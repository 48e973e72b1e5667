package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/hostilefiles"
)

// hostileCache holds each hostile file generated once per test binary:
// generating one is compressing it (the tiny-paragraph DOCX is 100 MB of
// XML deflated at the best level, most of a minute under -race on a loaded
// machine), and several tests use the same file. TestMain removes dir.
var hostileCache struct {
	mu    sync.Mutex
	dir   string
	paths map[string]string
}

// writeHostile writes the hostile file named name at path: a copy of the
// one generated for this test binary, so a test may change its own.
func writeHostile(t *testing.T, name, path string) hostilefiles.File {
	t.Helper()
	f, src := cachedHostile(t, name)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func cachedHostile(t *testing.T, name string) (hostilefiles.File, string) {
	t.Helper()
	var f hostilefiles.File
	for _, g := range hostilefiles.All() {
		if g.Name == name {
			f = g
		}
	}
	if f.Name == "" {
		t.Fatalf("no hostile file %s", name)
	}
	c := &hostileCache
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.paths[name]; ok {
		return f, p
	}
	if c.dir == "" {
		dir, err := os.MkdirTemp("", "dpe-tui-test-hostile-")
		if err != nil {
			t.Fatal(err)
		}
		c.dir, c.paths = dir, map[string]string{}
	}
	p := filepath.Join(c.dir, name)
	if err := hostilefiles.WriteFile(p, f); err != nil {
		t.Fatal(err)
	}
	c.paths[name] = p
	return f, p
}
