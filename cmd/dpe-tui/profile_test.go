package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// keyRecorder is a server on 127.0.0.1 that answers every request 404
// and keeps the x-api-key headers it was sent.
type keyRecorder struct {
	*httptest.Server
	mu   sync.Mutex
	keys []string
	hits int
}

func newKeyRecorder(t *testing.T) *keyRecorder {
	t.Helper()
	r := &keyRecorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.hits++
		if k := req.Header.Get("X-Api-Key"); k != "" {
			r.keys = append(r.keys, k)
		}
		r.mu.Unlock()
		http.NotFound(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *keyRecorder) seen() (hits int, keys []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits, append([]string(nil), r.keys...)
}

// TestConfig_KeyOnlyToTheProfilesOwnURLs: a profile's secret goes to its
// own servers only. With --url (or DPE_TUI_URL) and no profile asked for,
// the default profile does not apply at all; with --profile and a --url
// not its own, the rest of the profile applies and its key is not sent,
// with one line on stderr.
func TestConfig_KeyOnlyToTheProfilesOwnURLs(t *testing.T) {
	cleanEnv(t)
	own := newKeyRecorder(t)
	other := newKeyRecorder(t)
	cfg := writeConfig(t, "default = \"work\"\n[profiles.work]\nurl = \""+own.URL+"\"\noffice = \"work-office\"\n"+
		"api_key_cmd = \"printf secret\"\n")
	ls := func(extra ...string) (int, string) {
		t.Helper()
		code, _, errOut := runCLI(t, append([]string{"--config", cfg, "--timeout", "2s", "ls", "computers"}, extra...)...)
		return code, errOut
	}

	// The default profile, on its own URL: the key is sent there.
	if code, errOut := ls(); code == 0 {
		t.Fatalf("ls against a 404 server succeeded: %q", errOut)
	}
	if _, keys := own.seen(); len(keys) == 0 || keys[0] != "secret" {
		t.Fatalf("the profile's own server got keys %q, want \"secret\"", keys)
	}

	// --url: the default profile is not applied (neither key nor office).
	code, errOut := ls("--url", other.URL)
	if hits, keys := other.seen(); hits == 0 || len(keys) != 0 {
		t.Errorf("--url with the default profile: %d requests, keys %q (exit %d, %q)", hits, keys, code, errOut)
	}
	if strings.Contains(errOut, "work-office") {
		t.Errorf("--url applied the default profile's office: %q", errOut)
	}
	// DPE_TUI_URL likewise.
	t.Setenv("DPE_TUI_URL", other.URL)
	code, errOut = ls()
	if _, keys := other.seen(); len(keys) != 0 {
		t.Errorf("DPE_TUI_URL with the default profile: keys %q (exit %d, %q)", keys, code, errOut)
	}
	t.Setenv("DPE_TUI_URL", "")

	// --profile given and --url not its own: the office applies, the key
	// does not, and stderr says so once.
	code, errOut = ls("--profile", "work", "--url", other.URL)
	if _, keys := other.seen(); len(keys) != 0 {
		t.Errorf("--profile work --url other: keys %q sent (exit %d, %q)", keys, code, errOut)
	}
	if !strings.Contains(errOut, "work-office") {
		t.Errorf("--profile work --url other: the profile's office is not used: %q", errOut)
	}
	if n := strings.Count(errOut, "API key is not sent"); n != 1 {
		t.Errorf("--profile work --url other: %d notes about the key in %q, want 1", n, errOut)
	}
	// --profile with --url equal to its own URL: the key is its.
	before, _ := own.seen()
	ls("--profile", "work", "--url", own.URL)
	if hits, keys := own.seen(); hits == before || keys[len(keys)-1] != "secret" {
		t.Errorf("--profile work --url own: keys %q", keys)
	}
}

// TestConfig_BrokenFileOnlyStopsCommandsThatConnect: a refused file (here a
// literal key in an unrelated, group-readable profile) is an error for a
// command that connects, and nothing for one that reads a local file.
func TestConfig_BrokenFileOnlyStopsCommandsThatConnect(t *testing.T) {
	cleanEnv(t)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("[profiles.plain]\nurl = \"http://127.0.0.1:1\"\n\n[profiles.other]\napi_key = \"hunter2\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := writeTemp(t, "good.json", goodDoc)
	for _, args := range [][]string{
		{"get", doc}, {"--profile", "plain", "get", doc}, {"check", doc}, {"hash", doc},
	} {
		code, out, errOut := runCLI(t, append([]string{"--config", cfg}, args...)...)
		if code != 0 || strings.Contains(errOut, "config.toml") {
			t.Errorf("%v with a refused config: exit %d, %q %q", args, code, out, errOut)
		}
	}
	code, _, errOut := runCLI(t, "--config", cfg, "--profile", "plain", "ls", "computers")
	if code != exitUsage || !strings.Contains(errOut, cfg+":5: key profiles.other.api_key") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("ls with a refused config: exit %d, %q", code, errOut)
	}
	// config edit opens it all the same, and reports what is still wrong.
	marker := filepath.Join(t.TempDir(), "opened")
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "touch "+marker+" &&  true")
	code, _, errOut = runCLI(t, "--config", cfg, "config", "edit")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("config edit did not run the editor on a refused file: %v (exit %d, %q)", err, code, errOut)
	}
	if code != exitUsage || !strings.Contains(errOut, "profiles.other.api_key") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("config edit of a refused file: exit %d, %q", code, errOut)
	}
	if code, out, _ := runCLI(t, "--config", cfg, "config", "path"); code != 0 || strings.TrimSpace(out) != cfg {
		t.Errorf("config path of a refused file: exit %d, %q", code, out)
	}
}

