package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"

	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// v1doc is a document built as a source would, each object with its hash.
type v1doc struct {
	raw     json.RawMessage
	hash    string
	pages   []json.RawMessage
	objects []json.RawMessage
}

func buildV1(t testing.TB, title string, pages [][]string) *v1doc {
	t.Helper()
	d := &v1doc{}
	var phs []string
	seen := map[string]bool{}
	for i, texts := range pages {
		var els []string
		for _, s := range texts {
			b, _ := json.Marshal(map[string]any{"category": "NarrativeText", "text": s})
			_, h, v := wire.ParseElement(b)
			if v != nil {
				t.Fatal(v)
			}
			if !seen[h] {
				seen[h] = true
				d.objects = append(d.objects, b)
			}
			els = append(els, h)
		}
		pb, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("p%d", i), "page_metadata": map[string]any{"page_label": fmt.Sprint(i + 1)}, "elements": els})
		_, ph, v := wire.ParsePage(pb)
		if v != nil {
			t.Fatal(v)
		}
		d.pages = append(d.pages, pb)
		phs = append(phs, ph)
	}
	db, _ := json.Marshal(map[string]any{"file_type": "md", "title": title, "pages": phs})
	_, h, v := wire.ParseDocument(db)
	if v != nil {
		t.Fatal(v)
	}
	d.raw, d.hash = db, h
	return d
}

func (d *v1doc) inline() *wire.CommitRequest {
	return &wire.CommitRequest{Document: d.raw, Pages: d.pages, Objects: d.objects}
}

