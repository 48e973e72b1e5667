package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// write puts text in a fresh config.toml with the given mode.
func write(t *testing.T, text string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // umask may have narrowed it
		t.Fatal(err)
	}
	return path
}

func TestDefaultPath_FollowsXDGConfigHomeAtCallTime(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	got, err := DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "dpe-tui", "config.toml"); got != want {
		t.Errorf("DefaultPath = %q, want %q", got, want)
	}
	// The XDG spec says a relative value is to be ignored.
	t.Setenv("XDG_CONFIG_HOME", "relative/dir")
	got, err = DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(got, "relative") || !filepath.IsAbs(got) {
		t.Errorf("DefaultPath with a relative XDG_CONFIG_HOME = %q, want an absolute fallback", got)
	}
}

func TestLoad_MissingFileIsEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "config.toml")
	f, err := Load(path)
	if err != nil {
		t.Fatalf("Load(missing) = %v, want no error", err)
	}
	if f.Path != path || len(f.Names()) != 0 || f.Default() != "" {
		t.Errorf("Load(missing) = %+v, want an empty File with Path set", f)
	}
}

func TestLoad_ParsesEveryProfileKey(t *testing.T) {
	path := write(t, `
default = "work"

[profiles.work]
url = "https://smcp.example.com:7800"
office = "team"
name = "alice"
path = "/smcp"
a2c_version = "0.3.0"
theme = "light"
images = "kitty"
mouse = false
timeout = "45s"
api_key_cmd = "pass show smcp"

[profiles."home lab"]
url = ["http://10.0.0.1:7800", "http://10.0.0.2:7800"]
api_key_env = "HOME_KEY"
`, 0o644)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Names(), "|"); got != "home lab|work" {
		t.Errorf("Names = %q, want sorted [home lab work]", got)
	}
	if f.Default() != "work" {
		t.Errorf("Default = %q, want work", f.Default())
	}
	w, err := f.Lookup("work")
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "work" || strings.Join(w.URLs, ",") != "https://smcp.example.com:7800" ||
		w.Office != "team" || w.AgentName != "alice" || w.Path != "/smcp" || w.A2CVersion != "0.3.0" ||
		w.Theme != "light" || w.Images != "kitty" || w.Mouse == nil || *w.Mouse ||
		w.Timeout != 45*time.Second || w.APIKeyCmd != "pass show smcp" || w.APIKey != "" || w.APIKeyEnv != "" {
		t.Errorf("work = %+v", w)
	}
	h, err := f.Lookup("home lab")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.URLs) != 2 || h.URLs[1] != "http://10.0.0.2:7800" || h.APIKeyEnv != "HOME_KEY" || h.Mouse != nil || h.Timeout != 0 {
		t.Errorf("home lab = %+v", h)
	}
}

