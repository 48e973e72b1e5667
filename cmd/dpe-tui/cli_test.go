package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/stack"
)

var updateHelp = flag.Bool("update-help", false, "rewrite the golden files under testdata/help/")

// goodDoc conforms (check exits 0); badDoc has violations (check exits 4).
const (
	goodDoc = `{"doc_ref":"dpe://io.example/doc","title":"Good","page_count":1,"keywords":[],"file_type":"md","pages":[{"page_index":0,"title":"One","elements":[{"element_id":"e1","category":"Title","text":"Hello"},{"element_id":"e2","category":"NarrativeText","text":"World of text."}]}]}`
	badDoc  = `{"doc_ref":"d","title":"bad","page_count":0,"keywords":"x","pages":[{"page_index":0,"elements":[{"element_id":"a","category":"Title","text":"t"}]}]}`
)

// runStdin runs the command in-process with stdin and returns exit code,
// stdout and stderr.
func runStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := runIO(ctx, args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// cleanEnv unsets every variable that would change a command's flags,
// and points the config file at a private empty directory.
func cleanEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{"DPE_TUI_URL", "DPE_TUI_OFFICE", "DPE_TUI_NAME", "DPE_TUI_API_KEY", "DPE_TUI_TIMEOUT",
		"DPE_TUI_PATH", "DPE_TUI_A2C_VERSION", "DPE_TUI_LOG", "DPE_TUI_MAX_ACK", "DPE_TUI_THEME", "DPE_TUI_PROFILE",
		"DPE_TUI_CONFIG", "DPE_TUI_IMAGES", "DPE_TUI_MOUSE", "DPE_TUI_LOG_FORMAT", "DPE_TUI_LOG_LEVEL", "COLUMNS"} {
		t.Setenv(k, "")
	}
	// Set and empty, DPE_TUI_PROFILE says "no profile": unset it (t.Setenv
	// restores it afterwards).
	os.Unsetenv("DPE_TUI_PROFILE")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

// TestHelp_Goldens: the styled help of the root and of every command, on
// stdout, exit 0, at the fixed width TestMain sets and without colour.
func TestHelp_Goldens(t *testing.T) {
	cleanEnv(t)
	t.Setenv("NO_COLOR", "1")
	cmds := [][]string{{}, {"open"}, {"serve"}, {"computer"}, {"ls"}, {"get"}, {"check"}, {"find"}, {"mcp"},
		{"hash"}, {"diff"}, {"convert"}, {"config"}, {"config", "path"}, {"config", "show"}, {"config", "edit"}, {"version"}}
	for _, c := range cmds {
		name := strings.Join(append([]string{"dpe-tui"}, c...), "_")
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append(c, "--help")...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if strings.ContainsRune(out, 0x1b) {
				t.Errorf("help has escape sequences with NO_COLOR")
			}
			if !strings.Contains(out, "EXAMPLES") {
				t.Errorf("help has no examples:\n%s", out)
			}
			golden := filepath.Join("testdata", "help", name+".golden")
			if *updateHelp {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update-help)", err)
			}
			if out != string(want) {
				t.Errorf("help differs from %s (run with -update-help):\n%s", golden, out)
			}
		})
	}
	// `help ls` and `ls -h` are the same text as `ls --help`.
	_, a, _ := runCLI(t, "ls", "--help")
	_, b, _ := runCLI(t, "help", "ls")
	_, c, _ := runCLI(t, "ls", "-h")
	if a != b || a != c {
		t.Errorf("help ls / ls -h differ from ls --help")
	}
}

