package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// skillAgent is the fake agent with the skill channel: the 0.3 computer
// "box" (keyedOffice) has two skills; one package has a guide, a script,
// a PNG, and a link to a file it does not have.
type skillAgent struct {
	*fakeAgent
	mu    sync.Mutex
	asked []string // computer/name/rel_path of every SkillFile
	// files replaces what a rel_path of pdf-tools reads as.
	files map[string]*client.SkillFile
	// desk replaces box's desktop.
	desk *client.Desktop
}

const skillBody = "# PDF tools\n\nConvert PDFs with [the guide](references/guide.md), run [the script](./scripts/run.py#main),\n" +
	"use [the logo](assets/logo.png) and read [notes](references/missing.md). Upstream: [web](https://example.com/x).\n\n" +
	"## Steps\n\n1. Read the guide.\n2. Run the script.\n\n| option | meaning |\n|---|---|\n| -o | output |\n\n```sh\nrun.py in.pdf\n```\n"

var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

var zipBytes = []byte("PK\x05\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")

func newSkillAgent(t *testing.T) *skillAgent {
	f := newFakeAgent(t)
	keyedOffice(f)
	return &skillAgent{fakeAgent: f}
}

func (a *skillAgent) Skills(ctx context.Context, computer string) ([]protocol.SkillRef, error) {
	switch computer {
	case "build-box":
		// What our server answers for a computer without the channel,
		// wrapped as the client wraps it.
		return nil, fmt.Errorf("skills of computer %s: %s to computer %s: %w", computer, protocol.EventGetSkills, computer,
			&protocol.Error{Code: protocol.CodeNotFound, Message: "computer build-box does not implement client:get_skills"})
	case "box":
	default:
		return nil, nil
	}
	return []protocol.SkillRef{
		{Name: "pdf-tools", Source: "user", Path: "/home/u/.a2c/skills/pdf-tools", Description: "Convert and inspect PDF files\x1b[2J", Version: "1.2.0",
			Tags: []string{"pdf", "convert"}, License: "MIT", AllowedTools: []string{"Bash", "Read"}},
		{Name: "mcp:com_example_docs:summarize", Source: "mcp:com_example_docs", Path: "/srv/skills/summarize", Description: "Summarize a document", URI: "skill://com.example.docs/summarize"},
	}, nil
}

func (a *skillAgent) ReadSkillFile(ctx context.Context, computer, name, rel string, _ client.SkillFileOptions) (*client.SkillFile, error) {
	a.mu.Lock()
	a.asked = append(a.asked, computer+"/"+name+"/"+rel)
	a.mu.Unlock()
	if name != "pdf-tools" {
		return nil, protocol.NewSkillError(&protocol.Error{Code: protocol.CodeMCPServerNotFound, Message: "no skill"}, computer, name, rel)
	}
	if f, ok := a.files[rel]; ok {
		return f, nil
	}
	switch rel {
	case "":
		return &client.SkillFile{Skill: name, RelPath: "SKILL.md", MimeType: "text/markdown", Data: []byte(skillBody)}, nil
	case "references/guide.md":
		return &client.SkillFile{Skill: name, RelPath: rel, MimeType: "text/markdown", Data: []byte("# Guide\n\nPass **-o** to choose the output.\n")}, nil
	case "scripts/run.py":
		return &client.SkillFile{Skill: name, RelPath: rel, MimeType: "text/x-python", Data: []byte("#!/usr/bin/env python3\nprint('converting')\n")}, nil
	case "assets/logo.png":
		return &client.SkillFile{Skill: name, RelPath: rel, MimeType: "image/png", Data: pngBytes, Blob: true}, nil
	}
	details, _ := json.Marshal(map[string]any{"reason": "not_found", "resolved": "/home/u/.a2c/skills/pdf-tools/" + rel})
	return nil, protocol.NewSkillError(&protocol.Error{Code: protocol.CodeSkillResource, Message: "resource not accessible", Details: details}, computer, name, rel)
}

// startSkills opens box's computer screen with the real Markdown
// converter wired as cmd wires it.
func startSkills(t *testing.T, a *skillAgent, size [2]int, saveDir string) *session {
	t.Helper()
	opt := testOptions(a)
	opt.Width, opt.Height = size[0], size[1]
	opt.SaveDir = saveDir
	conv := convert.New(convert.Options{})
	t.Cleanup(func() { _ = conv.Close() })
	opt.ConvertMarkdown = func(ctx context.Context, name string, body []byte) (PageSource, error) {
		return conv.Open(ctx, convert.BytesSource(name, body))
	}
	s := start(t, opt)
	s.waitFor("build-box")
	s.waitFor("3 enabled")
	s.keys("enter")
	s.waitFor("2 skills")
	return s
}

