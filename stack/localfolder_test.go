//go:build unix

package stack

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// A --docs folder with a file named in NFD (as macOS writes names): the
// listing shows the name as on disk, and get of the URI a user types (NFC,
// raw or escaped) opens that file through the real office — agent,
// server, computer, library, resolver and fetch — as does the listed URI.
func TestStartLocal_NFCURIOpensAnNFDNamedFile(t *testing.T) {
	docs := filepath.Join(t.TempDir(), "menus")
	nfd := norm.NFD.String("café") + ".md"
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, nfd), []byte("# Café\n\nEspresso and decomposed names.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, 60*time.Second))
	defer cancel()
	st, err := StartLocal(ctx, LocalOptions{DocsDirs: []string{docs}, FinderDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := client.Dial(ctx, client.Options{URL: st.URL, Office: st.Office, Name: "nfc-agent", RequestTimeout: 20 * time.Second, OwnComputerKey: st.OriginKey()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	listed := firstDPE(t, c, ComputerLocal, "menus", "").URI
	if !strings.Contains(listed, "e%CC%81") {
		t.Fatalf("listed %q: want the NFD name as on disk", listed)
	}
	op := &dpe.Opener{Resolver: c.Resolver(ComputerLocal), Fetcher: &dpe.Fetcher{}, Limits: dpe.DefaultLimits()}
	for _, uri := range []string{listed, "dpe://local.docs.menus/caf%C3%A9.md", "dpe://local.docs.menus/café.md"} {
		opened, err := op.Open(ctx, uri)
		if err != nil {
			t.Fatalf("open %s: %v", uri, err)
		}
		if !bytes.Contains(opened.Body, []byte("decomposed names")) {
			t.Errorf("open %s: not the file: %.300q", uri, opened.Body)
		}
	}
	if _, err := op.Open(ctx, "dpe://local.docs.menus/cafe.md"); err == nil {
		t.Error("a name that is not the file's in any form opened")
	}
}

// The files a --docs folder leaves out are the folder's note (Notes, which
// ls prints on stderr and the TUI shows) and its Skipped list: a FIFO, a
// symlink loop, a file over the size limit, an unsupported file.
func TestStartLocal_SkippedFilesAreANote(t *testing.T) {
	docs := filepath.Join(t.TempDir(), "mine")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	put := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(docs, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	put("ok.md", []byte("# ok\n"))
	put("tool.exe", []byte("MZ"))
	if err := syscall.Mkfifo(filepath.Join(docs, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"loop-b", "loop-a"}, {"loop-a", "loop-b"}} {
		if err := os.Symlink(l[0], filepath.Join(docs, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	// A sparse file over the library's default limit costs no disk.
	f, err := os.Create(filepath.Join(docs, "big.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(65<<20 + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cfg := writeConfig(t, map[string]any{"mcpServers": map[string]any{}})

	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, 60*time.Second))
	defer cancel()
	st, err := StartLocal(ctx, LocalOptions{DocsDirs: []string{docs}, MCPConfigs: []string{cfg}, FinderDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	notes := st.Local().Notes()
	want := []string{
		cfg + ": no MCP servers",
		"mine: 5 files skipped: big.pdf (over 64 MiB), loop-a (symlink loop), loop-b (symlink loop) and 2 more (see the --log file)",
	}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Fatalf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
	sk, ok := st.Local().Skipped("mine")
	if !ok || sk.Total != 5 || sk.Files[3].Path != "pipe" || sk.Files[3].Reason != "FIFO, not a regular file" || sk.Files[4].Reason != "unsupported file type" {
		t.Errorf("skipped %v %+v", ok, sk)
	}
	if _, ok := st.Local().Skipped("nope"); ok {
		t.Error("a server that is no folder has a skipped list")
	}
}