// TestConfig_ErrorsNameFileLineKeyWithoutFlagHint: a value the file gets
// wrong is reported against the file, not as a flag, and a duplicate
// table names its line and key.
func TestConfig_ErrorsNameFileLineKeyWithoutFlagHint(t *testing.T) {
	cleanEnv(t)
	for _, tc := range []struct{ text, want string }{
		{"[profiles.a]\nurl = \"http://127.0.0.1:1\"\na2c_version = \"9.9\"\n", ":3: key profiles.a.a2c_version: \"9.9\""},
		{"[profiles.a]\nurl = \"http://127.0.0.1:1\"\n[profiles.a]\noffice = \"o\"\n", ":3: key profiles.a: defined twice"},
	} {
		cfg := writeConfig(t, tc.text)
		code, _, errOut := runCLI(t, "--config", cfg, "--profile", "a", "ls", "computers")
		if code != exitUsage || !strings.Contains(errOut, cfg+tc.want) || strings.Contains(errOut, "--help") ||
			strings.Count(errOut, "\n") != 1 {
			t.Errorf("config %q: exit %d, %q; want one line with %q and no help hint", tc.text, code, errOut, cfg+tc.want)
		}
	}
}

// TestConfig_ExplicitFileMustExist: --config or DPE_TUI_CONFIG naming no
// file is an error; the default path may be missing.
func TestConfig_ExplicitFileMustExist(t *testing.T) {
	cleanEnv(t)
	missing := filepath.Join(t.TempDir(), "nonexist", "x.toml")
	code, _, errOut := runCLI(t, "--config", missing, "ls", "computers", "--url", "http://127.0.0.1:1")
	if code != exitUsage || !strings.Contains(errOut, missing+": no such file") {
		t.Errorf("--config missing: exit %d, %q", code, errOut)
	}
	t.Setenv("DPE_TUI_CONFIG", missing)
	code, _, errOut = runCLI(t, "config", "show")
	if code != exitUsage || !strings.Contains(errOut, "no such file") {
		t.Errorf("DPE_TUI_CONFIG missing, config show: exit %d, %q", code, errOut)
	}
	t.Setenv("DPE_TUI_CONFIG", "")
	if code, out, errOut := runCLI(t, "config", "show"); code != 0 || !strings.Contains(out, "no profiles") {
		t.Errorf("default path missing, config show: exit %d, %q %q", code, out, errOut)
	}
}