// TestHelp_EveryFlagNamesItsEnv: every global flag with a variable says
// so in its help line.
func TestHelp_EveryFlagNamesItsEnv(t *testing.T) {
	cleanEnv(t)
	_, out, _ := runCLI(t, "ls", "--help")
	for _, env := range []string{"DPE_TUI_URL", "DPE_TUI_OFFICE", "DPE_TUI_NAME", "DPE_TUI_API_KEY", "DPE_TUI_TIMEOUT",
		"DPE_TUI_PATH", "DPE_TUI_A2C_VERSION", "DPE_TUI_LOG", "DPE_TUI_MAX_ACK", "DPE_TUI_THEME", "DPE_TUI_PROFILE", "DPE_TUI_CONFIG"} {
		if !strings.Contains(out, "(env "+env+")") {
			t.Errorf("ls --help does not name %s", env)
		}
	}
	_, out, _ = runCLI(t, "--help")
	for _, s := range []string{"(env DPE_TUI_IMAGES)", "4  check: the document has conformance violations", "5  diff"} {
		if !strings.Contains(out, s) {
			t.Errorf("root help lacks %q", s)
		}
	}
}

func TestVersion_Shape(t *testing.T) {
	cleanEnv(t)
	shape := regexp.MustCompile(`^dpe-tui \S+( \(.+\))?\nA2C-SMCP 0\.2\.x, 0\.3\.x and 0\.4\.x \(0\.2\.0 unless the server names another\)\nA2C-SMCP 0\.5\.0 \(in development\) only with --a2c-version 0\.5\.0\n$`)
	for _, args := range [][]string{{"--version"}, {"version"}, {"-v"}} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 || errOut != "" || !shape.MatchString(out) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
		// A local build names its revision or says why it has none,
		// never a bare "(devel)".
		first, _, _ := strings.Cut(out, "\n")
		if strings.Contains(first, "(devel)") && !strings.Contains(first, "no VCS revision recorded") && !regexp.MustCompile(`\([0-9a-f]{12}`).MatchString(first) {
			t.Errorf("%v: %q names no revision and no reason", args, first)
		}
	}
}

// The bash script needs the bash-completion package: completion's help,
// bash's line in it and the README say so.
func TestCompletion_HelpSaysBashNeedsBashCompletion(t *testing.T) {
	cleanEnv(t)
	for _, args := range [][]string{{"completion", "--help"}, {"completion", "bash", "--help"}} {
		code, out, errOut := runCLI(t, append(args, "--no-color")...)
		if code != 0 || !strings.Contains(out, "bash-completion package") {
			t.Errorf("%v: exit %d, no word of bash-completion:\n%s%s", args, code, out, errOut)
		}
		if strings.Contains(out, "--url") {
			t.Errorf("%v lists --url, which does nothing there", args)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "bash needs the bash-completion package") {
		t.Error("the README does not say bash completion needs the bash-completion package")
	}
}

func TestCompletion_BashIsValid(t *testing.T) {
	cleanEnv(t)
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, errOut := runCLI(t, "completion", sh)
		if code != 0 || len(out) < 500 {
			t.Fatalf("completion %s: exit %d, %d bytes, %q", sh, code, len(out), errOut)
		}
		if sh != "bash" {
			continue
		}
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Skip("no bash")
		}
		p := writeTemp(t, "dpe-tui.bash", out)
		if b, err := exec.Command(bash, "-n", p).CombinedOutput(); err != nil {
			t.Errorf("bash -n: %v\n%s", err, b)
		}
	}
}

