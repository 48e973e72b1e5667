package main

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/remote"
	"github.com/dpe-tui/dpe-tui/ui"
)

// ourRemote is `remote serve` on 127.0.0.1 (the read extension on or
// off) and its URL.
func ourRemote(t *testing.T, readObjects bool) string {
	t.Helper()
	srv, err := remote.Open(t.TempDir(), remote.Options{ReadObjects: readObjects})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs.URL
}

// startRemoteTUI is `dpe-tui --remote URL [--docs DIR] --images blocks`
// as tui.go builds it (tuiRemote, the real client), in teatest.
func startRemoteTUI(t *testing.T, url, docsDir string, w, h int) *localTUI {
	t.Helper()
	opt := ui.Options{Theme: "dark", Width: w, Height: h, StatusTimeout: -1, Images: "blocks",
		Limits: dpe.DefaultLimits(), Now: func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) },
		RemoteOnly: true, RequestTimeout: 30 * time.Second}
	opt.Remote = tuiRemote(url, docsDir, nil, func(ctx context.Context) (*dpev1.Client, *wire.Capabilities, error) {
		c, err := dpev1.New(url, dpev1.Options{Timeout: 30 * time.Second})
		if err != nil {
			return nil, nil, err
		}
		caps, err := c.Capabilities(ctx)
		return c, caps, err
	})
	lt := &localTUI{t: t}
	lt.tm = teatest.NewTestModel(t, frameProbe{ui.New(opt)}, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	t.Cleanup(func() { lt.key(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}) })
	return lt
}

// A pandoc docx with a PNG, pushed to our remote, shows its picture in
// the remote browser's page view: through the read extension with an
// empty cache, and from this machine's cache (filled by push) with the
// extension off. The skeleton held only the image's blob reference; the
// page view gets the bytes by it, each verified by its sha256.
func TestRemoteTUI_ImagesFromTheExtensionAndTheCache(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "convert", "testdata", "pandoc.docx"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name        string
		readObjects bool
	}{{"extension", true}, {"cache", false}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "withimg.docx"), src, 0o600); err != nil {
				t.Fatal(err)
			}
			url := ourRemote(t, tt.readObjects)
			isolatedCache(t)
			if code, out, errOut := runPush(t, "push", dir, "--remote", url, "--prefix", "file:///img/"); code != 0 {
				t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
			}
			if tt.readObjects {
				isolatedCache(t) // nothing on this machine: all through the extension
			}
			l := startRemoteTUI(t, url, "", 100, 60)
			l.waitFor("file:///img/")
			l.enter()
			l.waitFor("withimg.docx")
			l.enter()
			l.waitFor("Introduction")
			l.key(tea.KeyPressMsg{Code: tea.KeyDown})
			l.enter()
			f := l.waitUntil("the picture drawn in blocks", func(f string) bool {
				return strings.Contains(f, "▣ image/png · 6.2 KiB · 64×48") && (strings.Contains(f, "▀") || strings.Contains(f, "▄"))
			})
			if strings.Contains(f, "no image data") {
				t.Fatalf("the image has no data:\n%s", f)
			}
		})
	}
}

// `dpe-tui --remote URL --docs DIR`: r reads DIR again, so a file edited
// since is stale and a new one is only local, and the header counts it
// (r listed the remote again but kept the files read at start).
func TestRemoteTUI_RefreshRereadsTheLocalFolder(t *testing.T) {
	url := ourRemote(t, true)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\nfirst\n")
	writeFile(t, filepath.Join(dir, "b.md"), "# B\n\nsecond\n")
	if code, out, errOut := runPush(t, "push", dir, "--remote", url); code != 0 {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	l := startRemoteTUI(t, url, dir, 100, 30)
	l.waitFor("local files (2 documents)", "2 docs")
	l.enter()
	l.waitFor("a.md", "same")
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\nfirst, edited\n")
	writeFile(t, filepath.Join(dir, "c.md"), "# C\n\nnew\n")
	l.rune('r')
	f := l.waitFor("local files (3 documents)", "stale", "c.md", "only local")
	for _, line := range strings.Split(f, "\n") {
		if strings.Contains(line, "a.md") && !strings.Contains(line, "stale") {
			t.Fatalf("the edited a.md is not stale:\n%s", f)
		}
	}
}

// A folder pushed under its own file:// prefix, then again with --prefix
// file:///big80/: the browser compares the local files under the prefix
// of the last push and says which, and the earlier copy under the
// folder's own URI is not compared (it said all "only remote").
func TestRemoteTUI_StateUsesTheLastPushsPrefix(t *testing.T) {
	url := ourRemote(t, false)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\nfirst\n")
	writeFile(t, filepath.Join(dir, "b.md"), "# B\n\nsecond\n")
	for _, args := range [][]string{{}, {"--prefix", "file:///big80/"}} {
		if code, out, errOut := runPush(t, append([]string{"push", dir, "--remote", url}, args...)...); code != 0 {
			t.Fatalf("push %v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	l := startRemoteTUI(t, url, "", 120, 30)
	l.waitFor("local files (2 documents): last pushed: "+dir+" as file:///big80/", "4 docs")
	l.enter()
	f := l.waitFor("big80/", "2 docs", strings.TrimPrefix(fileURIOf(dir), "file:///"))
	if strings.Contains(f, "2 remote") || strings.Contains(f, "only remote") || strings.Contains(f, "stale") {
		t.Fatalf("documents outside the last push's prefix were compared:\n%s", f)
	}
}

// push --profile P (no --remote) remembers the folder under the
// profile's remote, so the browser of that remote (a profile's remote
// entry, built by tuiRemote as with --remote) marks against it.
func TestRemoteTUI_LastPushedWithAProfile(t *testing.T) {
	url := ourRemote(t, false)
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "cfg.toml")
	writeFile(t, cfg, "[profiles.tok]\nremote = \""+url+"\"\n")
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\nfirst\n")
	if code, out, errOut := runPush(t, "--config", cfg, "--profile", "tok", "push", dir); code != 0 {
		t.Fatalf("push --profile: exit %d\n%s%s", code, out, errOut)
	}
	l := startRemoteTUI(t, url, "", 120, 30)
	l.waitFor("local files (1 document): last pushed: " + dir)
}