// toSkill opens pdf-tools's SKILL.md.
func (s *session) toSkill() {
	s.keys("tab", "enter")
	s.waitFor("opened pdf-tools")
}

// TestSkills_ComputerScreenListsSkillsBesideServers: the computer screen
// has its servers, then its skills with source, version, tags and
// description, every string sanitized.
func TestSkills_ComputerScreenListsSkillsBesideServers(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := startSkills(t, newSkillAgent(t), size, t.TempDir())
			s.keys("tab")
			out := s.final()
			for _, want := range []string{"SKILLS · 2 skills", "pdf-tools", "user", "1.2.0", "pdf, con", "org.other.docs", "tab desktop"} {
				if !strings.Contains(out, want) {
					t.Errorf("%q not on the computer screen:\n%s", want, out)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
}

// TestSkills_SkillMDRendersAsADocument: enter on a skill shows its
// SKILL.md through the Markdown converter: headings, the list, the table
// and the code block render as in any document, and the frontmatter is
// the document's title, summary and keywords.
func TestSkills_SkillMDRendersAsADocument(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			a := newSkillAgent(t)
			s := startSkills(t, a, size, t.TempDir())
			s.toSkill()
			s.keys("]")
			s.waitFor("meaning")
			out := s.final()
			for _, want := range []string{"Steps", "Read the guide.", "option", "run.py in.pdf", "L linked files"} {
				if !strings.Contains(out, want) {
					t.Errorf("%q not in the rendered SKILL.md:\n%s", want, out)
				}
			}
			golden.RequireEqual(t, out)
			if got := a.asked[0]; got != "box/pdf-tools/" {
				t.Errorf("SKILL.md asked as %q, want get_skill without rel_path", got)
			}
		})
	}
}

// TestSkills_RelativeLinkOpensATextFile: L lists the package files the
// body links to (not the web link); enter on the script reads it with
// get_skill rel_path and shows it as text.
func TestSkills_RelativeLinkOpensATextFile(t *testing.T) {
	a := newSkillAgent(t)
	s := startSkills(t, a, [2]int{80, 24}, t.TempDir())
	s.toSkill()
	s.keys("L")
	s.waitFor("Files of skill pdf-tools")
	if f := s.frame(); strings.Contains(f, "example.com") {
		t.Fatalf("a web link is listed as a package file:\n%s", f)
	}
	s.keys("down", "enter")
	s.waitFor("print('converting')")
	out := s.final()
	golden.RequireEqual(t, out)
	if got := a.asked[len(a.asked)-1]; got != "box/pdf-tools/scripts/run.py" {
		t.Errorf("asked for %q, want the link's path without ./ and #fragment", got)
	}
}

// TestSkills_BigTextFileSaysItIsCut: a text file larger than what is
// formatted shows its start and says how much of how much, and that s
// saves all of it.
func TestSkills_BigTextFileSaysItIsCut(t *testing.T) {
	a := newSkillAgent(t)
	big := bytes.Repeat([]byte("print('converting a page of the file')\n"), 15<<20/39)
	a.files = map[string]*client.SkillFile{"scripts/run.py": {Skill: "pdf-tools", RelPath: "scripts/run.py", MimeType: "text/x-python", Data: big, Blob: true}}
	s := startSkills(t, a, [2]int{80, 24}, t.TempDir())
	s.toSkill()
	s.keys("L")
	s.waitFor("Files of skill pdf-tools")
	s.keys("down", "enter")
	s.waitFor("print('converting a page")
	out := s.final()
	if !strings.Contains(out, "showing the first 2.0 MiB of 15.0 MiB · s saves all") {
		t.Errorf("a cut text file does not say it is cut:\n%s", out)
	}
	golden.RequireEqual(t, out)
}