// TestExitCodes_Contract: 0 ok, 1 runtime, 2 usage (flags, values,
// environment, config), 3 protocol, 4 violations, through run().
func TestExitCodes_Contract(t *testing.T) {
	cleanEnv(t)
	good := writeTemp(t, "good.json", goodDoc)
	bad := writeTemp(t, "bad.json", badDoc)
	st := startStack(t, "http")
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want int
	}{
		{"check ok", nil, []string{"check", good}, exitOK},
		{"get ok", nil, []string{"get", good, "--format", "text"}, exitOK},
		{"missing file", nil, []string{"get", filepath.Join(t.TempDir(), "nope.json")}, exitRuntime},
		{"unknown flag", nil, []string{"ls", "computers", "--nope"}, exitUsage},
		{"bad timeout", nil, []string{"ls", "computers", "--timeout", "soon"}, exitUsage},
		{"url nonsense", nil, []string{"--url", "nonsense", "ls", "computers"}, exitUsage},
		{"url scheme", nil, []string{"ls", "computers", "--url", "ftp://h/"}, exitUsage},
		{"bad env timeout", map[string]string{"DPE_TUI_TIMEOUT": "later"}, []string{"ls", "computers"}, exitUsage},
		{"bad env max-ack", map[string]string{"DPE_TUI_MAX_ACK": "lots"}, []string{"get", good}, exitUsage},
		{"page 0", nil, []string{"get", good, "--page", "0"}, exitUsage},
		{"bad theme", nil, []string{"get", good, "--theme", "pink"}, exitUsage},
		{"bad images", nil, []string{"open", good, "--images", "ascii"}, exitUsage},
		{"too many args", nil, []string{"get", good, good}, exitUsage},
		{"unknown command", nil, []string{"frobnicate"}, exitUsage},
		{"protocol", nil, []string{"get", "dpe://org.nowhere.docs/x", "--url=" + st.URL}, exitProtocol},
		{"violations", nil, []string{"check", bad}, exitViolations},
		{"violations json", nil, []string{"check", bad, "--json"}, exitViolations},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, _, errOut := runCLI(t, tc.args...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.want, errOut)
			}
			if code != exitOK && strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("error is not one line: %q", errOut)
			}
			if code == exitUsage && !strings.Contains(errOut, "--help')") {
				t.Errorf("usage error does not say where the usage is: %q", errOut)
			}
		})
	}
	if exitViolations != 4 || exitNothingListed == exitViolations || exitNothingListed == exitDiffer {
		t.Errorf("exit codes collide: violations %d, nothing listed %d, differ %d", exitViolations, exitNothingListed, exitDiffer)
	}
}

// TestGlobalFlags_BeforeOrAfter: a global flag works on either side of the
// subcommand.
func TestGlobalFlags_BeforeOrAfter(t *testing.T) {
	cleanEnv(t)
	st := startStack(t, "http")
	for _, args := range [][]string{
		{"--url", st.URL, "ls", "servers", "--computer", "beta"},
		{"ls", "servers", "--computer", "beta", "--url", st.URL},
		{"--url=" + st.URL, "--office", st.Office, "ls", "--computer", "beta", "servers"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "beta") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	// ls --json: typed lines in a fixed field order, keywords never null.
	code, out, errOut := runCLI(t, "ls", "resources", "--url", st.URL, "--computer", "alpha", "--server", "library", "--json")
	if code != 0 {
		t.Fatalf("ls --json: exit %d %q", code, errOut)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, `{"computer":"alpha","server":"library","key":"library","uri":"dpe://`) || strings.Contains(l, `"keywords":null`) ||
			!strings.Contains(l, `"keywords":[`) {
			t.Fatalf("ls --json line: %s", l)
		}
	}
	// --url repeated and comma-separated: the first reachable one serves
	// (an unreachable first one fails over).
	code, out, errOut = runCLI(t, "ls", "computers", "--timeout", "20s", "--url", "http://127.0.0.1:1,"+st.URL)
	if code != 0 || !strings.Contains(out, "alpha") {
		t.Errorf("failover list: exit %d\n%s%s", code, out, errOut)
	}
}