func TestLoad_URLForms(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        string
	}{
		{"one string", `"http://a:1"`, "http://a:1"},
		{"comma list", `"http://a:1, http://b:2,"`, "http://a:1|http://b:2"},
		{"array", `["http://a:1", "https://b"]`, "http://a:1|https://b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Load(write(t, "[profiles.p]\nurl = "+tc.value+"\n", 0o600))
			if err != nil {
				t.Fatal(err)
			}
			p, _ := f.Lookup("p")
			if got := strings.Join(p.URLs, "|"); got != tc.want {
				t.Errorf("URLs = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLoad_MalformedNamesFileLineAndKey: every way a file can be wrong is
// one line naming the file, the line and the key.
func TestLoad_MalformedNamesFileLineAndKey(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		key        string
		msg        string // a substring of the reason
	}{
		{"syntax", "[profiles.a]\nurl = \"http://a:1\"\noffice = \n", 3, "profiles.a.office", "expected value"},
		{"syntax without key", "[profiles.a\n", 1, "", "expected"},
		{"unknown top-level key", "default = \"a\"\ncolour = \"red\"\n[profiles.a]\n", 2, "colour", "unknown key"},
		{"unknown table", "[profiles.a]\nurl = \"http://a\"\n\n[server]\naddr = 1\n", 4, "server", "unknown key"},
		{"unknown profile key", "[profiles.a]\nurl = \"http://a:1\"\n\n[profiles.b]\nofice = \"x\"\n", 5, "profiles.b.ofice", "unknown key"},
		{"wrong type", "[profiles.a]\nmouse = \"yes\"\n", 2, "profiles.a.mouse", "want true or false, have a string"},
		{"number for string", "[profiles.a]\n  office = 7\n", 2, "profiles.a.office", "want a string, have an integer"},
		{"bad duration", "[profiles.a]\nurl = \"http://a\"\ntimeout = \"30 seconds\"\n", 3, "profiles.a.timeout", "not a duration"},
		{"duration as integer", "[profiles.a]\ntimeout = 30\n", 2, "profiles.a.timeout", "want a string"},
		{"bad images", "[profiles.a]\nimages = \"iterm\"\n", 2, "profiles.a.images", `"iterm" is not one of kitty, sixel, blocks, off, auto`},
		{"bad theme", "[profiles.a]\ntheme = \"solarized\"\n", 2, "profiles.a.theme", "not one of dark, light, notty"},
		{"bad url", "[profiles.a]\nurl = \"localhost\"\n", 2, "profiles.a.url", "not a URL"},
		{"url array of numbers", "[profiles.a]\nurl = [1]\n", 2, "profiles.a.url", "want strings in the array"},
		{"quoted profile name", "[profiles.\"my lab\"]\nmouse = 1\n", 2, `profiles."my lab".mouse`, "want true or false"},
		{"dotted key", "[profiles]\na.url = \"http://a\"\na.images = \"x\"\n", 3, "profiles.a.images", "not one of"},
		{"profile not a table", "[profiles]\na = 3\n", 2, "profiles.a", "want a table"},
		{"default names no profile", "default = \"b\"\n[profiles.a]\n", 1, "default", `names profile "b"`},
		{"unspoken a2c_version", "[profiles.a]\nurl = \"http://a:1\"\na2c_version = \"9.9\"\n", 3, "profiles.a.a2c_version", `"9.9": dpe-tui speaks A2C-SMCP`},
		{"table twice", "[profiles.a]\nurl = \"http://a:1\"\n\n[profiles.a]\noffice = \"o\"\n", 4, "profiles.a", "defined twice"},
		{"key twice", "[profiles.a]\nurl = \"http://a:1\"\nurl = \"http://b:1\"\n", 3, "profiles.a.url", "defined twice"},
		{"two key sources", "[profiles.a]\napi_key_env = \"K\"\napi_key_cmd = \"printf k\"\n", 3, "profiles.a.api_key_cmd", "set one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, tc.text, 0o600)
			_, err := Load(path)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Load = %v, want a *ParseError", err)
			}
			if pe.File != path || pe.Line != tc.line || pe.Key != tc.key || !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("ParseError = %+v, want line %d key %q msg containing %q", *pe, tc.line, tc.key, tc.msg)
			}
			msg := err.Error()
			want := path + ":" + strconv.Itoa(tc.line) + ": "
			if tc.key != "" {
				want += "key " + tc.key + ": "
			}
			if !strings.HasPrefix(msg, want) || strings.ContainsAny(msg, "\n\r") {
				t.Errorf("Error() = %q, want one line starting %q", msg, want)
			}
		})
	}
}

func TestLoad_LiteralKeyRefusedUnlessOwnerOnly(t *testing.T) {
	text := "[profiles.a]\nurl = \"http://a:1\"\n\n[profiles.b]\nurl = \"http://b:1\"\napi_key = \"s3cret\"\n"
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604} {
		path := write(t, text, mode)
		_, err := Load(path)
		if err == nil {
			t.Fatalf("Load(mode %04o) accepted a literal api_key", mode)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, path+":6: key profiles.b.api_key: ") || !strings.Contains(msg, "chmod 600 "+path) ||
			strings.Contains(msg, "s3cret") || strings.Contains(msg, "\n") {
			t.Errorf("Load(mode %04o) = %q, want one line naming the file, line 6, and chmod 600, without the key", mode, msg)
		}
	}
	f, err := Load(write(t, text, 0o600))
	if err != nil {
		t.Fatalf("Load(0600) = %v", err)
	}
	if p, _ := f.Lookup("b"); p.APIKey != "s3cret" {
		t.Errorf("api_key = %q", p.APIKey)
	}
	// The rule is about literal keys only: a readable file naming a
	// variable or a command gives nothing away.
	if _, err := Load(write(t, "[profiles.a]\napi_key_env = \"K\"\n", 0o644)); err != nil {
		t.Errorf("Load(0644, api_key_env) = %v", err)
	}
}

