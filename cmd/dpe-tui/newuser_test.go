package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// startSkillsComputer runs `dpe-tui computer --skills` as computer name in
// office demo of url: a computer with skills and no MCP server. Its skill
// folder holds one skill, skill, and is returned.
func startSkillsComputer(t *testing.T, url, name, skill string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, skill), 0o700); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + skill + "\ndescription: The " + name + " copy.\n---\n# " + skill + " on " + name + "\n"
	if err := os.WriteFile(filepath.Join(dir, skill, "SKILL.md"), []byte(md), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"computer", "--url", url, "--office", "demo", "--name", name, "--skills", dir}, io.Discard, io.Discard)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	waitFor(t, name+" joins", func() bool {
		_, out, _ := runCLI(t, "ls", "computers", "--url", url, "--office", "demo")
		return strings.Contains(out, name)
	})
	return dir
}

// A computer with no MCP server: ls servers and ls resources of it name
// the computer on stderr and exit exitNothingListed, not an empty 0.
func TestLs_ComputerWithNoServersSaysSoAndExitsNothingListed(t *testing.T) {
	url := startServe(t)
	startSkillsComputer(t, url, "gamma", "field-notes")
	for _, what := range []string{"servers", "resources"} {
		code, out, errOut := runCLI(t, "ls", what, "--url", url, "--office", "demo", "--computer", "gamma")
		if code != exitNothingListed || out != "" || errOut != "dpe-tui: computer gamma has no MCP servers\n" {
			t.Errorf("ls %s --computer gamma: exit %d (want %d), stdout %q, stderr %q", what, code, exitNothingListed, out, errOut)
		}
	}
	// With other computers listed, the empty one is noted and the run is ok.
	code, out, errOut := runCLI(t, "ls", "servers", "--url", url, "--office", "demo")
	if code != 0 || !strings.Contains(out, "library") || !strings.Contains(errOut, "computer gamma has no MCP servers") {
		t.Errorf("ls servers: exit %d\n%s%s", code, out, errOut)
	}
}

