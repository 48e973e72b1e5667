//go:build unix

package library

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logBuffer collects a logger's text output (slog handlers may be called
// from the MCP server's goroutines).
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func tinyPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 2, 2))
	img.Set(1, 1, color.White)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func write(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// A hostile folder served with Dir: symlinks out of it (to a file, to /,
// through a symlinked directory, swapped in after New), a FIFO, a huge
// file. None is listed, embedded or readable by URI; each gets a WARN
// naming its path inside the folder and why, never its target's content.
// Links inside the folder are followed for files and not for directories.
func TestDir_ServesNothingOutsideTheFolder(t *testing.T) {
	passwd, err := os.ReadFile("/etc/passwd")
	if err != nil || len(passwd) == 0 {
		t.Skip("no /etc/passwd to leak")
	}
	outside := t.TempDir()
	secret := []byte("\x89PNG\r\n\x1a\nOUTSIDE-SECRET")
	write(t, filepath.Join(outside, "secret.png"), secret)
	write(t, filepath.Join(outside, "secret.md"), []byte("# OUTSIDE-SECRET\n"))

	dir := t.TempDir()
	realPNG := tinyPNG(t)
	write(t, filepath.Join(dir, "img", "real.png"), realPNG)
	write(t, filepath.Join(dir, "guide.md"), []byte(strings.Join([]string{
		"# Guide", "",
		"![leak](leak.png)", "",
		"![through a linked dir](out/secret.png)", "",
		"![through root](docs/etc/passwd.png)", "",
		"![pipe](pipe.png)", "",
		"![linked inside](inside.png)", "",
		"![real](img/real.png)", "",
	}, "\n")))
	symlink(t, "/etc/passwd", filepath.Join(dir, "leak.png"))
	symlink(t, "/etc/passwd", filepath.Join(dir, "leak.txt"))
	symlink(t, "/", filepath.Join(dir, "docs"))
	symlink(t, outside, filepath.Join(dir, "out"))
	symlink(t, "../"+filepath.Base(outside)+"/secret.md", filepath.Join(dir, "relative.md"))
	symlink(t, "img/real.png", filepath.Join(dir, "inside.png"))
	symlink(t, "guide.md", filepath.Join(dir, "alias.md"))
	symlink(t, "img", filepath.Join(dir, "imglink"))
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.png"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "huge.txt"), bytes.Repeat([]byte("x"), 4096))
	write(t, filepath.Join(dir, "swap.txt"), []byte("harmless\n"))

	var logs logBuffer
	srv, err := New(Options{Dir: dir, Host: "org.example.docs", CacheSize: -1, MaxFileBytes: 1024, Logger: logs.logger()})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	all, _ := listAll(t, cs)
	var names []string
	for _, r := range all {
		if strings.HasPrefix(r.URI, "dpe://") {
			names = append(names, r.Name)
		}
	}
	slices.Sort(names)
	// Images are documents too (one Image page); the link to one inside
	// the folder is listed under its own name.
	if want := []string{"alias.md", "guide.md", "img/real.png", "inside.png", "swap.txt"}; !slices.Equal(names, want) {
		t.Errorf("listed %v, want %v", names, want)
	}

	// The guide embeds the real image and the one linked inside the
	// folder, nothing else.
	doc := read(t, cs, "dpe://org.example.docs/guide.md")
	var d wireDoc
	if err := json.Unmarshal([]byte(doc.Text), &d); err != nil {
		t.Fatal(err)
	}
	embedded := map[string]string{}
	for _, p := range d.Pages {
		for _, e := range p.Elements {
			if e.Category == "Image" {
				b64, _ := e.Metadata["image_base64"].(string)
				embedded[e.Metadata["image_path"].(string)] = b64
			}
		}
	}
	want := base64.StdEncoding.EncodeToString(realPNG)
	for img, b64 := range embedded {
		switch img {
		case "img/real.png", "inside.png":
			if b64 != want {
				t.Errorf("%s: embedded %q, want the real PNG", img, b64)
			}
		default:
			if b64 != "" {
				t.Errorf("%s: embedded %d base64 characters, want none", img, len(b64))
			}
		}
	}
	if len(embedded) != 6 {
		t.Errorf("images %v, want all six listed by path", embedded)
	}
	for _, leaked := range [][]byte{passwd, secret} {
		if strings.Contains(doc.Text, base64.StdEncoding.EncodeToString(leaked)) {
			t.Error("an outside file was embedded")
		}
	}

	// Nothing outside is readable by URI, and a listed file swapped for a
	// symlink after New is refused on read.
	for _, uri := range []string{"dpe://org.example.docs/leak.txt", "dpe://org.example.docs/docs/etc/passwd",
		"dpe://org.example.docs/relative.md", "dpe://org.example.docs/out/secret.md", "dpe://org.example.docs/fifo.txt"} {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("read %s: %v, want resource-not-found", uri, err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "swap.txt")); err != nil {
		t.Fatal(err)
	}
	symlink(t, "/etc/passwd", filepath.Join(dir, "swap.txt"))
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "dpe://org.example.docs/swap.txt"})
	if err == nil || !strings.Contains(err.Error(), "symlink leaves the served folder") {
		t.Errorf("swapped file: %v, %v; want the symlink refused", res, err)
	}
	if err != nil && strings.Contains(err.Error(), strings.SplitN(string(passwd), "\n", 2)[0]) {
		t.Error("the error carries the target's content")
	}

	out := logs.String()
	for _, line := range []string{
		`level=WARN msg="library: skip file" path=leak.txt reason="symlink leaves the folder"`,
		`level=WARN msg="library: skip file" path=docs reason="symlink leaves the folder"`,
		`level=WARN msg="library: skip file" path=out reason="symlink leaves the folder"`,
		`level=WARN msg="library: skip file" path=relative.md reason="symlink leaves the folder"`,
		`level=WARN msg="library: image not embedded" path=leak.png document=guide.md reason="symlink leaves the served folder"`,
		`level=WARN msg="library: image not embedded" path=out/secret.png document=guide.md reason="symlink leaves the served folder"`,
		`level=WARN msg="library: image not embedded" path=docs/etc/passwd.png document=guide.md reason="symlink leaves the served folder"`,
		`level=WARN msg="library: image not embedded" path=pipe.png document=guide.md reason="not a regular file (a FIFO)"`,
		`level=WARN msg="library: skip file" path=fifo.txt reason="FIFO, not a regular file"`,
		`level=WARN msg="library: skip file" path=huge.txt reason="over 1 KiB"`,
		`level=WARN msg="library: skip file" path=imglink reason="symlinked directory, not followed"`,
		`level=WARN msg="library: cannot read document" path=swap.txt reason="symlink leaves the served folder"`,
	} {
		if !strings.Contains(out, line) {
			t.Errorf("log lacks\n  %s\ngot:\n%s", line, out)
		}
	}
	if strings.Contains(out, "OUTSIDE-SECRET") || strings.Contains(out, strings.SplitN(string(passwd), "\n", 2)[0]) {
		t.Errorf("the log shows a target's content:\n%s", out)
	}
}

// folder.read never opens a FIFO and never reads past its limit, even when
// the file grows between the check and the read.
func TestFolder_ReadRefusesSpecialFilesAndBoundsSize(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "p"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "f"), []byte("12345"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	f := &folder{fsys: root.FS(), root: root}
	if _, _, err := f.read("p", 10); !errors.Is(err, errNotRegular) {
		t.Errorf("FIFO: %v", err)
	}
	if _, _, err := f.read(".", 10); !errors.Is(err, errNotRegular) {
		t.Errorf("directory: %v", err)
	}
	if _, _, err := f.read("f", 4); !errors.Is(err, errTooLarge) {
		t.Errorf("5 bytes, limit 4: %v", err)
	}
	if data, _, err := f.read("f", 5); err != nil || string(data) != "12345" {
		t.Errorf("within the limit: %q, %v", data, err)
	}
	if _, _, err := f.read("../x", 5); err == nil {
		t.Error("a path with .. was read")
	}
}
