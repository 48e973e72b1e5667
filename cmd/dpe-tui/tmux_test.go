package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
)

// tmuxSession drives the real binary in a real terminal (tmux), as a user
// would, and reads the screen back with capture-pane.
type tmuxSession struct {
	t      *testing.T
	socket string
	name   string
}

func newTmux(t *testing.T, w, h int, command string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		interoptest.Need(t, "tmux not installed; the TUI end-to-end test needs it")
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("dpe-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), name: "e2e"}
	s.run("-f", "/dev/null", "new-session", "-d", "-s", s.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h),
		// Its own state dir: a place one test left is not where the
		// next test's document reopens.
		"-e", "TERM=xterm-256color", "-e", "XDG_STATE_HOME="+t.TempDir(), "sh", "-c", command)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) keys(keys ...string) {
	s.run(append([]string{"send-keys", "-t", s.name}, keys...)...)
}
func (s *tmuxSession) text(txt string) { s.run("send-keys", "-t", s.name, "-l", txt) }
func (s *tmuxSession) screen() string  { return s.run("capture-pane", "-p", "-t", s.name) }

// manualSection matches the heading of each page of the generated manual
// ("## 12.3 Valve inspection") in exported Markdown.
var manualSection = regexp.MustCompile(`(?m)^#+ (\d+\.\d+) `)

// waitFor polls the screen until it contains every want, or fails with the
// screen as it last was.
func (s *tmuxSession) waitFor(what string, want ...string) string {
	s.t.Helper()
	return s.waitForWithin(30*time.Second, what, want...)
}

func (s *tmuxSession) waitForWithin(d time.Duration, what string, want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	var scr string
	for time.Now().Before(deadline) {
		scr = s.screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(scr, w) {
				ok = false
				break
			}
		}
		if ok {
			return scr
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("%s: screen never showed %q:\n%s", what, want, scr)
	return ""
}

// builtBinary is the real dpe-tui, built once for every test that runs it
// in a child process (a go build per test was a link of the whole binary
// each time); TestMain removes its directory.
var builtBinary struct {
	once     sync.Once
	dir, bin string
	out      []byte
	err      error
}

func buildBinary(t *testing.T) string {
	t.Helper()
	b := &builtBinary
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "dpe-tui-test-bin-"); b.err != nil {
			return
		}
		b.bin = filepath.Join(b.dir, "dpe-tui")
		b.out, b.err = exec.Command("go", "build", "-o", b.bin, ".").CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go build: %v\n%s", b.err, b.out)
	}
	return b.bin
}

func TestTUI_EndToEndInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end TUI test")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	// After the TUI exits, the same terminal records its mode and stays
	// open so the screen can still be read.
	s := newTmux(t, 100, 30, fmt.Sprintf("%s --log %s/log; echo EXIT-$?; stty -a > %s/stty; sleep 600", bin, dir, dir))

	s.waitFor("office screen", "connected", "alpha", "beta")

	// Open a multi-page document by URI through the command bar.
	s.keys("o")
	s.text("dpe://io.github.dpetui.library/reports/annual-operations-2026.md")
	s.keys("Enter")
	s.waitFor("document opens", "page 1/11", "Harbor Light Water Cooperative")

	// Next table: the key-figures table on page 2, rendered as a grid.
	s.keys("t")
	s.waitFor("table", "page 2/11", "Water delivered (m³)", "───┼───")

	// Jump to page 6 with :6 — the telemetry section with a code block.
	s.keys(":")
	s.text("6")
	s.keys("Enter")
	s.waitFor("page jump and code block", "page 6/11", "night_flow_alarm")

	// Search across all pages, from page 6: the one match is before it,
	// on page 4, which the search shows (none is after where you were).
	s.keys("/")
	s.text("turbidity")
	s.keys("Enter")
	s.waitFor("search result", `search "turbidity": match 1/1`, "page 4/11")
	s.keys("n")
	s.waitFor("match counter", "1/1", "page 4/11")

	// Inspector on the focused element ("." everywhere; enter on a table
	// opens the cell view instead), then back.
	s.keys(".")
	s.waitFor("inspector", "inspector", "category", "element_id")
	s.keys("Escape")
	s.waitFor("inspector closed", "S hit list", "? help")

	// Resolver trace.
	s.keys("x")
	s.waitFor("trace", "resolver trace", "Timeline", "get_dpe", "fetch", "validate")
	s.keys("Escape")

	// Export the 300-page manual: every page is loaded first (only page 1
	// is on screen), so the Markdown file holds all of them.
	s.keys("o")
	s.text("dpe://io.github.dpetui.library/generated/station-operations-manual")
	s.keys("Enter")
	s.waitFor("manual opens", "page 1/300", "Station Operations Manual")
	out := filepath.Join(dir, "manual.md")
	s.keys("e")
	s.waitFor("export prompt", "export document to")
	s.keys("C-u")
	s.text(out)
	s.keys("Enter")
	s.waitForWithin(3*time.Minute, "export written", "document Markdown written to")
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]bool{}
	for _, m := range manualSection.FindAllStringSubmatch(string(md), -1) {
		sections[m[1]] = true
	}
	for p := 0; p < 300; p++ {
		if want := fmt.Sprintf("%d.%d", p/10+1, p%10+1); !sections[want] {
			t.Errorf("exported Markdown lacks page %d (section %s); %d of 300 sections present", p+1, want, len(sections))
			break
		}
	}

	s.keys("q")
	s.waitFor("exit", "EXIT-0")
	waitFile(t, filepath.Join(dir, "stty"))

	st, err := os.ReadFile(filepath.Join(dir, "stty"))
	if err != nil {
		t.Fatal(err)
	}
	// The terminal is back in cooked mode: line editing and echo restored.
	for _, flag := range []string{" icanon", " echo "} {
		if !strings.Contains(" "+string(st)+" ", flag) {
			t.Errorf("terminal not restored: stty lacks %q:\n%s", flag, st)
		}
	}
	if scr := s.screen(); strings.Contains(scr, "\x1b") {
		t.Errorf("raw escape bytes on screen after quit")
	}
}

