package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/internal/contentcache"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/internal/safewrite"
	"github.com/dpe-tui/dpe-tui/library"
	"github.com/dpe-tui/dpe-tui/remote"
	"github.com/dpe-tui/dpe-tui/ui"
)

// The TUI's side of DPE v1: a remote to browse (--remote, a profile's
// remote, the demo's own), the local files it is compared with, and the
// content cache push and the comparison fill.

// pushState is what push remembers per remote: the folder it delivered
// and its prefix, so the browser can mark that folder's stale files.
type pushState struct {
	Dir    string `json:"dir"`
	Prefix string `json:"prefix"`
}

func pushStatePath() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "dpe-tui", "pushed.json"), nil
}

// rememberPush keeps the objects of docs in the content cache and notes
// the folder pushed to remoteURL. Both are conveniences for the browser:
// a failure here never fails the push.
func rememberPush(remoteURL, dir, prefix string, docs []*localDoc) {
	if c, err := contentcache.Default(); err == nil {
		cacheDocs(c, docs)
	}
	p, err := pushStatePath()
	if err != nil {
		return
	}
	all := readPushState(p)
	all[strings.TrimSuffix(remoteURL, "/")] = pushState{Dir: dir, Prefix: prefix}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return
	}
	_ = os.MkdirAll(filepath.Dir(p), 0o700)
	_ = safewrite.Replace(p, b, 0o600)
}

// pushedRemote is the remote a push went to: url, else the remote of
// --profile (the key the TUI looks the push up by, with or without
// --remote).
func (a *app) pushedRemote(url string) string {
	if url != "" {
		return url
	}
	if st := a.prof; st != nil && st.name != "" {
		if p, err := st.file.Lookup(st.name); err == nil {
			return p.Remote
		}
	}
	return ""
}

func readPushState(p string) map[string]pushState {
	all := map[string]pushState{}
	// The one local-file rule: a FIFO or a symlink into /proc in its
	// place is not read.
	f, st, err := localfile.Open(p, localfile.Options{})
	if err != nil {
		return all
	}
	defer f.Close()
	if b, err := io.ReadAll(io.LimitReader(f, 1<<20)); err == nil && st.Size() < 1<<20 && len(b) < 1<<20 {
		_ = json.Unmarshal(b, &all)
	}
	return all
}

// lastPush is the folder last pushed to remoteURL, if any.
func lastPush(remoteURL string) (pushState, bool) {
	p, err := pushStatePath()
	if err != nil {
		return pushState{}, false
	}
	st, ok := readPushState(p)[strings.TrimSuffix(remoteURL, "/")]
	return st, ok && st.Dir != ""
}

func cacheDocs(c *contentcache.Cache, docs []*localDoc) {
	for _, d := range docs {
		if d == nil || d.err != nil {
			continue
		}
		for _, obj := range d.objects {
			_ = c.Put(obj)
		}
		// An Image's blob too, or a remote without the read extension
		// shows it as "no image data".
		for ref, b := range d.blobs {
			_ = c.PutBlob(ref, b)
		}
	}
}