// TestProfileSwitch_IgnoresTheCommandLinesConnection: started with --url X
// --name zed --api-key K, a switch to profile cmdkey dials cmdkey's URL,
// office, name and key, and a profile that sets no name gets the default
// name, not zed.
func TestProfileSwitch_IgnoresTheCommandLinesConnection(t *testing.T) {
	cleanEnv(t)
	cfg := writeConfig(t, "[profiles.cmdkey]\nurl = \"http://127.0.0.1:2\"\noffice = \"oc\"\nname = \"nc\"\napi_key_cmd = \"printf ck\"\n"+
		"[profiles.bare]\nurl = \"http://127.0.0.1:3\"\n")
	a := &app{ctx: t.Context(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	root := a.rootCmd()
	root.SetArgs([]string{"--config", cfg, "--url", "http://127.0.0.1:1", "--name", "zed", "--office", "ox",
		"--api-key", "cli-key", "--timeout", "9s", "ls", "computers"})
	ls, _, err := root.Find([]string{"ls"})
	if err != nil {
		t.Fatal(err)
	}
	ls.RunE = func(*cobra.Command, []string) error { return nil }
	if err := root.ExecuteContext(t.Context()); err != nil {
		t.Fatal(err)
	}
	g, _, err := a.prof.profileGlobals("cmdkey")
	if err != nil {
		t.Fatal(err)
	}
	if g.URL != "http://127.0.0.1:2" || g.Office != "oc" || g.Name != "nc" || g.APIKey != "" || g.keyFrom == nil ||
		time.Duration(g.Timeout) != 9*time.Second {
		t.Errorf("switch to cmdkey: url %q office %q name %q key %q keyFrom %v timeout %s",
			g.URL, g.Office, g.Name, g.APIKey, g.keyFrom, time.Duration(g.Timeout))
	}
	if err := g.resolveAPIKey(t.Context()); err != nil || g.APIKey != "ck" {
		t.Errorf("switch to cmdkey: key %q, %v; want the profile's", g.APIKey, err)
	}
	g, _, err = a.prof.profileGlobals("bare")
	if err != nil {
		t.Fatal(err)
	}
	if g.URL != "http://127.0.0.1:3" || g.Office != "demo" || g.Name != "dpe-tui" || g.APIKey != "" || g.keyFrom != nil {
		t.Errorf("switch to bare: url %q office %q name %q key %q keyFrom %v", g.URL, g.Office, g.Name, g.APIKey, g.keyFrom)
	}
	// The file is read again at each switch: a profile added meanwhile
	// can be switched to.
	if err := os.WriteFile(cfg, []byte("[profiles.late]\nurl = \"http://127.0.0.1:4\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if g, _, err = a.prof.profileGlobals("late"); err != nil || g.URL != "http://127.0.0.1:4" {
		t.Errorf("switch to a profile added later: %q, %v", g.URL, err)
	}
}

// TestConfig_DefaultProfileYieldsToLocalServersAndAnEmptyProfile: a
// saved default profile with a URL is the server only when nothing else
// says where: --docs and --mcp-config start servers in this process, and
// --profile "" (or DPE_TUI_PROFILE=) asks for no profile, so the demo is
// reachable.
func TestConfig_DefaultProfileYieldsToLocalServersAndAnEmptyProfile(t *testing.T) {
	cleanEnv(t)
	cfg := writeConfig(t, "default = \"far\"\n[profiles.far]\nurl = \"http://127.0.0.1:1\"\noffice = \"far-office\"\n")
	t.Setenv("DPE_TUI_CONFIG", cfg)
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "note.md"), []byte("# Note\n\nbody\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "ls", "resources", "--docs", docs)
	if code != exitOK || !strings.Contains(out, "note.md") {
		t.Errorf("--docs under a default profile: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "--profile", "", "ls", "computers")
	if code != exitOK || !strings.Contains(out, "alpha") {
		t.Errorf("--profile \"\": exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	t.Setenv("DPE_TUI_PROFILE", "")
	code, out, errOut = runCLI(t, "ls", "computers")
	if code != exitOK || !strings.Contains(out, "alpha") {
		t.Errorf("DPE_TUI_PROFILE=: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The default still applies when nothing else is said.
	os.Unsetenv("DPE_TUI_PROFILE")
	code, _, errOut = runCLI(t, "ls", "computers", "--timeout", "2s")
	if code == exitOK || !strings.Contains(errOut, "127.0.0.1:1") {
		t.Errorf("default profile: exit %d, stderr %q", code, errOut)
	}
	// A profile the user names with --docs is still refused: its URL is
	// another process's office. The message names the profile, not a
	// --url nobody typed.
	code, _, errOut = runCLI(t, "--profile", "far", "ls", "resources", "--docs", docs)
	if code != exitUsage || !strings.Contains(errOut, `profile "far" sets a url; --docs cannot be used with it`) || strings.Contains(errOut, "--url:") {
		t.Errorf("--profile far --docs: exit %d, stderr %q", code, errOut)
	}
}