// TestSkills_BinaryFileIsOfferedForSaving: a binary file of the package
// opens on a page saying s saves it, with no prompt yet (s typed into a
// prompt would end up in the name); s opens the prompt on its name; enter
// writes its exact bytes, 0600.
func TestSkills_BinaryFileIsOfferedForSaving(t *testing.T) {
	dir := t.TempDir()
	a := newSkillAgent(t)
	// Not an image (an image is previewed): a zip under the link's name.
	a.files = map[string]*client.SkillFile{"assets/logo.png": {Skill: "pdf-tools", RelPath: "assets/logo.png", MimeType: "application/zip", Data: zipBytes, Blob: true}}
	s := startSkills(t, a, [2]int{80, 24}, dir)
	s.toSkill()
	s.keys("L")
	s.waitFor("Files of skill pdf-tools")
	s.keys("down", "down", "enter")
	s.waitFor("logo.png")
	s.waitFor("cannot be shown as text")
	if f := s.frame(); strings.Contains(f, "save content as") {
		t.Fatalf("the save prompt opened before s:\n%s", f)
	}
	s.keys("s")
	s.waitFor("save content as")
	s.keys("enter")
	s.waitFor("written to")
	out := strings.ReplaceAll(s.final(), dir, "/tmp/save")
	golden.RequireEqual(t, tmpPrefix.ReplaceAllString(out, "/tmp/…"))
	p := filepath.Join(dir, "logo.png")
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, zipBytes) {
		t.Errorf("saved %d bytes, not the file's %d", len(got), len(zipBytes))
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("saved with mode %v, want 0600", st.Mode().Perm())
	}
}

// TestSkills_4017IsOneSentenceNamingSkillAndPath: a linked file the
// package does not have is a 4017 told in one line that names the skill
// and the path, never the computer's details (its local path).
func TestSkills_4017IsOneSentenceNamingSkillAndPath(t *testing.T) {
	s := startSkills(t, newSkillAgent(t), [2]int{80, 24}, t.TempDir())
	s.toSkill()
	s.keys("L")
	s.waitFor("Files of skill pdf-tools")
	s.keys("down", "down", "down", "enter")
	s.waitFor("has no file references/missing.md")
	s.keys("E")
	s.waitFor("4017")
	out := s.final()
	if !strings.Contains(out, "skill pdf-tools on computer box has no file references/missing.md (4017)") {
		t.Errorf("the 4017 is not the sentence naming skill and path:\n%s", out)
	}
	if strings.Contains(out, "/home/u") {
		t.Errorf("details reached the screen:\n%s", out)
	}
	golden.RequireEqual(t, out)
}

// TestSkills_ComputerWithoutTheChannelSaysSoOnce: a computer that does not
// implement get_skills gets one dim line under its servers, the peer's
// sentence once, not the wrapping of every layer.
func TestSkills_ComputerWithoutTheChannelSaysSoOnce(t *testing.T) {
	s := start(t, testOptions(newSkillAgent(t)))
	s.waitFor("build-box")
	s.waitFor("1 enabled")
	s.keys("down", "enter")
	s.waitFor("none listed")
	out := s.final()
	if !strings.Contains(out, "none listed: computer build-box does not implement client:get_skills") || strings.Count(out, "get_skills") != 1 {
		t.Errorf("the skills section does not say it once:\n%s", out)
	}
}

// TestSkills_NoServersStartsOnTheSkills: a computer with skills and no MCP
// server puts the cursor on the skills, the footer offers what enter does
// there (SKILL.md, not resources), and enter opens it; shift+tab, like
// tab, has nowhere else to go.
func TestSkills_NoServersStartsOnTheSkills(t *testing.T) {
	open := func() *session {
		a := newSkillAgent(t)
		a.configs["box"] = &client.Config{}
		s := start(t, testOptions(a))
		s.waitFor("build-box")
		s.waitFor("0 enabled")
		s.keys("enter")
		s.waitFor("2 skills")
		s.waitFor("enter SKILL.md")
		return s
	}
	s := open()
	s.keys("shift+tab", "tab")
	out := s.final()
	if strings.Contains(out, "enter resources") || strings.Contains(out, "tab servers") || !strings.Contains(out, "enter SKILL.md") {
		t.Errorf("the footer does not match the skills pane:\n%s", out)
	}
	golden.RequireEqual(t, out)
	s = open()
	s.keys("enter")
	s.waitFor("read pdf-tools/SKILL.md")
	s.final()
}