// localDocs converts the files of dir as push would (URIs under prefix,
// "" for the folder's own file:// URI) and keeps their objects in cache.
func localDocs(ctx context.Context, dir, prefix, from string, cache *contentcache.Cache, notice func(string)) (*ui.LocalDocs, error) {
	files, _, base, err := pushFiles(dir)
	if err != nil {
		return nil, err
	}
	if prefix == "" {
		prefix = fileURIOf(base) + "/"
	}
	conv := convert.New(convert.Options{Notice: notice})
	defer conv.Close()
	docs := make([]*localDoc, len(files))
	parallel(2, len(files), func(i int) {
		rel, _ := filepath.Rel(base, files[i])
		docs[i] = buildLocal(ctx, conv, files[i], prefix+uriPath(rel))
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cache != nil {
		cacheDocs(cache, docs)
	}
	out := &ui.LocalDocs{From: from, Prefix: prefix}
	for _, d := range docs {
		if d.err != nil {
			out.Failed++
			continue
		}
		out.Docs = append(out.Docs, ui.LocalDoc{URI: d.uri, Hash: d.hash, Path: d.path})
	}
	return out, nil
}

// tuiRemote is the browser's remote at url: the local files compared
// are docsDir, else the folder last pushed there (converted with notices
// to notice).
func tuiRemote(url, docsDir string, notice func(string), connect func(ctx context.Context) (*dpev1.Client, *wire.Capabilities, error)) *ui.Remote {
	r := &ui.Remote{Label: url, Connect: connect}
	cache, err := contentcache.Default()
	if err == nil {
		r.Cache = cache
	}
	switch st, ok := lastPush(url); {
	case docsDir != "":
		r.Local = func(ctx context.Context) (*ui.LocalDocs, error) {
			return localDocs(ctx, docsDir, "", "--docs "+docsDir, cache, notice)
		}
	case ok:
		r.Local = func(ctx context.Context) (*ui.LocalDocs, error) {
			return localDocs(ctx, st.Dir, st.Prefix, "last pushed: "+st.Dir, cache, notice)
		}
	}
	return r
}

// demoRemote is the embedded demo's DPE v1 remote: our own remote on a
// temporary store, the read extension on, with the demo library pushed
// into it. It starts the first time the browser opens it (the demo's
// start-up pays nothing for it) and stops with the TUI.
type demoRemote struct {
	// started serialises starts: the first that succeeds is kept; a
	// failed or cancelled one is undone and may be tried again (r).
	started sync.Mutex
	c       *dpev1.Client
	caps    *wire.Capabilities
	// notice is told the converter's notices (the status line).
	notice func(string)

	mu    sync.Mutex
	close []func()
}

func (d *demoRemote) connect(ctx context.Context) (*dpev1.Client, *wire.Capabilities, error) {
	d.started.Lock()
	defer d.started.Unlock()
	if d.c != nil {
		return d.c, d.caps, nil
	}
	c, caps, err := d.start(ctx)
	if err != nil {
		d.stop()
		return nil, nil, err
	}
	d.c, d.caps = c, caps
	return c, caps, nil
}

func (d *demoRemote) onClose(fn func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.close = append(d.close, fn)
}

func (d *demoRemote) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := len(d.close) - 1; i >= 0; i-- {
		d.close[i]()
	}
	d.close = nil
}

func (d *demoRemote) start(ctx context.Context) (*dpev1.Client, *wire.Capabilities, error) {
	tmp, err := os.MkdirTemp("", "dpe-tui-demo-remote-")
	if err != nil {
		return nil, nil, fmt.Errorf("demo remote: %w", err)
	}
	d.onClose(func() { os.RemoveAll(tmp) })
	srv, err := remote.Open(filepath.Join(tmp, "store"), remote.Options{ReadObjects: true})
	if err != nil {
		return nil, nil, err
	}
	d.onClose(func() { srv.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("demo remote: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	d.onClose(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	})
	c, err := dpev1.New("http://"+ln.Addr().String(), dpev1.Options{})
	if err != nil {
		return nil, nil, err
	}
	caps, err := c.Capabilities(ctx)
	if err != nil {
		return nil, nil, err
	}
	lib := filepath.Join(tmp, "library")
	if err := copyFS(lib, library.Corpus()); err != nil {
		return nil, nil, fmt.Errorf("demo remote: %w", err)
	}
	files, _, base, err := pushFiles(lib)
	if err != nil {
		return nil, nil, err
	}
	// push's own steps: convert and hash, batch_head, send what differs.
	conv := convert.New(convert.Options{Notice: d.notice})
	defer conv.Close()
	docs := make([]*localDoc, len(files))
	parallel(2, len(files), func(i int) {
		rel, _ := filepath.Rel(base, files[i])
		docs[i] = buildLocal(ctx, conv, files[i], "file:///demo/library/"+uriPath(rel))
	})
	uris := make([]string, len(docs))
	for i, d := range docs {
		uris[i] = d.uri
	}
	heads, err := c.BatchHead(ctx, uris)
	if err != nil {
		return nil, nil, fmt.Errorf("demo remote: %w", err)
	}
	parallel(2, len(docs), func(i int) { pushOne(ctx, c, caps, docs[i], heads[i], false) })
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return c, caps, nil
}

// copyFS writes the regular files of src under dir.
func copyFS(dir string, src fs.FS) error {
	return fs.WalkDir(src, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if e.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	})
}