// get --skill of a name two computers list refuses to pick one, naming
// both; --computer picks.
func TestGetSkill_OnTwoComputersIsAmbiguous(t *testing.T) {
	url := startServe(t) // alpha serves the demo skills, pdf-triage among them
	startSkillsComputer(t, url, "gamma", "pdf-triage")
	code, out, errOut := runCLI(t, "get", "--skill", "pdf-triage", "--url", url, "--office", "demo")
	if code != exitUsage || out != "" || !strings.Contains(errOut, "skill pdf-triage is on alpha, gamma: pass --computer") ||
		strings.Count(errOut, "\n") != 1 {
		t.Errorf("ambiguous skill: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "get", "--skill", "pdf-triage", "--computer", "gamma", "--url", url, "--office", "demo", "--format", "text")
	if code != 0 || !strings.Contains(out, "pdf-triage on gamma") {
		t.Errorf("get --skill --computer gamma: exit %d\n%s%s", code, out, errOut)
	}
	// A refusal is one sentence with its code said once, and the reason
	// is the real one: this path stays inside the folder.
	code, _, errOut = runCLI(t, "get", "--skill", "pdf-triage", "--computer", "gamma", "--path", "assets/../SKILL.md", "--url", url, "--office", "demo")
	if want := "dpe-tui: skill pdf-triage on computer gamma: assets/../SKILL.md is refused: a path with .. is not accepted (4017)\n"; code != exitProtocol || errOut != want {
		t.Errorf("--path assets/../SKILL.md: exit %d, stderr %q, want %q", code, errOut, want)
	}
}

// A join refused because another agent holds the office's one agent seat
// says what to do.
func TestDial_AgentSeatTakenSaysWhoAndWhatToDo(t *testing.T) {
	url := interoptest.StartScript(t, "smcp_peer_04.py")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	holder, err := client.Dial(ctx, client.Options{URL: url, Office: "o", Name: "tui", Version: protocol.Version04})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	code, _, errOut := runCLI(t, "ls", "computers", "--url", url, "--office", "o")
	if code == 0 || !strings.Contains(errOut, "already has an agent; another agent holds the office (a dpe-tui left open?): close it or pass another --office") ||
		strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// get --skill --format json names the computer and the skill in the
// document's uri, and leaves out a last_modified nobody said.
func TestGetSkill_JSONNamesComputerAndSkill(t *testing.T) {
	url := startServe(t)
	code, out, errOut := runCLI(t, "get", "--skill", "pdf-triage", "--url", url, "--office", "demo", "--format", "json")
	if code != 0 || !strings.Contains(out, `"uri":"skill://alpha/pdf-triage/SKILL.md"`) || strings.Contains(out, "dpe://local/") ||
		strings.Contains(out, "last_modified") || strings.Contains(out, "1970") {
		t.Errorf("exit %d\n%.400s\n%s", code, out, errOut)
	}
}

// get --skill -o: SKILL.md arrives without its frontmatter, and the saved
// file says so; a write that fails names the path the user gave, not the
// temporary name beside it.
func TestGetSkill_SaveSaysWhatItWrote(t *testing.T) {
	url := startServe(t)
	dest := filepath.Join(t.TempDir(), "SKILL.md")
	code, _, errOut := runCLI(t, "get", "--skill", "pdf-triage", "--url", url, "--office", "demo", "-o", dest)
	if code != 0 || !strings.Contains(errOut, "dpe-tui: the computer sends SKILL.md without its frontmatter: "+dest+" is its body, not the file's exact bytes\n") {
		t.Errorf("-o SKILL.md: exit %d, stderr %q", code, errOut)
	}
	missing := filepath.Join(t.TempDir(), "nodir", "x.md")
	code, _, errOut = runCLI(t, "get", "--skill", "pdf-triage", "--url", url, "--office", "demo", "-o", missing)
	if code == 0 || !strings.Contains(errOut, "write "+missing+": no such file or directory") || strings.Contains(errOut, ".x.md.") {
		t.Errorf("-o into a missing folder: exit %d, stderr %q", code, errOut)
	}
}

// serve --help says what --a2c-version means for a server, not for an
// agent.
func TestServeHelp_A2CVersionIsWhatTheServerSpeaks(t *testing.T) {
	code, out, _ := runCLI(t, "serve", "--help")
	if code != 0 || !strings.Contains(out, "A2C-SMCP version the server and its computers speak") || strings.Contains(out, "what the server's 4008 names") {
		t.Errorf("serve --help: exit %d\n%s", code, out)
	}
}

// ls desktop counts the entries that are not windows in a sentence that
// agrees with its number (the 0.3 peer sends one).
func TestLsDesktop_SkippedEntryCountAgrees(t *testing.T) {
	url := interoptest.StartScript(t, "smcp_peer_03.py")
	code, out, errOut := runCLI(t, "ls", "desktop", "--url", url, "--office", "o")
	if code != 0 || !strings.Contains(out, "window://com.example.browser/main") ||
		!strings.Contains(errOut, "dpe-tui: computer box: 1 desktop entry was not a window and is not shown\n") {
		t.Errorf("ls desktop: exit %d\n%s%s", code, out, errOut)
	}
}

// ls resources names a server with its key only where its name is shared.
func TestLsResources_KeyShownOnlyForSharedNames(t *testing.T) {
	url := interoptest.StartScript(t, "smcp_peer_04.py")
	code, out, errOut := runCLI(t, "ls", "resources", "--all", "--url", url, "--office", "o")
	if code != 0 || !strings.Contains(out, "docs (com.example.docs.v1)") || !strings.Contains(out, "docs (org.other.docs)") ||
		strings.Contains(out, "browser (com.example.browser)") || !strings.Contains(out, " browser ") {
		t.Errorf("ls resources --all: exit %d\n%s%s", code, out, errOut)
	}
}
