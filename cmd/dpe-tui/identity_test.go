package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
)

// Against a 0.3 peer whose two servers share the display name "docs":
// ls servers shows a KEY column and --json always has key; ls resources
// asks each server by its key (not its name, which the peer answers with
// 4014); --server takes a key, and a shared name is refused with a line
// listing both keys.
func TestLs_ServersAreAddressedByKeyAgainstA03Peer(t *testing.T) {
	url := interoptest.StartScript(t, "smcp_peer_03.py")
	ls := func(args ...string) (int, string, string) {
		return runCLI(t, append([]string{"--url", url, "--office", "o", "ls"}, args...)...)
	}

	code, out, stderr := ls("servers")
	if code != 0 {
		t.Fatalf("ls servers: exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "KEY") {
		t.Fatalf("ls servers:\n%s\nwant a header with KEY and three rows", out)
	}
	for _, key := range []string{"com.example.docs.v1", "org.other.docs", "com.example.browser"} {
		if !strings.Contains(out, key) {
			t.Errorf("ls servers lacks the key %s:\n%s", key, out)
		}
	}

	code, out, _ = ls("servers", "--json")
	if code != 0 {
		t.Fatalf("ls servers --json: exit %d", code)
	}
	keys := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct{ Server, Key string }
		if err := json.Unmarshal([]byte(l), &row); err != nil || row.Key == "" {
			t.Fatalf("row %q: %v; want a key", l, err)
		}
		keys[row.Key] = row.Server
	}
	if keys["com.example.docs.v1"] != "docs" || keys["org.other.docs"] != "docs" {
		t.Errorf("keys → names = %v", keys)
	}

	code, out, stderr = ls("resources", "--json")
	if code != 0 || strings.Contains(stderr, "4014") {
		t.Fatalf("ls resources: exit %d, stderr %q", code, stderr)
	}
	for _, uri := range []string{"dpe://com.example.docs/report", "dpe://org.other.docs/report", "dpe://com.example.browser/report"} {
		if !strings.Contains(out, uri) {
			t.Errorf("ls resources lacks %s:\n%s", uri, out)
		}
	}

	code, out, stderr = ls("resources", "--server", "org.other.docs")
	if code != 0 || !strings.Contains(out, "dpe://org.other.docs/report") || strings.Contains(out, "com.example.docs/report") {
		t.Errorf("--server by key: exit %d\n%s\nstderr %q", code, out, stderr)
	}
	code, out, _ = ls("resources", "--server", "browser")
	if code != 0 || !strings.Contains(out, "dpe://com.example.browser/report") {
		t.Errorf("--server by an unshared name: exit %d\n%s", code, out)
	}
	code, _, stderr = ls("resources", "--server", "docs")
	if code != exitUsage || !strings.Contains(stderr, "com.example.docs.v1, org.other.docs") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("--server docs (shared): exit %d, stderr %q; want one usage line listing both keys", code, stderr)
	}
}