// TestSkills_ShiftTabIsTheReverseOfTab: on the computer screen shift+tab
// goes through the servers, the skills and the desktop the other way
// round from tab.
func TestSkills_ShiftTabIsTheReverseOfTab(t *testing.T) {
	s := startSkills(t, newSkillAgent(t), [2]int{80, 24}, t.TempDir())
	s.waitFor("2 windows")
	s.keys("shift+tab")
	s.waitFor("enter window text")
	s.keys("shift+tab")
	s.waitFor("enter SKILL.md")
	s.keys("shift+tab")
	s.waitFor("enter resources")
	s.final()
}

// TestSkills_NoLinksOffersNoFileToRead: the linked-files screen of a
// SKILL.md that links to nothing does not offer enter.
func TestSkills_NoLinksOffersNoFileToRead(t *testing.T) {
	a := newSkillAgent(t)
	a.files = map[string]*client.SkillFile{"": {Skill: "pdf-tools", RelPath: "SKILL.md", MimeType: "text/markdown", Data: []byte("# PDF tools\n\nNo links here.\n")}}
	s := startSkills(t, a, [2]int{80, 24}, t.TempDir())
	s.toSkill()
	s.keys("L")
	s.waitFor("links to no other file")
	out := s.final()
	if strings.Contains(out, "read file") {
		t.Errorf("enter is offered with nothing to read:\n%s", out)
	}
}

// TestSkills_StatusLeavesWithItsScreen: "opened pdf-tools" is not carried
// to the linked-files screen, and the 4017 of a linked file is not carried
// back to the document by esc.
func TestSkills_StatusLeavesWithItsScreen(t *testing.T) {
	s := startSkills(t, newSkillAgent(t), [2]int{80, 24}, t.TempDir())
	s.toSkill()
	s.keys("L")
	s.waitFor("Files of skill pdf-tools")
	if f := s.frame(); strings.Contains(f, "opened pdf-tools") {
		t.Errorf("the document's status is on the linked-files screen:\n%s", f)
	}
	s.keys("down", "down", "down", "enter")
	s.waitFor("has no file references/missing.md")
	s.keys("esc")
	s.waitFor("L linked files")
	out := s.final()
	if strings.Contains(out, "4017") || strings.Contains(out, "missing.md") {
		t.Errorf("the linked file's error outlived its screen:\n%s", out)
	}
	golden.RequireEqual(t, out)
}

// TestSkills_TraceOfAFileSaysHowItWasRead: x on a skill file does not
// show an empty get_dpe trace; it says the trace is for dpe:// documents
// and how the file was read, and the footer does not offer it.
func TestSkills_TraceOfAFileSaysHowItWasRead(t *testing.T) {
	s := startSkills(t, newSkillAgent(t), [2]int{80, 24}, t.TempDir())
	s.toSkill()
	s.keys("L")
	s.waitFor("Files of skill pdf-tools")
	s.keys("down", "enter")
	s.waitFor("print('converting')")
	s.keys("x")
	s.waitFor("the trace is for dpe:// documents")
	out := s.final()
	if strings.Contains(out, "no events yet") || strings.Contains(out, "x trace") {
		t.Errorf("x on a skill file offers or shows the get_dpe trace:\n%s", out)
	}
	golden.RequireEqual(t, out)
}

// TestSkills_ImageFileIsPreviewed: an image of the package is previewed as
// a local MCP image resource is, saying whose it is; s saves its bytes.
func TestSkills_ImageFileIsPreviewed(t *testing.T) {
	dir := t.TempDir()
	a := newSkillAgent(t)
	png, _ := base64.StdEncoding.DecodeString(tinyPNG(t))
	a.files = map[string]*client.SkillFile{"assets/logo.png": {Skill: "pdf-tools", RelPath: "assets/logo.png", MimeType: "image/png", Data: png, Blob: true}}
	s := startSkills(t, a, [2]int{80, 24}, dir)
	s.toSkill()
	s.keys("L")
	s.waitFor("Files of skill pdf-tools")
	s.keys("down", "down", "enter")
	s.waitFor("pdf-tools/assets/logo.png, from skill pdf-tools on")
	s.waitUntil("a preview", func(fr string) bool { return strings.Contains(fr, "▀") || strings.Contains(fr, "▄") })
	s.keys("s")
	s.waitFor("save image as logo.png")
	s.keys("enter")
	s.waitFor("image written to")
	s.final()
	if got, err := os.ReadFile(filepath.Join(dir, "logo.png")); err != nil || !bytes.Equal(got, png) {
		t.Fatalf("saved image: %d bytes, %v; want the file's %d", len(got), err, len(png))
	}
}