func waitFile(t *testing.T, p string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if fi, err := os.Stat(p); err == nil && fi.Size() > 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never written", p)
}

// TestTUI_FirstSIGTERMExitsAndRestoresTerminal: the engine.io client installs
// its own SIGINT/SIGTERM handlers; the TUI must still quit on the first
// SIGTERM and give the terminal back in cooked mode.
func TestTUI_FirstSIGTERMExitsAndRestoresTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end TUI test")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	s := newTmux(t, 80, 24, fmt.Sprintf("%s; echo EXIT-$?; stty -a > %s/stty; sleep 600", bin, dir))
	s.waitFor("office screen", "connected", "alpha")
	out, err := exec.Command("pkill", "-TERM", "-f", "^"+bin+"$").CombinedOutput()
	if err != nil {
		t.Fatalf("pkill: %v %s", err, out)
	}
	s.waitFor("exit after one SIGTERM", "EXIT-")
	waitFile(t, filepath.Join(dir, "stty"))
	st, _ := os.ReadFile(filepath.Join(dir, "stty"))
	if !strings.Contains(string(st), " icanon") || !strings.Contains(string(st), " echo ") {
		t.Errorf("terminal not restored after SIGTERM:\n%s", st)
	}
}

// TestTUI_OpenRealFilesInTmux: `open` converts files written by other tools
// in-process: an XLSX from openpyxl (page per sheet, a squeezed table whose
// cut cell enter shows whole) and a PDF Debian ships (page jumps).
func TestTUI_OpenRealFilesInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end TUI test")
	}
	bin := buildBinary(t)
	dir := t.TempDir()

	xlsx, err := filepath.Abs("../../convert/testdata/openpyxl.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	s := newTmux(t, 60, 20, fmt.Sprintf("%s open %s; echo EXIT-$?; sleep 600", bin, xlsx))
	s.waitFor("xlsx page 1", "page 1/2", "Region", "North")
	if strings.Contains(s.screen(), "2024-03-31") {
		t.Fatalf("the table is not squeezed at 60 columns; the cell check below proves nothing:\n%s", s.screen())
	}
	// The cursor walks to the last column with the widths kept; enter
	// shows its cut cell whole.
	s.keys("l", "l", "l", "l")
	s.waitFor("cursor on the last column", "col 5")
	s.keys("Enter")
	s.waitFor("the last column's cell whole", "2024-03-31")
	s.keys("Escape")
	s.keys(":")
	s.text("2")
	s.keys("Enter")
	s.waitFor("xlsx page 2", "page 2/2", "Author", "openpyxl")
	s.keys("q")
	s.waitFor("exit", "EXIT-0")

	gz := "/usr/share/doc/fontconfig/fontconfig-user.pdf.gz"
	raw, err := exec.Command("gzip", "-dc", gz).Output()
	if err != nil {
		interoptest.Need(t, "Debian's fontconfig user manual (a PDF nobody here made) is missing: "+err.Error())
	}
	pdf := filepath.Join(dir, "fontconfig-user.pdf")
	if err := os.WriteFile(pdf, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	p := newTmux(t, 100, 30, fmt.Sprintf("%s open %s; echo EXIT-$?; sleep 600", bin, pdf))
	p.waitFor("pdf page 1", "page 1/15")
	p.keys(":")
	p.text("3")
	p.keys("Enter")
	p.waitFor("pdf page 3", "Font Names · page 3/15", "canonical font pattern")
	p.keys("q")
	p.waitFor("exit", "EXIT-0")
}

// TestTUI_OpenStdinInTmux: `open -` shows a DPE JSON piped into it; the
// keys still come from the terminal (Bubble Tea opens the TTY when stdin
// is a pipe), so q quits.
func TestTUI_OpenStdinInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end TUI test")
	}
	bin := buildBinary(t)
	doc := filepath.Join(t.TempDir(), "piped.json")
	if err := os.WriteFile(doc, []byte(goodDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newTmux(t, 80, 20, fmt.Sprintf("cat %s | %s open -; echo EXIT-$?; sleep 600", doc, bin))
	s.waitFor("piped document", "World of text.")
	s.keys("q")
	s.waitFor("exit", "EXIT-0")
}

// TestTUI_OpenThatNeverOpenedExitsOne: `open FILE` whose document never
// opened (a damaged PDF: the TUI shows the error screen) exits 1 and says
// the error once on stderr after the screen is gone, as `get FILE` would;
// a script's `dpe-tui open x && …` does not go on.
func TestTUI_OpenThatNeverOpenedExitsOne(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end TUI test")
	}
	bin := buildBinary(t)
	bad := filepath.Join(t.TempDir(), "bad.pdf")
	if err := os.WriteFile(bad, []byte("%PDF-1.7\ngarbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newTmux(t, 200, 24, fmt.Sprintf("%s open %s; echo EXIT-$?; sleep 600", bin, bad))
	s.waitFor("the error screen", "damaged or truncated PDF", "r retry")
	s.keys("q")
	scr := s.waitFor("exit", "EXIT-1")
	if n := strings.Count(scr, "dpe-tui: open "+bad+": damaged or truncated PDF"); n != 1 {
		t.Fatalf("the error is said %d times after the screen, want once:\n%s", n, scr)
	}
}