// TestStdin_Dash: `-` reads a DPE JSON from stdin for get, check, convert
// and open; a missing or malformed one fails in one line before any TUI.
func TestStdin_Dash(t *testing.T) {
	cleanEnv(t)
	code, out, errOut := runStdin(t, goodDoc, "get", "-", "--format", "text")
	if code != 0 || !strings.Contains(out, "World of text.") {
		t.Errorf("get -: exit %d, %q %q", code, out, errOut)
	}
	code, out, errOut = runStdin(t, goodDoc, "get", "-", "--format", "json")
	if code != 0 || !json.Valid([]byte(out)) || !strings.Contains(out, `"keywords":[]`) {
		t.Errorf("get - --format json: exit %d, %q %q", code, out, errOut)
	}
	code, out, errOut = runStdin(t, goodDoc, "check", "-")
	if code != 0 || !strings.Contains(out, "0 violation(s)") {
		t.Errorf("check - (good): exit %d, %q %q", code, out, errOut)
	}
	code, out, errOut = runStdin(t, badDoc, "check", "-", "--json")
	if code != exitViolations {
		t.Fatalf("check - (bad): exit %d, %q", code, errOut)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var f struct {
			Rule, Severity, Path string
		}
		if err := json.Unmarshal([]byte(l), &f); err != nil || !strings.HasPrefix(f.Path, "$") || f.Rule == "" {
			t.Errorf("check --json line %q: %v %+v", l, err, f)
		}
	}
	// convert -: an HTML file on stdin becomes DPE JSON that check accepts.
	code, out, errOut = runStdin(t, "<!DOCTYPE html><html><head><title>T</title></head><body><h1>Title</h1><p>Some text.</p></body></html>", "convert", "-")
	if code != 0 || !json.Valid([]byte(out)) {
		t.Fatalf("convert -: exit %d, %q", code, errOut)
	}
	if code, _, errOut = runStdin(t, out, "check", "-"); code != 0 {
		t.Errorf("convert - | check -: exit %d, %q", code, errOut)
	}
	// open -: nothing or garbage on stdin is one line naming stdin, exit 1,
	// and no TUI (the test would hang on one).
	for _, in := range []string{"", "{not json", `{"pages":"x"}`} {
		code, out, errOut = runStdin(t, in, "open", "-")
		if code != exitRuntime || out != "" || !strings.HasPrefix(errOut, "dpe-tui: stdin: ") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("open - with %q: exit %d, %q %q", in, code, out, errOut)
		}
	}
	// A valid document gets past the check: stdinDocument hands the TUI a
	// copy that decodes.
	path, remove, err := stdinDocument(context.Background(), strings.NewReader(goodDoc), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	remove()
	if string(b) != goodDoc {
		t.Errorf("stdin copy differs")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("stdin copy left behind: %v", err)
	}
}

// TestGetMarkdown_PipedIsPlain: get --format md into a pipe is the plain
// Markdown, whatever the theme.
func TestGetMarkdown_PipedIsPlain(t *testing.T) {
	cleanEnv(t)
	good := writeTemp(t, "good.json", goodDoc)
	for _, theme := range []string{"dark", "light", "notty", ""} {
		code, out, errOut := runCLI(t, "get", good, "--theme", theme)
		if code != 0 || strings.ContainsRune(out, 0x1b) || !strings.Contains(out, "# ") {
			t.Errorf("theme %q: exit %d %q %q", theme, code, out, errOut)
		}
	}
}