func TestLookup_UnknownNameListsKnownOnes(t *testing.T) {
	path := write(t, "[profiles.work]\n[profiles.home]\n", 0o600)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Lookup("wrok\x1b[2J")
	if err == nil {
		t.Fatal("Lookup(unknown) = nil error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "known: home, work") || !strings.Contains(msg, path) || strings.Contains(msg, "\x1b") {
		t.Errorf("Lookup error = %q, want the known names, the file and no escape", msg)
	}
	empty, _ := Load(filepath.Join(t.TempDir(), "none.toml"))
	if _, err := empty.Lookup("x"); err == nil || !strings.Contains(err.Error(), "has no profiles") {
		t.Errorf("Lookup on an empty file = %v", err)
	}
}

func TestWriteMasked_HidesLiteralKeysOnly(t *testing.T) {
	path := write(t, `default = "a"
[profiles.a]
url = "http://a:1,http://a:2"
api_key = "s3cret-value"
mouse = true
timeout = "1m30s"
[profiles.b]
url = "http://b:1"
api_key_env = "B_KEY"
[profiles.c]
api_key_cmd = "pass show smcp"
`, 0o600)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := f.WriteMasked(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "s3cret") {
		t.Fatalf("WriteMasked leaked the literal key:\n%s", out)
	}
	for _, want := range []string{`default = "a"`, `api_key = "****"`, `api_key_env = "B_KEY"`, `api_key_cmd = "pass show smcp"`,
		`url = ["http://a:1", "http://a:2"]`, `url = "http://b:1"`, `timeout = "1m30s"`, `mouse = true`} {
		if !strings.Contains(out, want) {
			t.Errorf("WriteMasked output lacks %q:\n%s", want, out)
		}
	}
	var none strings.Builder
	empty, _ := Load(filepath.Join(t.TempDir(), "none.toml"))
	if err := empty.WriteMasked(&none); err != nil || !strings.Contains(none.String(), "no profiles") {
		t.Errorf("WriteMasked of an empty file = %q, %v", none.String(), err)
	}
	// What is shown is itself a valid config with the same profiles.
	again, err := Load(write(t, out, 0o600))
	if err != nil {
		t.Fatalf("WriteMasked output does not load: %v\n%s", err, out)
	}
	if strings.Join(again.Names(), ",") != "a,b,c" || again.Default() != "a" {
		t.Errorf("reloaded: names %v default %q", again.Names(), again.Default())
	}
}

func TestResolveAPIKey(t *testing.T) {
	t.Setenv("DPE_TEST_KEY", "from-env")
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		p       Profile
		want    string
		wantErr string
	}{
		{"none", Profile{Name: "p"}, "", ""},
		{"literal first", Profile{Name: "p", APIKey: "lit", APIKeyEnv: "DPE_TEST_KEY"}, "lit", ""},
		{"env", Profile{Name: "p", APIKeyEnv: "DPE_TEST_KEY"}, "from-env", ""},
		{"env missing", Profile{Name: "p", APIKeyEnv: "DPE_TEST_NO_SUCH_VAR"}, "", "variable DPE_TEST_NO_SUCH_VAR is not set"},
		{"cmd printf", Profile{Name: "p", APIKeyCmd: "printf secret"}, "secret", ""},
		{"cmd trailing newline trimmed", Profile{Name: "p", APIKeyCmd: "echo 'two words'"}, "two words", ""},
		{"cmd fails with stderr", Profile{Name: "p", APIKeyCmd: "echo 'gpg: decryption failed' >&2; echo more >&2; exit 3"}, "",
			"profile p: api_key_cmd: exit status 3: gpg: decryption failed"},
		{"cmd prints nothing", Profile{Name: "p", APIKeyCmd: "true"}, "", "printed nothing"},
		{"cmd prints too much", Profile{Name: "p", APIKeyCmd: "head -c 70000 /dev/zero"}, "", "more than 64 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.p.ResolveAPIKey(ctx)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("ResolveAPIKey = %q, %v; want one-line error containing %q", got, err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "more") && tc.name == "cmd fails with stderr" {
					t.Errorf("error %q has more than stderr's first line", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ResolveAPIKey = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestResolveAPIKey_CmdStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Profile{Name: "p", APIKeyCmd: "sleep 30"}.ResolveAPIKey(ctx)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "canceled") {
			t.Errorf("cancelled api_key_cmd = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("api_key_cmd did not stop when its context was cancelled")
	}
}

func TestParseError_KeyFromFileIsSanitized(t *testing.T) {
	path := write(t, "[profiles.a]\n\"x\\u001b]0;pwned\\u0007\" = 1\n", 0o600)
	_, err := Load(path)
	if err == nil {
		t.Fatal("Load accepted an unknown key")
	}
	if msg := err.Error(); strings.ContainsAny(msg, "\x1b\x07\n") || !strings.Contains(msg, ":2: key ") {
		t.Errorf("Error() = %q, want one sanitized line at line 2", msg)
	}
}

func TestLoad_RefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), dir+": not a regular file") {
		t.Errorf("Load(dir) = %v", err)
	}
	fifo := filepath.Join(dir, "fifo.toml")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Load(fifo) = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load waited on a FIFO")
	}
}

