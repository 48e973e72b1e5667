package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/ui"
)

// TestUsage_NewUserDefects drives the command line with the values a new
// user tried: each is a usage error (exit 2) in one line saying, in plain
// words, what was wrong, with at most one "(see …)" hint.
func TestUsage_NewUserDefects(t *testing.T) {
	cleanEnv(t)
	good := writeTemp(t, "good.json", goodDoc)
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want []string // substrings of stderr
		not  []string
	}{
		{"open bad images", nil, []string{"open", good, "--images", "bogus"}, []string{"--images must be"}, nil},
		{"open env images", map[string]string{"DPE_TUI_IMAGES": "bogus"}, []string{"open", filepath.Join(t.TempDir(), "missing.json")}, []string{"DPE_TUI_IMAGES"}, nil},
		{"open env mouse", map[string]string{"DPE_TUI_MOUSE": "maybe"}, []string{"open", good}, []string{"DPE_TUI_MOUSE", `want true or false, got "maybe"`}, []string{"strconv"}},
		{"open watch stdin", nil, []string{"open", "-", "--watch"}, []string{`--watch reads a local file again`, `"-" is not a local file`}, nil},
		{"open watch url", nil, []string{"open", "https://example.org/doc.json", "--watch"}, []string{`"https://example.org/doc.json" is not a local file`}, nil},
		{"open mouse value", nil, []string{"open", good, "--mouse=maybe"}, []string{`--mouse: want true or false, got "maybe"`}, []string{"strconv"}},
		{"root mouse value", nil, []string{"--mouse=maybe"}, []string{`--mouse: want true or false`}, []string{"strconv"}},
		{"page abc", nil, []string{"get", good, "--page", "abc"}, []string{`--page: want a whole number, got "abc"`}, []string{"strconv", "invalid argument"}},
		{"completion tcsh", nil, []string{"completion", "tcsh"}, []string{`unknown command "tcsh"`}, nil},
		{"config bogus", nil, []string{"config", "bogus"}, []string{`unknown command "bogus"`}, nil},
		{"help bogus", nil, []string{"help", "bogus"}, []string{`no command "bogus"`}, nil},
		{"office empty", nil, []string{"ls", "computers", "--office", ""}, []string{"--office must not be empty"}, []string{"dial"}},
		{"serve addr", nil, []string{"serve", "--addr", "127.0.0.1:notaport"}, []string{`--addr "127.0.0.1:notaport"`}, []string{"lookup"}},
		{"env url", map[string]string{"DPE_TUI_URL": "nonsense"}, []string{"ls", "computers"}, []string{"DPE_TUI_URL"}, nil},
		{"check ignore", nil, []string{"check", good, "--ignore", "X"}, []string{`no rule "X"`, "check --rules"}, nil},
		{"ls bogus", nil, []string{"ls", "bogus"}, []string{"desktop"}, nil},
		{"file root relative", nil, []string{"ls", "computers", "--allow-file-uri=relative"}, []string{"absolute directory"}, nil},
		{"file root missing", nil, []string{"ls", "computers", "--allow-file-uri=" + filepath.Join(t.TempDir(), "nope")}, []string{"not an existing directory"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, out, errOut := runCLI(t, tc.args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d (stdout %.200q, stderr %q)", code, exitUsage, out, errOut)
			}
			if out != "" {
				t.Errorf("a usage error printed on stdout: %.200q", out)
			}
			if n := strings.Count(strings.TrimSpace(errOut), "\n"); n > 0 {
				t.Errorf("error is not one line: %q", errOut)
			}
			if n := strings.Count(errOut, "(see "); n > 1 {
				t.Errorf("%d hints: %q", n, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(errOut, w) {
					t.Errorf("stderr %q has %q", errOut, w)
				}
			}
		})
	}
}