// startRemoteServe runs `remote serve` in-process on 127.0.0.1:0 and
// returns its URL; it stops with the test.
func startRemoteServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuf{}
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, append([]string{"remote", "serve", "--addr", "127.0.0.1:0"}, args...), out, out)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("remote serve did not stop")
		}
	})
	deadline := testbudget.Until(t, 20*time.Second)
	for time.Now().Before(deadline) {
		s := out.String()
		if i := strings.Index(s, "DPE v1 remote at "); i >= 0 {
			return strings.Fields(s[i+len("DPE v1 remote at "):])[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("remote serve printed no URL: %q", out.String())
	return ""
}

func commitT(t *testing.T, c *dpev1.Client, uri string, d *v1doc, pre dpev1.Precondition) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Commit(ctx, uri, d.inline(), pre); err != nil {
		t.Fatal(err)
	}
}

func TestRemoteCLI_LsHeadSkeleton(t *testing.T) {
	url := startRemoteServe(t, "--store", t.TempDir(), "--read-objects")
	c, _ := dpev1.New(url, dpev1.Options{})
	a := buildV1(t, "Alpha — α", [][]string{{"one", "two"}, {"three"}})
	b := buildV1(t, "Beta", [][]string{{"four"}})
	commitT(t, c, "file:///d/a.md", a, dpev1.Precondition{IfAbsent: true})
	commitT(t, c, "file:///d/b.md", b, dpev1.Precondition{IfAbsent: true})
	commitT(t, c, "file:///e/c.md", b, dpev1.Precondition{IfAbsent: true})

	code, out, errOut := runCLI(t, "remote", "ls", url, "file:///d/")
	if code != 0 || out != a.hash+"  file:///d/a.md\n"+b.hash+"  file:///d/b.md\n" {
		t.Fatalf("remote ls: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "remote", "ls", url, "--json")
	var entries []wire.ListEntry
	if code != 0 || json.Unmarshal([]byte(out), &entries) != nil || len(entries) != 3 {
		t.Fatalf("remote ls --json: exit %d %q", code, out)
	}
	code, out, _ = runCLI(t, "remote", "head", url, "file:///d/b.md")
	if code != 0 || out != b.hash+"  file:///d/b.md\n" {
		t.Fatalf("remote head: exit %d %q", code, out)
	}
	code, out, _ = runCLI(t, "remote", "head", url, "file:///d/a.md", "file:///none", "FILE:///e/c.md")
	if code != 0 || out != a.hash+"  file:///d/a.md\n-  file:///none\n"+b.hash+"  FILE:///e/c.md\n" {
		t.Fatalf("remote head (batch): exit %d %q", code, out)
	}
	code, out, _ = runCLI(t, "remote", "skeleton", url, "file:///d/a.md")
	for _, want := range []string{"doc_hash  " + a.hash, "title     Alpha — α", "page 1  ", "2 elements  p0", `metadata {"page_label":"2"}`} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("remote skeleton: exit %d, no %q in\n%s", code, want, out)
		}
	}
	code, out, _ = runCLI(t, "remote", "skeleton", url, "file:///d/a.md", "--json")
	var sk struct {
		DocHash string `json:"doc_hash"`
		Pages   []struct {
			Elements []string `json:"elements"`
		} `json:"pages"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &sk) != nil || sk.DocHash != a.hash || len(sk.Pages) != 2 {
		t.Fatalf("remote skeleton --json: exit %d %q", code, out)
	}
	// A protocol error exits 3 and names its code.
	code, _, errOut = runCLI(t, "remote", "skeleton", url, "file:///none")
	if code != exitProtocol || !strings.Contains(errOut, "DPE_NOT_FOUND") {
		t.Fatalf("skeleton of nothing: exit %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "remote", "head", url, "not a uri")
	if code != exitProtocol || !strings.Contains(errOut, "DPE_VALIDATION") {
		t.Fatalf("head of a bad URI: exit %d %q", code, errOut)
	}
	// cat reads an element through the read extension, verified.
	code, out, errOut = runCLI(t, "remote", "cat", url, sk.Pages[0].Elements[1])
	if code != 0 || strings.TrimSpace(out) != `{"category":"NarrativeText","text":"two"}` {
		t.Fatalf("remote cat: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "remote", "mv", url, "file:///d/b.md", "file:///d/b2.md")
	if code != 0 || out != b.hash+"  file:///d/b2.md\n" {
		t.Fatalf("remote mv: exit %d %q %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "remote", "mv", url, "file:///d/a.md", "file:///d/b2.md")
	if code != exitProtocol || !strings.Contains(errOut, "DPE_ALREADY_EXISTS") {
		t.Fatalf("mv onto a document: exit %d %q", code, errOut)
	}
}

func TestRemoteCLI_TokenFromTheProfileGoesToItsRemoteOnly(t *testing.T) {
	t.Setenv("T_REMOTE_SERVE_TOKEN", "s3cret")
	url := startRemoteServe(t, "--store", t.TempDir(), "--token-env", "T_REMOTE_SERVE_TOKEN")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, fmt.Sprintf("[profiles.dpe]\nremote = %q\nremote_token_cmd = \"echo s3cret\"\n\n[profiles.other]\nremote = \"http://127.0.0.1:1\"\nremote_token_env = \"T_REMOTE_SERVE_TOKEN\"\n", url))
	// A 401 says what the remote wants and how to give it.
	if code, _, errOut := runCLI(t, "remote", "ls", url); code != exitRuntime || !strings.Contains(errOut, "401") ||
		strings.Count(errOut, "bearer token") != 1 || !strings.Contains(errOut, "remote_token_env") || !strings.Contains(errOut, "--profile") ||
		!strings.Contains(errOut, "--token-env VAR") {
		t.Fatalf("without a token: exit %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "--config", cfg, "--profile", "dpe", "remote", "ls", url); code != 0 {
		t.Fatalf("with the profile's token: exit %d %q", code, errOut)
	}
	// Without a URL, the profile's remote is the one listed and pushed to.
	docs := t.TempDir()
	writeFile(t, filepath.Join(docs, "p.md"), "# P\n\nby profile\n")
	if code, out, errOut := runCLI(t, "--config", cfg, "--profile", "dpe", "push", docs, "--prefix", "file:///prof/"); code != 0 || !strings.Contains(out, "1 created") {
		t.Fatalf("push with the profile's remote: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "--config", cfg, "--profile", "dpe", "remote", "ls", "file:///prof/"); code != 0 || !strings.Contains(out, "file:///prof/p.md") {
		t.Fatalf("remote ls with the profile's remote: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "--config", cfg, "--profile", "other", "remote", "ls", url); code != exitRuntime || !strings.Contains(errOut, "401") {
		t.Fatalf("another remote's token was sent: exit %d %q", code, errOut)
	}
}

// TestRemoteServe_KillDuringCommitLeavesOldOrNew kills a `remote serve`
// child with SIGKILL while a large commit is on its way and reopens the
// store: the document is wholly the old one or wholly the new one, every
// object it references readable and verified, never a mix.
func TestRemoteServe_KillDuringCommitLeavesOldOrNew(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a child remote eight times")
	}
	store := t.TempDir()
	uri := "file:///crash/doc.md"
	var old, new *v1doc
	seen := map[string]int{}
	bigDoc := func(round int) *v1doc {
		// 200 pages, ~ 450 KiB inline.
		pages := make([][]string, 200)
		for i := range pages {
			pages[i] = []string{fmt.Sprintf("round %d page %d %s", round, i, strings.Repeat("x", 2000))}
		}
		return buildV1(t, fmt.Sprint("new ", round), pages)
	}
	// How long one such commit takes here: the kills are spread over it
	// (derived from this machine, not a fixed budget).
	var full time.Duration
	const rounds = 6
	for round := range rounds {
		url, child := startRemoteChild(t, store)
		c, _ := dpev1.New(url, dpev1.Options{Timeout: 20 * time.Second, MaxRetries: -1})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		if round > 0 {
			state := verifyWhole(ctx, t, c, uri, old, new)
			seen[state]++
			if state == "new" {
				old = new
			}
		} else {
			old = buildV1(t, "old", [][]string{{"start"}})
			if _, err := c.Commit(ctx, uri, old.inline(), dpev1.Precondition{IfAbsent: true}); err != nil {
				t.Fatal(err)
			}
			probe := bigDoc(-1)
			start := time.Now()
			if _, err := c.Commit(ctx, "file:///crash/probe.md", probe.inline(), dpev1.Precondition{IfAbsent: true}); err != nil {
				t.Fatal(err)
			}
			full = time.Since(start)
		}
		// Each round sends a new version and kills the child after a
		// delay that moves from the start of the commit past its end.
		new = bigDoc(round)
		req := new.inline()
		delay := full * time.Duration(round) / (rounds - 2)
		errc := make(chan error, 1)
		go func() {
			_, err := c.Commit(ctx, uri, req, dpev1.Precondition{BaseHash: old.hash})
			errc <- err
		}()
		time.Sleep(delay)
		_ = child.Process.Signal(syscall.SIGKILL)
		_ = child.Wait()
		err := <-errc
		cancel()
		t.Logf("round %d: SIGKILL %v into a commit that takes %v: %v", round, delay, full, err)
	}
	url, _ := startRemoteChild(t, store)
	c, _ := dpev1.New(url, dpev1.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	seen[verifyWhole(ctx, t, c, uri, old, new)]++
	t.Logf("states found after a kill: %v", seen)
}

// verifyWhole reads the document after a crash: it must be old or new,
// with every page and element object present and verified.
func verifyWhole(ctx context.Context, t *testing.T, c *dpev1.Client, uri string, old, new *v1doc) string {
	t.Helper()
	res, err := c.GetSkeleton(ctx, uri, "")
	if err != nil {
		t.Fatalf("skeleton after the kill: %v", err) // a page missing or changed fails the verification here
	}
	state := ""
	switch res.DocHash {
	case old.hash:
		state = "old"
	case new.hash:
		state = "new"
	default:
		t.Fatalf("after the kill the document is %s: neither old %s nor new %s", res.DocHash, old.hash, new.hash)
	}
	for _, p := range res.Skeleton.Pages {
		for _, e := range p.Elements {
			if _, err := c.ReadObject(ctx, e); err != nil {
				t.Fatalf("%s document, element %s: %v", state, e, err)
			}
		}
	}
	return state
}

// startRemoteChild runs `dpe-tui remote serve` as a child process (the
// test binary is dpe-tui with DPE_TUI_TEST_MAIN=1).
func startRemoteChild(t *testing.T, store string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "remote", "serve", "--addr", "127.0.0.1:0", "--store", store, "--read-objects")
	cmd.Env = append(os.Environ(), "DPE_TUI_TEST_MAIN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "DPE v1 remote at "); ok {
				urls <- strings.Fields(u)[0]
			}
		}
	}()
	select {
	case u := <-urls:
		return u, cmd
	case <-time.After(testbudget.Left(t, 30*time.Second)):
		t.Fatal("remote serve child printed no URL")
	}
	return "", nil
}

// remote serve beyond loopback: refused without a token unless
// --insecure-bind, and then it warns (as mcp --http does).
func TestRemoteServe_BeyondLoopbackNeedsATokenOrInsecureBind(t *testing.T) {
	code, _, errOut := runCLI(t, "remote", "serve", "--store", t.TempDir(), "--addr", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(errOut, "beyond loopback") || !strings.Contains(errOut, "--insecure-bind") {
		t.Fatalf("exit %d %q", code, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuf
	done := make(chan error, 1)
	go func() {
		done <- runRemoteServe(ctx, &remoteServeFlags{store: t.TempDir(), addr: "0.0.0.0:0", insecureBind: true}, &out, &errb)
	}()
	deadline, _ := t.Deadline()
	for !strings.Contains(out.String(), "DPE v1 remote at") && time.Now().Before(deadline.Add(-5*time.Second)) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "WARN remote serve listens beyond loopback without a token") {
		t.Fatalf("no warning: %q / %q", out.String(), errb.String())
	}
}

// A second remote serve on a store in use says so, not "timeout".
func TestRemoteServe_StoreInUseIsSaid(t *testing.T) {
	store := t.TempDir()
	startRemoteServe(t, "--store", store)
	code, _, errOut := runCLI(t, "remote", "serve", "--store", store, "--addr", "127.0.0.1:0")
	if code != exitRuntime || !strings.Contains(errOut, "is in use by another process") || strings.Contains(errOut, "timeout") {
		t.Fatalf("exit %d %q", code, errOut)
	}
}

// remote mv of a document that is not there is the binding's
// DPE_NOT_FOUND: a protocol error (exit 3), its code said once.
func TestRemoteMv_MissingDocumentIsExit3(t *testing.T) {
	url := startRemoteServe(t, "--store", t.TempDir())
	code, _, errOut := runCLI(t, "remote", "mv", url, "file:///nope.md", "file:///other.md")
	if code != exitProtocol || strings.Count(errOut, "DPE_NOT_FOUND") != 1 {
		t.Fatalf("exit %d %q", code, errOut)
	}
}

// The remote's refusal of an object names its code once, then where and
// why (it was "DPE_VALIDATION: DPE_VALIDATION at …").
func TestRemote_RefusalSaysItsCodeOnce(t *testing.T) {
	url := startRemoteServe(t, "--store", t.TempDir())
	c, err := dpev1.New(url, dpev1.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Commit(t.Context(), "file:///x.md", &wire.CommitRequest{Document: json.RawMessage(`{"file_type":"md","pages":[],"titel":"x"}`)},
		dpev1.Precondition{IfAbsent: true})
	if !errors.Is(err, wire.CodeValidation) || strings.Count(err.Error(), "DPE_VALIDATION") != 1 || !strings.Contains(err.Error(), "titel") {
		t.Fatalf("%v", err)
	}
}