// TestLoadExisting_MissingIsAnError: a file the user named must exist;
// only the default path may be missing.
func TestLoadExisting_MissingIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "x.toml")
	_, err := LoadExisting(path)
	var pe *ParseError
	if !errors.As(err, &pe) || err.Error() != path+": no such file" {
		t.Fatalf("LoadExisting(missing) = %v, want %q", err, path+": no such file")
	}
	if f, err := Load(path); err != nil || len(f.Names()) != 0 {
		t.Fatalf("Load(missing) = %v, %v; want empty and no error", f, err)
	}
	ok := write(t, "[profiles.a]\noffice = \"o\"\n", 0o600)
	if f, err := LoadExisting(ok); err != nil || len(f.Names()) != 1 {
		t.Fatalf("LoadExisting(present) = %v, %v", f, err)
	}
}

// TestResolveAPIKey_TimeoutKillsTheGrandchild: a command that forks (sh
// runs sleep as its child) leaves nothing running once it is given up on.
func TestResolveAPIKey_TimeoutKillsTheGrandchild(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := Profile{Name: "p", APIKeyCmd: "sleep 47 & echo $! > " + pidFile + "; wait"}.ResolveAPIKey(ctx)
	if err == nil {
		t.Fatal("a command that never answers gave a key")
	}
	data, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatal(rerr)
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(string(data)))
	if perr != nil {
		t.Fatal(perr)
	}
	deadline := time.Now().Add(10 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			_ = killPID(pid)
			t.Fatalf("sleep (pid %d) still runs after api_key_cmd was given up on", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A file others can write could name any command: it is refused before
// any command runs (the marker file is never made).
func TestLoad_CommandRefusedInAFileOthersCanWrite(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	for _, key := range []string{"api_key_cmd", "token_cmd"} {
		text := "[profiles.a]\nurl = \"http://a:1\"\n" + key + " = \"touch " + marker + "; echo k\"\n"
		for _, mode := range []os.FileMode{0o664, 0o646, 0o666} {
			path := write(t, text, mode)
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), "writable by group or others") || !strings.Contains(err.Error(), "profiles.a."+key) {
				t.Errorf("Load(%s, mode %04o) = %v, want a refusal naming the key", key, mode, err)
			}
		}
		f, err := Load(write(t, text, 0o644))
		if err != nil {
			t.Fatalf("Load(0644, %s) = %v", key, err)
		}
		p, _ := f.Lookup("a")
		if key == "api_key_cmd" {
			_, err = p.ResolveAPIKey(context.Background())
		} else {
			_, err = p.ResolveToken(context.Background())
		}
		if err != nil {
			t.Errorf("%s from a 0644 file: %v", key, err)
		}
	}
}

// A command that streams past the output cap is stopped there, not at the
// 10 s timeout: the error says it printed too much (and the time taken is
// bounded by the timeout it did not wait for).
func TestResolveAPIKey_StreamingCmdFailsAtTheCap(t *testing.T) {
	start := time.Now()
	_, err := Profile{Name: "p", APIKeyCmd: "yes"}.ResolveAPIKey(context.Background())
	if err == nil || !strings.Contains(err.Error(), "more than 64 KiB") {
		t.Fatalf("yes: %v", err)
	}
	if took := time.Since(start); took >= keyCmdTimeout {
		t.Errorf("yes stopped after %s, the timeout is %s", took, keyCmdTimeout)
	}
}

func TestWriteMasked_URLsWithoutCredentials(t *testing.T) {
	f, err := Load(write(t, "[profiles.a]\nurl = [\"https://bob:hunter2@smcp.example.com/x?token=abc\", \"https://b.example/?sig=zz\"]\n", 0o600))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := f.WriteMasked(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, secret := range []string{"hunter2", "bob", "abc", "zz"} {
		if strings.Contains(out, secret) {
			t.Errorf("config show prints %q:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "smcp.example.com") || !strings.Contains(out, "token=") {
		t.Errorf("config show lost the URL's shape:\n%s", out)
	}
}