// TestUsage_GoodValuesStillPass: what the checks above refuse has a
// working neighbour (an existing absolute root, ls with "--", group help).
func TestUsage_GoodValuesStillPass(t *testing.T) {
	cleanEnv(t)
	t.Setenv("NO_COLOR", "1")
	for _, args := range [][]string{
		{"ls", "--allow-file-uri=" + t.TempDir(), "--", "computers"},
		{"completion"},
		{"config"},
		{"help", "ls"},
		{"completion", "bash"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != exitOK || out == "" {
			t.Errorf("%q: exit %d, stdout %.100q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestHelp_MaxAckDefaultInUnits: the default is shown as it is written.
func TestHelp_MaxAckDefaultInUnits(t *testing.T) {
	cleanEnv(t)
	t.Setenv("NO_COLOR", "1")
	_, out, _ := runCLI(t, "ls", "--help")
	if !regexp.MustCompile(`--max-ack .*\(64MiB\)`).MatchString(out) || strings.Contains(out, "67108864") {
		t.Errorf("--max-ack default not shown as 64MiB:\n%s", out)
	}
}

// TestCompletion_Values: __complete offers ls's kinds and the values of
// the enumerated flags, and --profile the names in the config file.
func TestCompletion_Values(t *testing.T) {
	cleanEnv(t)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("[profiles.work]\nurl = \"http://127.0.0.1:1\"\n[profiles.home]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"ls", ""}, []string{"computers", "servers", "resources", "desktop", "skills"}},
		{[]string{"get", "x", "--format", ""}, []string{"md", "text", "json"}},
		{[]string{"--theme", ""}, []string{"dark", "light", "notty"}},
		{[]string{"open", "x", "--images", ""}, []string{"kitty", "sixel", "blocks", "off", "auto"}},
		{[]string{"serve", "--log-format", ""}, []string{"text", "json"}},
		{[]string{"serve", "--log-level", ""}, []string{"debug", "info", "warn", "error"}},
		{[]string{"ls", "computers", "--config", cfg, "--profile", ""}, []string{"home", "work"}},
	}
	for _, tc := range cases {
		code, out, errOut := runCLI(t, append([]string{"__complete"}, tc.args...)...)
		if code != exitOK {
			t.Fatalf("%q: exit %d, stderr %q", tc.args, code, errOut)
		}
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if l != "" && !strings.HasPrefix(l, ":") {
				got = append(got, strings.SplitN(l, "\t", 2)[0])
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q: completions %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestLs_EmptyListingHasNoHeader: when nothing is listed (exit 6) stdout
// is empty, with no header row over nothing.
func TestLs_EmptyListingHasNoHeader(t *testing.T) {
	common, _ := everythingConfigs(t, nil)
	code, out, errOut := runCLI(t, "ls", "resources", "--mcp-config", common)
	if code != exitNothingListed || out != "" {
		t.Fatalf("exit %d (want %d), stdout %q, stderr %q", code, exitNothingListed, out, errOut)
	}
}

// TestLs_JSONProblemsAlwaysPresent: every --json resource line has
// "problems", [] when there are none, as keywords is.
func TestLs_JSONProblemsAlwaysPresent(t *testing.T) {
	st := startStack(t, "http")
	code, out, errOut := runCLI(t, "ls", "resources", "--url="+st.URL, "--computer", "alpha", "--server", "notes", "--limit-pages", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var row map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		if p, ok := row["problems"]; !ok || string(p) != "[]" {
			t.Fatalf("problems is %q in %s", p, l)
		}
	}
}

// closerAgent is an agent that records Close; its other methods are never
// called by closeCurrentAgent.
type closerAgent struct {
	ui.Agent
	closed int
}

func (c *closerAgent) Close() error { c.closed++; return nil }

func (c *closerAgent) State() client.StateEvent { return client.StateEvent{} }

// TestTUI_ClosesTheAgentItEndsOn: the final model's agent (the one a P
// switch left in use) is closed when the TUI returns.
func TestTUI_ClosesTheAgentItEndsOn(t *testing.T) {
	ag := &closerAgent{}
	closeCurrentAgent(ui.New(ui.Options{Agent: ag}))
	if ag.closed != 1 {
		t.Fatalf("the agent in use at exit was closed %d times, want 1", ag.closed)
	}
	closeCurrentAgent(ui.New(ui.Options{})) // no agent: nothing to close
	closeCurrentAgent(nil)
}

// TestServe_LogKeysOnce: each log line of serve names each key once, the
// most specific value kept (component=smcp-server, not also =server).
func TestServe_LogKeysOnce(t *testing.T) {
	cleanEnv(t)
	logFile := filepath.Join(t.TempDir(), "serve.log")
	url := startServe(t, "--log", logFile)
	if code, _, errOut := runCLI(t, "ls", "computers", "--url", url); code != 0 {
		t.Fatalf("ls: exit %d %q", code, errOut)
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	key := regexp.MustCompile(`(?:^| )([A-Za-z_.]+)=`)
	var sawServer, sawComputer bool
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		seen := map[string]bool{}
		for _, m := range key.FindAllStringSubmatch(l, -1) {
			if seen[m[1]] {
				t.Errorf("key %s twice in %q", m[1], l)
			}
			seen[m[1]] = true
		}
		sawServer = sawServer || strings.Contains(l, "component=smcp-server")
		sawComputer = sawComputer || strings.Contains(l, "computer=alpha")
	}
	if !sawServer || !sawComputer {
		t.Errorf("the log lacks the server's or alpha's lines:\n%s", data)
	}
}

// TestConvert_OutDirectory: -o DIR writes NAME.dpe.json inside it; from
// standard input (no name) it is a usage error; nothing is left in "/".
func TestConvert_OutDirectory(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "convert", convertFixture("openpyxl.xlsx"), "-o", dir)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %.100q, stderr %q", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "openpyxl.dpe.json"))
	if err != nil || !json.Valid(data) {
		t.Fatalf("no DPE JSON in the directory: %v", err)
	}
	code, _, errOut = runStdin(t, goodDoc, "convert", "-", "-o", dir)
	if code != exitUsage || !strings.Contains(errOut, "is a directory") {
		t.Errorf("stdin to a directory: exit %d, %q", code, errOut)
	}
}

// TestStdin_HintOnTerminal: "get -" with a terminal on stdin says what it
// waits for, on stderr; ctrl+d ends the (empty) input.
func TestStdin_HintOnTerminal(t *testing.T) {
	cleanEnv(t)
	ptmx, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	go func() { _, _ = ptmx.Write([]byte{4}) }() // ctrl+d: end of input
	var out, errb strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := runIO(ctx, []string{"get", "-"}, tty, &out, &errb)
	if code != exitRuntime || !strings.HasPrefix(errb.String(), "dpe-tui: reading a document from stdin; end with ctrl+d\n") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	// Piped, there is no hint.
	if _, _, errOut := runStdin(t, goodDoc, "get", "-"); strings.Contains(errOut, "reading") {
		t.Errorf("hint on a pipe: %q", errOut)
	}
}

// TestNoColor_NoEscapesOnATerminal: with NO_COLOR (or --no-color) the real
// command on a terminal writes no escape at all: no bold help headers, and
// no background-colour query when a command fails.
func TestNoColor_NoEscapesOnATerminal(t *testing.T) {
	cleanEnv(t)
	for _, tc := range []struct {
		env  string
		args []string
	}{
		{"NO_COLOR=1", []string{"--help"}},
		{"NO_COLOR=1", []string{"ls", "--help"}},
		{"NO_COLOR=", []string{"ls", "bogus", "--no-color"}},
		{"NO_COLOR=1", []string{"get", filepath.Join(t.TempDir(), "missing.json")}},
	} {
		ptmx, tty, err := openPTY()
		if err != nil {
			t.Skipf("no pty: %v", err)
		}
		cmd := exec.Command(os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), "DPE_TUI_TEST_MAIN=1", "TERM=xterm-256color", "COLORTERM=truecolor", tc.env)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tty.Close()
		got, _ := io.ReadAll(ptmx) // EIO once the child is gone
		ptmx.Close()
		_ = cmd.Wait()
		if bytes.ContainsRune(got, 0x1b) || len(got) == 0 {
			t.Errorf("%s %q wrote escapes (or nothing): %q", tc.env, tc.args, got[:min(300, len(got))])
		}
	}
}