// TestRenderMarkdown_Terminal: on a terminal (a pty) Markdown is rendered
// by Glamour with SGR styling only (no OSC 8 links); NO_COLOR keeps it
// plain.
func TestRenderMarkdown_Terminal(t *testing.T) {
	ptmx, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	md := "# Heading\n\nSee [the site](https://example.org/x).\n"
	chunks := make(chan string, 64)
	go func() {
		defer close(chunks)
		buf := make([]byte, 1<<16)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				chunks <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	const sentinel = "END-OF-OUTPUT"
	read := func(noColor bool) string {
		if err := renderMarkdown(tty, "dark", noColor, func(w io.Writer) error {
			_, err := io.WriteString(w, md)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tty, sentinel+"\n"); err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		deadline := time.After(testbudget.Left(t, 10*time.Second))
		for !strings.Contains(got.String(), sentinel) {
			select {
			case c, ok := <-chunks:
				if !ok {
					t.Fatal("terminal closed")
				}
				got.WriteString(c)
			case <-deadline:
				t.Fatalf("no sentinel from the terminal: %q", got.String())
			}
		}
		out, _, _ := strings.Cut(got.String(), sentinel)
		return out
	}
	styled := read(false)
	if !strings.Contains(styled, "\x1b[") || strings.Contains(styled, "\x1b]8;") || !strings.Contains(styled, "Heading") {
		t.Errorf("rendered on a terminal: %q", styled)
	}
	if plain := read(true); strings.Contains(plain, "\x1b") || !strings.Contains(plain, "# Heading") {
		t.Errorf("--no-color on a terminal: %q", plain)
	}
}

// writeConfig writes a private config file and returns its path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConfig_Precedence: flags beat env, env beats the profile, the
// profile beats the defaults; seen through the office ls joins.
func TestConfig_Precedence(t *testing.T) {
	cleanEnv(t)
	st := startStack(t, "http")
	cfg := writeConfig(t, "[profiles.p]\nurl = \""+st.URL+"\"\noffice = \"from-profile\"\ntimeout = \"20s\"\n")
	t.Setenv("DPE_TUI_CONFIG", cfg)

	// The profile's office (and URL) apply.
	code, _, errOut := runCLI(t, "--profile", "p", "ls", "computers")
	if code == 0 || !strings.Contains(errOut, "from-profile") {
		t.Errorf("profile: exit %d, %q", code, errOut)
	}
	// The environment beats the profile.
	t.Setenv("DPE_TUI_OFFICE", "from-env")
	code, _, errOut = runCLI(t, "--profile", "p", "ls", "computers")
	if code == 0 || !strings.Contains(errOut, "from-env") {
		t.Errorf("env over profile: exit %d, %q", code, errOut)
	}
	// A flag beats both.
	code, out, errOut := runCLI(t, "--profile", "p", "ls", "computers", "--office", st.Office)
	if code != 0 || !strings.Contains(out, "alpha") {
		t.Errorf("flag over env: exit %d, %q %q", code, out, errOut)
	}
	// DPE_TUI_PROFILE picks the profile too.
	t.Setenv("DPE_TUI_OFFICE", "")
	t.Setenv("DPE_TUI_PROFILE", "p")
	code, _, errOut = runCLI(t, "ls", "computers")
	if code == 0 || !strings.Contains(errOut, "from-profile") {
		t.Errorf("DPE_TUI_PROFILE: exit %d, %q", code, errOut)
	}
	// An unknown profile is a usage error listing the known ones.
	code, _, errOut = runCLI(t, "--profile", "nope", "ls", "computers")
	if code != exitUsage || !strings.Contains(errOut, "known: p") {
		t.Errorf("unknown profile: exit %d, %q", code, errOut)
	}
}

// TestConfig_APIKeyCmdReachesTheServer: a profile's api_key_cmd is the key
// the agent sends; without it the server refuses.
func TestConfig_APIKeyCmdReachesTheServer(t *testing.T) {
	cleanEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := stack.Start(ctx, stack.Options{APIKey: "s3cret-key"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := writeConfig(t, "[profiles.k]\nurl = \""+st.URL+"\"\napi_key_cmd = \"printf s3cret-key\"\n"+
		"[profiles.wrong]\nurl = \""+st.URL+"\"\napi_key_cmd = \"printf nope\"\n")
	code, out, errOut := runCLI(t, "--config", cfg, "--profile", "k", "ls", "computers", "--timeout", "10s")
	if code != 0 || !strings.Contains(out, "alpha") {
		t.Fatalf("api_key_cmd: exit %d, %q %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "--config", cfg, "--profile", "wrong", "ls", "computers", "--timeout", "10s")
	if code == 0 || strings.Contains(errOut, "nope") || strings.Contains(errOut, "s3cret") {
		t.Errorf("wrong key: exit %d, %q", code, errOut)
	}
	// --api-key on the command line beats the profile's command.
	code, _, errOut = runCLI(t, "--config", cfg, "--profile", "wrong", "ls", "computers", "--timeout", "10s", "--api-key", "s3cret-key")
	if code != 0 {
		t.Errorf("--api-key over api_key_cmd: exit %d, %q", code, errOut)
	}
}

// TestConfig_MalformedIsOneUsageLine and the config subcommands.
func TestConfig_Commands(t *testing.T) {
	cleanEnv(t)
	bad := writeConfig(t, "[profiles.x]\nurl = \"http://127.0.0.1:1\"\ntimeout = \"soon\"\n")
	code, _, errOut := runCLI(t, "--config", bad, "ls", "computers")
	if code != exitUsage || !strings.Contains(errOut, bad+":3: key profiles.x.timeout") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("malformed config: exit %d, %q", code, errOut)
	}
	code, out, _ := runCLI(t, "--config", bad, "config", "path")
	if code != 0 || strings.TrimSpace(out) != bad {
		t.Errorf("config path: exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "config", "path")
	if want, _ := filepath.Abs(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "dpe-tui", "config.toml")); code != 0 || strings.TrimSpace(out) != want {
		t.Errorf("config path (default): exit %d, %q, want %q", code, out, want)
	}
	secret := writeConfig(t, "default = \"s\"\n[profiles.s]\nurl = \"http://127.0.0.1:1\"\napi_key = \"hunter2\"\n")
	code, out, errOut = runCLI(t, "--config", secret, "config", "show")
	if code != 0 || strings.Contains(out, "hunter2") || !strings.Contains(out, "****") {
		t.Errorf("config show: exit %d, %q %q", code, out, errOut)
	}
	// config edit: $EDITOR gets the path; the directory is created.
	dir := filepath.Join(t.TempDir(), "new", "dir")
	target := filepath.Join(dir, "config.toml")
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", `sh -c 'printf "[profiles.e]\noffice = \"o\"\n" > "$1"' ed`)
	code, _, errOut = runCLI(t, "--config", target, "config", "edit")
	if code != 0 {
		t.Fatalf("config edit: exit %d, %q", code, errOut)
	}
	code, out, _ = runCLI(t, "--config", target, "config", "show")
	if code != 0 || !strings.Contains(out, "[profiles.e]") {
		t.Errorf("after edit: exit %d, %q", code, out)
	}
	// An edit that breaks the file says so, and edit still opens it.
	t.Setenv("EDITOR", `sh -c 'printf "[profiles.e]\nmouse = 3\n" > "$1"' ed`)
	code, _, errOut = runCLI(t, "--config", target, "config", "edit")
	if code != exitUsage || !strings.Contains(errOut, "profiles.e.mouse") {
		t.Errorf("edit to a malformed file: exit %d, %q", code, errOut)
	}
	t.Setenv("EDITOR", "true")
	if code, _, errOut = runCLI(t, "--config", target, "config", "edit"); code != exitUsage {
		t.Errorf("edit of a malformed file: exit %d, %q", code, errOut)
	}
}

// TestServe_LogFormatJSON: --log-format json makes every log line a JSON
// object (slog's JSON handler), here into --log FILE.
func TestServe_LogFormatJSON(t *testing.T) {
	cleanEnv(t)
	logFile := filepath.Join(t.TempDir(), "serve.log")
	url := startServe(t, "--log-format", "json", "--log", logFile, "--log-level", "debug")
	if code, _, errOut := runCLI(t, "ls", "computers", "--url", url); code != 0 {
		t.Fatalf("ls: exit %d %q", code, errOut)
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	complete, _ := bytes.CutSuffix(data[:bytes.LastIndexByte(data, '\n')+1], []byte("\n"))
	lines := bytes.Split(complete, []byte("\n"))
	if len(lines) < 2 {
		t.Fatalf("log has %d line(s): %q", len(lines), data)
	}
	for _, l := range lines {
		var rec struct{ Time, Level, Msg string }
		if err := json.Unmarshal(l, &rec); err != nil || rec.Level == "" || rec.Msg == "" {
			t.Fatalf("not a JSON log record: %q (%v)", l, err)
		}
	}
	for _, bad := range [][]string{{"--log-format", "xml"}, {"--log-level", "loud"}} {
		code, _, errOut := runCLI(t, append([]string{"serve", "--addr", "127.0.0.1:0"}, bad...)...)
		if code != exitUsage || !strings.Contains(errOut, bad[0]) {
			t.Errorf("serve %v: exit %d %q", bad, code, errOut)
		}
	}
}

// TestLogger_TerminalIsCharmLog: on a terminal, serve's text log goes
// through charm log (level word, styled); piped it is slog's key=value.
func TestLogger_TerminalIsCharmLog(t *testing.T) {
	ptmx, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	lf := logFlags{Format: "text", Level: "info"}
	log, closeLog, err := lf.logger("", tty, false)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	log.Info("hello from serve", "k", "v")
	got := make([]byte, 4096)
	n, err := ptmx.Read(got)
	if err != nil {
		t.Fatal(err)
	}
	s := string(got[:n])
	if !strings.Contains(s, "INFO") || !strings.Contains(s, "hello from serve") || strings.Contains(s, "level=INFO") {
		t.Errorf("terminal log line: %q", s)
	}
	var buf bytes.Buffer
	log, _, _ = lf.logger("", &buf, false)
	log.Info("hello from serve", "k", "v")
	if !strings.Contains(buf.String(), `level=INFO msg="hello from serve" k=v`) {
		t.Errorf("piped log line: %q", buf.String())
	}
}

// TestProfileSwitch_ConnectsToWhatThePickerShows: the globals for a
// profile the TUI switches to (P) connect where that profile says (its
// URL, office, agent name and key, else the defaults), never where the
// command line's --url/--name/--api-key said; the other flags still beat
// the profile.
func TestProfileSwitch_ConnectsToWhatThePickerShows(t *testing.T) {
	cleanEnv(t)
	cfg := writeConfig(t, "default = \"a\"\n[profiles.a]\nurl = \"http://127.0.0.1:1\"\noffice = \"oa\"\n"+
		"[profiles.b]\nurl = [\"http://127.0.0.1:2\", \"http://127.0.0.1:3\"]\noffice = \"ob\"\nname = \"nb\"\ntimeout = \"7s\"\nimages = \"off\"\n")
	a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	root := a.rootCmd()
	root.SetArgs([]string{"--config", cfg, "--name", "from-flag", "ls", "computers"})
	ls, _, err := root.Find([]string{"ls"})
	if err != nil {
		t.Fatal(err)
	}
	ls.RunE = func(cmd *cobra.Command, _ []string) error { return nil } // stop before dialling
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a.prof == nil || a.prof.name != "a" || a.g.Office != "oa" || a.g.Name != "from-flag" || a.g.URL != "http://127.0.0.1:1" {
		t.Fatalf("default profile: %+v %q %q %q", a.prof, a.g.Office, a.g.Name, a.g.URL)
	}
	g, tf, err := a.prof.profileGlobals("b")
	if err != nil {
		t.Fatal(err)
	}
	if g.Office != "ob" || g.Name != "nb" || g.URL != "http://127.0.0.1:2" || len(g.URLs) != 2 ||
		time.Duration(g.Timeout) != 7*time.Second || tf.Images != "off" {
		t.Errorf("switched to b: office %q name %q url %q urls %v timeout %s images %q", g.Office, g.Name, g.URL, g.URLs, time.Duration(g.Timeout), tf.Images)
	}
	if _, _, err := a.prof.profileGlobals("nope"); err == nil {
		t.Error("switch to an unknown profile succeeded")
	}
}

// TestHelp_NoColorFlag: help on a terminal is styled, and --no-color
// turns that off too (help is printed before flags are parsed).
func TestHelp_NoColorFlag(t *testing.T) {
	cleanEnv(t)
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("COLORTERM", "truecolor")
	ptmx, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	chunks := make(chan []byte, 256)
	go func() {
		for {
			buf := make([]byte, 1<<16)
			n, err := ptmx.Read(buf)
			if n > 0 {
				chunks <- buf[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	help := func(args ...string) string {
		var errb bytes.Buffer
		if code := runIO(context.Background(), args, strings.NewReader(""), tty, &errb); code != 0 {
			t.Fatalf("%v: exit %d %q", args, code, errb.String())
		}
		fmt.Fprintln(tty, "END-OF-HELP")
		var got []byte
		deadline := time.After(testbudget.Left(t, 10*time.Second))
		for !bytes.Contains(got, []byte("END-OF-HELP")) {
			select {
			case c := <-chunks:
				got = append(got, c...)
			case <-deadline:
				t.Fatalf("no end of help: %q", got)
			}
		}
		return string(got)
	}
	if styled := help("ls", "--help"); !strings.Contains(styled, "\x1b[") {
		t.Errorf("help on a terminal is not styled")
	}
	if plain := help("ls", "--help", "--no-color"); strings.Contains(plain, "\x1b[") || !strings.Contains(plain, "USAGE") {
		t.Errorf("--no-color help on a terminal: %q", plain[:min(200, len(plain))])
	}
}

// open and mcp list their own flags first and only the root flags that
// do something there; the root's help still lists every flag.
func TestHelp_ScopedCommandsListOnlyFlagsThatApply(t *testing.T) {
	cleanEnv(t)
	flagRe := regexp.MustCompile(`(?m)^\s+(?:-\w )?--([a-z0-9-]+)`)
	flags := func(args ...string) []string {
		code, out, errOut := runCLI(t, append(args, "--no-color")...)
		if code != 0 {
			t.Fatalf("%v: exit %d, %s", args, code, errOut)
		}
		_, after, _ := strings.Cut(out, "FLAGS")
		var names []string
		for _, m := range flagRe.FindAllStringSubmatch(after, -1) {
			names = append(names, m[1])
		}
		return names
	}
	network := []string{"url", "office", "api-key", "a2c-version", "max-ack", "name", "path", "mcp-config", "allow-file-uri"}
	for _, tc := range []struct {
		cmd, first string
		want, no   []string
	}{
		{"open", "mouse", []string{"theme", "no-color", "config"}, append([]string{"timeout", "docs"}, network...)},
		{"mcp", "docs", []string{"http", "config", "profile"}, append([]string{"timeout", "insecure"}, network...)},
		// convert reads one file: its own --timeout, no server, no TUI.
		{"convert", "out", []string{"from", "timeout", "no-color", "config", "log"}, append([]string{"docs", "insecure", "theme"}, network...)},
	} {
		got := flags(tc.cmd, "--help")
		if len(got) == 0 || got[0] != tc.first {
			t.Errorf("%s --help: flags %v, want its own --%s first", tc.cmd, got, tc.first)
		}
		for _, no := range tc.no {
			if slices.Contains(got, no) {
				t.Errorf("%s --help lists --%s, which does nothing there: %v", tc.cmd, no, got)
			}
		}
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s --help lost --%s: %v", tc.cmd, w, got)
			}
		}
	}
	if root := flags("--help"); !slices.Contains(root, "url") || !slices.Contains(root, "office") {
		t.Errorf("the root's help lost the network flags after a scoped help: %v", root)
	}
}

// TestHelp_ListsMan: `man` is a command like the others, so the root's
// help names it, and its page goes to the command's stdout.
func TestHelp_ListsMan(t *testing.T) {
	cleanEnv(t)
	code, out, errOut := runCLI(t, "--help", "--no-color")
	if code != 0 {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	_, cmds, _ := strings.Cut(out, "COMMANDS")
	cmds, _, _ = strings.Cut(cmds, "FLAGS")
	if !regexp.MustCompile(`(?m)^\s+man\b`).MatchString(cmds) {
		t.Errorf("the root's help does not list man:\n%s", cmds)
	}
	code, page, errOut := runCLI(t, "man")
	if code != 0 || !strings.Contains(page, ".TH") || !strings.Contains(page, "convert") {
		t.Errorf("man: exit %d, stderr %q, page %.200q", code, errOut, page)
	}
}
