package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// The 0.3 and 0.4 peers (python-socketio, written from the spec) browsed
// end to end through the commands: computers, servers with colliding
// names, resources, desktop, skills; a skill's SKILL.md rendered as a
// document, a text file of the package, a binary one written byte for
// byte through get_blob; the computer's refusals as sentences; get of a
// dpe:// URI failing fast, naming the version.
func TestSkills_BrowsedEndToEndAgainstThe03And04Peers(t *testing.T) {
	pkg := filepath.Join(interoptest.RepoRoot(t), "interop", "peers", "skills", "pdf-tools")
	logo, err := os.ReadFile(filepath.Join(pkg, "assets", "logo.png"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ script, version string }{{"smcp_peer_03.py", "0.3"}, {"smcp_peer_04.py", "0.4"}} {
		t.Run(tc.version, func(t *testing.T) {
			url := interoptest.StartScript(t, tc.script)
			run := func(args ...string) (int, string, string) {
				return runCLI(t, append([]string{"--url", url, "--office", "o"}, args...)...)
			}
			code, out, stderr := run("ls", "computers")
			if code != 0 || !strings.Contains(out, "box") || !strings.Contains(out, tc.version+".0") {
				t.Errorf("ls computers: exit %d\n%s%s", code, out, stderr)
			}
			code, out, stderr = run("ls", "servers")
			if code != 0 || !strings.Contains(out, "KEY") || strings.Count(out, "docs") < 2 {
				t.Errorf("ls servers: exit %d\n%s%s", code, out, stderr)
			}
			code, out, stderr = run("ls", "resources", "--all")
			if code != 0 || !strings.Contains(out, "dpe://org.other.docs/report") || !strings.Contains(out, "window://com.example.browser/main") {
				t.Errorf("ls resources --all: exit %d\n%s%s", code, out, stderr)
			}
			code, out, stderr = run("ls", "desktop")
			if code != 0 || !strings.Contains(out, "window://com.example.browser/main") {
				t.Errorf("ls desktop: exit %d\n%s%s", code, out, stderr)
			}
			code, out, stderr = run("ls", "skills")
			if code != 0 || !strings.Contains(out, "pdf-tools") || !strings.Contains(out, "Fill and read PDF forms") {
				t.Errorf("ls skills: exit %d\n%s%s", code, out, stderr)
			}
			if tags := strings.Contains(out, "pdf,forms"); tags != (tc.version == "0.4") {
				t.Errorf("ls skills: tags shown %v, want them from 0.4 only:\n%s", tags, out)
			}
			code, out, stderr = run("ls", "skills", "--json")
			if code != 0 || !strings.Contains(out, `"name":"pdf-tools"`) || !strings.Contains(out, `"source":"user"`) {
				t.Errorf("ls skills --json: exit %d\n%s%s", code, out, stderr)
			}

			code, out, stderr = run("get", "--skill", "pdf-tools")
			for _, want := range []string{"# PDF tools", "## Steps", "1. Open the form", "| Field", "| name", "```python", "the forms reference"} {
				if !strings.Contains(out, want) {
					t.Errorf("get --skill: lacks %q (exit %d)\n%s%s", want, code, out, stderr)
				}
			}
			if strings.Contains(out, "tags: [pdf") || strings.Contains(out, "SECRET") {
				t.Errorf("get --skill shows the raw frontmatter or .skillenv:\n%s", out)
			}
			code, out, stderr = run("get", "--skill", "pdf-tools", "--format", "json")
			// The listing is the document's metadata: title, summary, keywords.
			if code != 0 || !strings.Contains(out, `"title":"pdf-tools"`) || !strings.Contains(out, `Fill and read PDF forms (source user, version 1.0.0)`) {
				t.Errorf("get --skill --format json: exit %d\n%.600s%s", code, out, stderr)
			}
			if kw := strings.Contains(out, `"keywords":["pdf","forms"]`); kw != (tc.version == "0.4") {
				t.Errorf("get --skill --format json: keywords from tags %v, want them from 0.4 only:\n%.600s", kw, out)
			}
			code, out, stderr = run("get", "--skill", "pdf-tools", "--path", "reference/forms.md", "--format", "text")
			if code != 0 || !strings.Contains(out, "Forms reference") || !strings.Contains(out, "A form field has a name") {
				t.Errorf("get --path reference/forms.md: exit %d\n%s%s", code, out, stderr)
			}
			dest := filepath.Join(t.TempDir(), "logo.png")
			code, _, stderr = run("get", "--skill", "pdf-tools", "--path", "assets/logo.png", "-o", dest)
			got, _ := os.ReadFile(dest)
			if code != 0 || !bytes.Equal(got, logo) {
				t.Errorf("get -o logo.png: exit %d, %d bytes (want %d): %s", code, len(got), len(logo), stderr)
			}
			if st, err := os.Stat(dest); err == nil && st.Mode().Perm() != 0o600 {
				t.Errorf("saved with mode %v, want 0600", st.Mode().Perm())
			}
			code, _, stderr = run("get", "--skill", "pdf-tools", "--path", "assets/logo.png")
			if code == 0 || !strings.Contains(stderr, "binary") || !strings.Contains(stderr, "-o") {
				t.Errorf("a binary file without -o: exit %d, %q", code, stderr)
			}
			for rel, want := range map[string]string{
				".skillenv":  "skill pdf-tools on computer box: .skillenv may not be read (4017)",
				"../x":       "skill pdf-tools on computer box: ../x is refused: a path with .. is not accepted (4017)",
				"missing.md": "skill pdf-tools on computer box has no file missing.md (4017)",
			} {
				code, _, stderr = run("get", "--skill", "pdf-tools", "--path", rel)
				if code != exitProtocol || stderr != "dpe-tui: "+want+"\n" {
					t.Errorf("--path %s: exit %d, stderr %q; want %q", rel, code, stderr, want)
				}
			}
			code, _, stderr = run("get", "--skill", "no-such")
			if code == 0 || !strings.Contains(stderr, "no computer of the office lists skill no-such") {
				t.Errorf("unknown skill: exit %d, %q", code, stderr)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			done := make(chan struct{})
			go func() {
				code, _, stderr = run("get", "dpe://com.example.docs/report")
				close(done)
			}()
			select {
			case <-done:
			case <-ctx.Done():
				t.Fatal("get dpe:// did not fail within 10s")
			}
			if code == 0 || !strings.Contains(stderr, "A2C-SMCP "+tc.version+", which has no client:get_dpe") {
				t.Errorf("get dpe://: exit %d, %q; want it to fail naming %s", code, stderr, tc.version)
			}
		})
	}
}

// A 0.5.0 office is joined only when asked for; its refusals are flat
// ErrorPayloads, shown as sentences.
func TestA2CVersion05_JoinedWhenAskedAndRefusalsAreSentences(t *testing.T) {
	url := interoptest.StartScript(t, "smcp_peer_04.py", "--server-version", "0.5.0")
	code, _, stderr := runCLI(t, "--url", url, "--office", "o", "ls", "computers")
	if code == 0 || !strings.Contains(stderr, "server=0.5.0") || !strings.HasSuffix(strings.TrimSpace(stderr), "this server speaks 0.5.0: run with --a2c-version 0.5.0") {
		t.Errorf("0.5 without --a2c-version: exit %d, %q; want the 4008 naming 0.5.0 and the flag that joins it", code, stderr)
	}
	code, out, stderr := runCLI(t, "--url", url, "--office", "o", "--a2c-version", "0.5.0", "ls", "computers")
	if code != 0 || !strings.Contains(out, "0.5.0") {
		t.Fatalf("--a2c-version 0.5.0: exit %d\n%s%s", code, out, stderr)
	}
	// Another agent holds the office's agent seat.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: url, Office: "o", Name: "first", Version: "0.5.0"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	code, _, stderr = runCLI(t, "--url", url, "--office", "o", "--a2c-version", "0.5.0", "ls", "computers")
	if code == 0 || !strings.Contains(stderr, "office o already has an agent (4101)") || strings.Contains(stderr, "Room Full") {
		t.Errorf("second agent: exit %d, %q; want the 4101 sentence", code, stderr)
	}
}

// A peer that sends SKILL.md with its frontmatter: the block is not
// shown as text, and what the listing left out comes from it.
func TestSkillDocument_FrontmatterLeftInIsMetadataNotText(t *testing.T) {
	f := &client.SkillFile{RelPath: "SKILL.md", MimeType: "text/markdown",
		Data: []byte("---\nname: x\ndescription: From the head\ntags: [a, b]\n---\n# Heading\n\nBody.\n")}
	op, err := skillDocument(context.Background(), "c1", f, &protocol.SkillRef{Name: "x", Source: "user"})
	if err != nil {
		t.Fatal(err)
	}
	d := op.Doc
	if d.Title != "x" || d.Summary != "From the head (source user)" || strings.Join(d.Keywords, ",") != "a,b" {
		t.Errorf("title %q summary %q keywords %v", d.Title, d.Summary, d.Keywords)
	}
	if strings.Contains(string(op.Body), "tags: [a") {
		t.Errorf("the frontmatter reached the document's text: %s", op.Body)
	}
}
