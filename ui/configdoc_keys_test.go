package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/config"
)

// TestDocs_ConfigKeysExampleIsAcceptedAsWritten: the [keys] example of
// docs/config.md, read by the config loader, makes a keymap (a doc's
// example a user copies must not be a config error).
func TestDocs_ConfigKeysExampleIsAcceptedAsWritten(t *testing.T) {
	doc, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```toml\n[keys]\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/config.md has no [keys] example")
	}
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte("[keys]\n"+example), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(p)
	if err != nil {
		t.Fatalf("the example does not load: %v", err)
	}
	if kc := f.Keys(); kc.Preset == "" || len(kc.Bind) == 0 {
		t.Fatalf("the example binds nothing: %+v", kc)
	}
	if err := CheckKeys(f.Keys()); err != nil {
		t.Fatalf("the example is refused: %v", err)
	}
}
