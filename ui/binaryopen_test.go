package ui

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// open FILE of high bytes named .md (no NUL, no control character, hardly
// any ASCII) says so in one line instead of showing a page of mojibake.
func TestOpenFile_HighBytesNamedMarkdownAreRefusedInOneLine(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	junk := make([]byte, 8000)
	for i := range junk {
		junk[i] = byte(0xA0 + r.UintN(0x60))
	}
	p := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(p, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	s := start80(t, openFileOptions(t, p, nil))
	s.waitFor("binary content, not text")
	out := s.final()
	if n := strings.Count(out, "binary content"); n != 1 {
		t.Errorf("the refusal is on %d lines, want 1:\n%s", n, out)
	}
	if strings.ContainsAny(out, "¢Ážþóø") {
		t.Errorf("the bytes were shown:\n%s", out)
	}
}
