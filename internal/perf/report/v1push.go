package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dpe-tui/dpe-tui/dpev1"
)

// The DPE v1 push figures: the real binary pushes a folder of 1,000 small
// Markdown documents to a real `remote serve` (a child on a temp store),
// through a proxy here that counts the request bodies; then 1% of them
// are edited and pushed again.
//
//   - push: documents/s of the first push (convert, hash, batch_head,
//     commit), reported.
//   - re-push: body bytes of the writes it sends (negotiate, uploads,
//     commits) ÷ the bytes that changed: of each edited document's new
//     version, the document object and the pages and element objects its
//     old version did not have (read back through the read extension).
//     Goal ≤ 1.5. The batch_head bodies (every URI, to learn which
//     changed) are said beside it, not counted: they are the question, not
//     the delivery.
const (
	v1PushDocs    = 1000
	v1PushEdited  = 10 // 1%
	v1PushTarget  = 1.5
	v1PushTimeout = 5 * time.Minute
)

// wireBytes counts request bodies by kind on their way to the remote.
type wireBytes struct {
	writes, heads atomic.Int64
}

func (w *wireBytes) reset() { w.writes.Store(0); w.heads.Store(0) }

func measureV1Push(bin string) []figure {
	figs, err := v1Push(bin)
	if err != nil {
		return []figure{{"push", "error: " + err.Error(), "-", "≤ 1.5", false}}
	}
	return figs
}

func v1Push(bin string) ([]figure, error) {
	ctx, cancel := context.WithTimeout(context.Background(), v1PushTimeout)
	defer cancel()
	tmp, err := os.MkdirTemp("", "dpe-perf-push-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	base, stop, err := startRemote(ctx, bin, filepath.Join(tmp, "store"))
	if err != nil {
		return nil, err
	}
	defer stop()
	target, _ := url.Parse(base)
	var wb wireBytes
	proxy := httputil.NewSingleHostReverseProxy(target)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := max(r.ContentLength, 0)
		switch {
		case strings.HasSuffix(r.URL.Path, "/heads"):
			wb.heads.Add(n)
		case r.Method == http.MethodPut || r.Method == http.MethodPost:
			wb.writes.Add(n)
		}
		proxy.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()
	remoteURL := "http://" + ln.Addr().String()

	dir := filepath.Join(tmp, "docs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	for i := range v1PushDocs {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%04d.md", i)), []byte(benchDoc(i, "")), 0o600); err != nil {
			return nil, err
		}
	}
	push := func() (time.Duration, error) {
		t0 := time.Now()
		out, err := exec.CommandContext(ctx, bin, "push", dir, "--remote", remoteURL, "--prefix", "file:///bench/").CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("push: %v: %s", err, tail(out, 500))
		}
		return time.Since(t0), nil
	}
	first, err := push()
	if err != nil {
		return nil, err
	}
	c, err := dpev1.New(base, dpev1.Options{})
	if err != nil {
		return nil, err
	}
	held := map[string]map[string]bool{}
	for i := range v1PushEdited {
		uri := fmt.Sprintf("file:///bench/d%04d.md", i*(v1PushDocs/v1PushEdited))
		hs, _, err := skeletonHashes(ctx, c, uri)
		if err != nil {
			return nil, err
		}
		held[uri] = hs
		p := filepath.Join(dir, strings.TrimPrefix(uri, "file:///bench/"))
		if err := os.WriteFile(p, []byte(benchDoc(i*(v1PushDocs/v1PushEdited), "an edited paragraph")), 0o600); err != nil {
			return nil, err
		}
	}
	wb.reset()
	again, err := push()
	if err != nil {
		return nil, err
	}
	sent, heads := wb.writes.Load(), wb.heads.Load()
	var changed int64
	for uri, old := range held {
		now, doc, err := skeletonHashes(ctx, c, uri)
		if err != nil {
			return nil, err
		}
		changed += int64(len(doc))
		for h := range now {
			if old[h] {
				continue
			}
			b, err := c.ReadObject(ctx, h)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", h, err)
			}
			changed += int64(len(b))
		}
	}
	if changed == 0 {
		return nil, errors.New("the edit changed no object")
	}
	ratio := float64(sent) / float64(changed)
	rate := float64(v1PushDocs) / first.Seconds()
	return []figure{
		{"push", fmt.Sprintf("push of %d small Markdown files to remote serve: %s, %.0f documents/s", v1PushDocs, first.Round(time.Millisecond), rate),
			fmt.Sprintf("%.0f/s", rate), "reported", true},
		{"push", fmt.Sprintf("re-push, %d of %d edited (%s): %d bytes of writes ÷ %d bytes changed (batch_head: %d more bytes)",
			v1PushEdited, v1PushDocs, again.Round(time.Millisecond), sent, changed, heads),
			fmt.Sprintf("%.2f", ratio), "≤ 1.5", ratio <= v1PushTarget},
	}, nil
}

// benchDoc is document i: a title and three paragraphs, the second
// replaced by edit when it is set.
func benchDoc(i int, edit string) string {
	second := fmt.Sprintf("The second paragraph of document %d says a little more about it.", i)
	if edit != "" {
		second = edit + fmt.Sprintf(" of document %d.", i)
	}
	return fmt.Sprintf("# Document %d\n\nThe first paragraph of document %d.\n\n%s\n\nA closing paragraph every document shares.\n", i, i, second)
}

// skeletonHashes are the page and element hashes of uri's current
// version, and its document object re-encoded (its size).
func skeletonHashes(ctx context.Context, c *dpev1.Client, uri string) (map[string]bool, []byte, error) {
	res, err := c.GetSkeleton(ctx, uri, "")
	if err != nil {
		return nil, nil, err
	}
	if res.Skeleton == nil {
		return nil, nil, fmt.Errorf("no skeleton of %s", uri)
	}
	hs := map[string]bool{}
	for i, p := range res.Skeleton.Pages {
		hs[res.Skeleton.Document.Pages[i]] = true
		for _, e := range p.Elements {
			hs[e] = true
		}
	}
	doc, err := json.Marshal(res.Skeleton.Document)
	return hs, doc, err
}

// startRemote runs `remote serve --read-objects` on store and returns its
// URL and how to stop it.
func startRemote(ctx context.Context, bin, store string) (string, func(), error) {
	cmd := exec.CommandContext(ctx, bin, "remote", "serve", "--store", store, "--addr", "127.0.0.1:0", "--read-objects")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "DPE v1 remote at "); ok {
				found <- strings.Fields(rest)[0]
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case u := <-found:
		return u, stop, nil
	case <-time.After(30 * time.Second):
		stop()
		return "", nil, errors.New("remote serve printed no URL in 30 s")
	}
}
