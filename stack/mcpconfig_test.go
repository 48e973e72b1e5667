package stack

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

func writeConfig(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func stateNamed(states []computer.ServerState, name string) computer.ServerState {
	for _, s := range states {
		if s.Name == name {
			return s
		}
	}
	return computer.ServerState{}
}

// TestStartLocal_MCPConfigAndDocs: the user's office holds one computer
// with a folder (in-process, ready at once) and the servers of an
// mcpServers-shape config; the broken one is its own failed row, the
// everything server becomes ready and its resources can be read.
func TestStartLocal_MCPConfigAndDocs(t *testing.T) {
	node, entry := interoptest.Everything(t)
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "notes.md"), []byte("# Notes\n\nHello.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{entry, "stdio"}},
		"broken":     map[string]any{"command": "/nonexistent/no-such-mcp-server"},
	}})
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, 60*time.Second))
	defer cancel()
	st, err := StartLocal(ctx, LocalOptions{DocsDirs: []string{docs}, MCPConfigs: []string{cfg}, FinderDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l := st.Local()
	if l == nil || st.ComputerNames()[0] != ComputerLocal {
		t.Fatalf("local office: %v %v", l, st.ComputerNames())
	}
	// The folder is ready before any configured server has to be.
	if s := l.States()[0]; s.Status != computer.ServerReady || s.Name != folderServerName(docs) {
		t.Fatalf("folder row: %+v", l.States())
	}
	if err := l.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	states := l.States()
	if len(states) != 3 || states[0].Status != computer.ServerReady {
		t.Fatalf("states: %+v", states)
	}
	if s := stateNamed(states, "broken"); s.Status != computer.ServerFailed || !strings.Contains(s.Err, "no-such-mcp-server") {
		t.Fatalf("broken: %+v", s)
	}
	if s := stateNamed(states, "everything"); s.Status != computer.ServerReady || s.NoResources {
		t.Fatalf("everything: %+v", s)
	}
	name, got, err := l.ReadResource(ctx, "", "demo://resource/dynamic/text/1")
	if err != nil || name != "everything" || len(got) == 0 || !strings.Contains(got[0].Text, "Resource 1") {
		t.Fatalf("read: %s %+v %v", name, got, err)
	}
}

func TestStartLocal_ConfigErrorsFailTheStart(t *testing.T) {
	a := writeConfig(t, map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": "a"}}})
	b := writeConfig(t, map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": "b"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := StartLocal(ctx, LocalOptions{MCPConfigs: []string{a, b}}); err == nil || !strings.Contains(err.Error(), `server "x" is in both`) {
		t.Fatalf("duplicate across files: %v", err)
	}
	if _, err := StartLocal(ctx, LocalOptions{DocsDirs: []string{filepath.Join(t.TempDir(), "nope")}}); err == nil || !strings.Contains(err.Error(), "nope: no such directory") {
		t.Fatalf("missing folder: %v", err)
	}
}

func TestFolderServerName(t *testing.T) {
	taken := map[string]bool{}
	for in, want := range map[string]string{"/x/My Reports": "my-reports", "/x/..": "docs", "/x/\x1b[31mred": "31mred"} {
		if got := uniqueName(folderServerName(in), taken); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	if got := uniqueName("my-reports", taken); got != "my-reports-2" {
		t.Errorf("second my-reports: %q", got)
	}
}
