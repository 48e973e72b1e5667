package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpev1"
)

// remote's help shows each command's arguments in the order it takes
// them: the remote URL first.
func TestRemoteHelp_ArgumentOrder(t *testing.T) {
	code, out, errOut := runCLI(t, "remote", "--help")
	if code != exitOK {
		t.Fatalf("remote --help: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"head URL URI…", "skeleton URL URI", "ls [URL] [PREFIX]", "mv URL FROM TO", "cat URL HASH"} {
		if !strings.Contains(out, want) {
			t.Errorf("remote --help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "URI… [URL]") || strings.Contains(out, "URI [URL]") {
		t.Errorf("remote --help puts the URL after the file_uris:\n%s", out)
	}
}

// remote head with some file_uris the remote would refuse: each is its
// own line naming the character at fault (a non-ASCII one whole), the
// others are answered, and the exit says not all were.
func TestRemoteHead_BadURIsAreTheirOwnLines(t *testing.T) {
	url := startRemoteServe(t, "--store", t.TempDir())
	c, _ := dpev1.New(url, dpev1.Options{})
	a := buildV1(t, "A", [][]string{{"one"}})
	commitT(t, c, "file:///d/a.md", a, dpev1.Precondition{IfAbsent: true})
	// café is an IRI, encoded as push encodes names; "a b" and "not a
	// uri" are what a remote refuses.
	code, out, errOut := runCLI(t, "remote", "head", url, "file:///d/a.md", "file:///d/café.md", "file:///d/a b.md", "file:///none", "not a uri")
	if code != exitProtocol || out != a.hash+"  file:///d/a.md\n-  file:///d/caf%C3%A9.md\n-  file:///none\n" {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	for _, want := range []string{`character " " must be percent-encoded`, "does not start with a scheme", "2 of 5 file_uris refused (DPE_VALIDATION), the rest answered"} {
		if strings.Count(errOut, want) != 1 {
			t.Errorf("stderr lacks one %q:\n%s", want, errOut)
		}
	}
	code, _, errOut = runCLI(t, "remote", "head", url, "file:///d/a b.md")
	if code != exitProtocol || !strings.Contains(errOut, "DPE_VALIDATION") || !strings.Contains(errOut, `" "`) {
		t.Fatalf("one bad file_uri: exit %d %q", code, errOut)
	}
}

// Our own remote's 401 is a problem (RFC 9457) without a DPE code, and is
// said as one: its detail, and the way to send a token — not "not a DPE
// answer".
func TestRemote_Own401IsSaidAsTheProblemItIs(t *testing.T) {
	t.Setenv("T_REMOTE_401_TOKEN", "s3cret")
	url := startRemoteServe(t, "--store", t.TempDir(), "--token-env", "T_REMOTE_401_TOKEN")
	code, _, errOut := runCLI(t, "remote", "ls", url)
	if code != exitRuntime || !strings.Contains(errOut, "HTTP 401 Unauthorized: this remote needs a bearer token") ||
		strings.Contains(errOut, "not a DPE answer") || !strings.Contains(errOut, "remote_token_env") {
		t.Fatalf("exit %d %q", code, errOut)
	}
}

// The remote browser at 80 columns shows a folder's STATE whole (its
// counts of stale, local-only and remote-only documents), the long NAME
// giving way, instead of a fixed STATE cut at 24 cells; no line is wider
// than the terminal.
func TestRemoteTUI_StateWholeAt80Columns(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end TUI test")
	}
	bin := buildBinary(t)
	url := startRemoteServe(t, "--store", t.TempDir())
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "notes"), 0o700)
	for i := range 5 {
		writeFile(t, filepath.Join(dir, "notes", fmt.Sprintf("n%d.md", i)), fmt.Sprintf("# N%d\n\ntext %d\n", i, i))
	}
	cache := isolatedCache(t)
	if code, out, errOut := runCLI(t, "push", dir, "--remote", url); code != 0 {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	writeFile(t, filepath.Join(dir, "notes", "n0.md"), "# N0\n\nchanged\n")
	writeFile(t, filepath.Join(dir, "notes", "n1.md"), "# N1\n\nchanged\n")
	writeFile(t, filepath.Join(dir, "notes", "new.md"), "# New\n\nx\n")
	os.Remove(filepath.Join(dir, "notes", "n4.md"))
	s := newTmux(t, 80, 24, fmt.Sprintf("XDG_CACHE_HOME=%s %s --remote %s --docs %s; sleep 600", cache, bin, url, dir))
	screen := s.waitFor("the folder row", "6 docs · 2 stale 1 local 1 remote")
	for _, line := range strings.Split(screen, "\n") {
		if w := len([]rune(line)); w > 80 {
			t.Errorf("a line of %d cells:\n%s", w, screen)
		}
	}
}

// Every command that takes a file_uri encodes an IRI as push encodes a
// name (non-ASCII as UTF-8 percent-escapes), and a prefix is a folder for
// ls as for push: what push stored under 'file:///ünï/' is found by ls
// (with or without the /), head, skeleton and mv as typed.
func TestRemote_IRIsAreEncodedAsPushEncodesNames(t *testing.T) {
	_, url, _ := remoteWithCounter(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "Résumé.md")
	writeFile(t, src, "# CV\n\nText.\n")
	writeFile(t, filepath.Join(dir, "other.md"), "# Other\n")
	if code, out, errOut := runPush(t, "push", dir, "--remote", url, "--prefix", "file:///ünï"); code != 0 {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	const stored = "file:///%C3%BCn%C3%AF/R%C3%A9sum%C3%A9.md"
	// hash --file-uri prints what a remote compares, and a remote refuses
	// a raw IRI: it names the URI to give.
	code, out, errOut := runCLI(t, "hash", src, "--file-uri", "file:///ünï/Résumé.md")
	if code != exitUsage || !strings.Contains(errOut, `--file-uri: file_uri: character "ü" must be percent-encoded (UTF-8) first, as a remote compares it: give `+stored+" (push and remote encode it themselves)") ||
		strings.Count(errOut, "%C3%BC") != 1 {
		t.Errorf("hash --file-uri: exit %d %q %s", code, out, errOut)
	}
	doc := hashOf(t, src)
	for _, prefix := range []string{"file:///ünï/", "file:///ünï"} {
		code, out, errOut = runCLI(t, "remote", "ls", url, prefix)
		if code != exitOK || !strings.Contains(out, doc+"  "+stored+"\n") || strings.Count(out, "\n") != 2 {
			t.Errorf("remote ls %s: exit %d %q %s", prefix, code, out, errOut)
		}
	}
	// A prefix is a folder: file:///ün is not file:///ünï/.
	if code, out, errOut = runCLI(t, "remote", "ls", url, "file:///ün"); code != exitOK || out != "" {
		t.Errorf("remote ls file:///ün: exit %d %q %s", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, "remote", "head", url, "file:///ünï/Résumé.md"); code != exitOK || out != doc+"  "+stored+"\n" {
		t.Errorf("remote head: exit %d %q %s", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, "remote", "skeleton", url, "file:///ünï/Résumé.md"); code != exitOK || !strings.Contains(out, doc) {
		t.Errorf("remote skeleton: exit %d %q %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "remote", "mv", url, "file:///ünï/Résumé.md", "file:///ünï/ü.md")
	if code != exitOK || out != doc+"  file:///%C3%BCn%C3%AF/%C3%BC.md\n" {
		t.Errorf("remote mv: exit %d %q %s", code, out, errOut)
	}
}

// head and mv print JSON with --json as ls and skeleton do; cat refuses a
// blob only on a terminal (a redirect to /dev/null, a character device, is
// no terminal), and a doc_hash given to cat is said to be a document's.
func TestRemoteCLI_JSONForHeadAndMvAndCatsRedirect(t *testing.T) {
	url := startRemoteServe(t, "--store", t.TempDir(), "--read-objects")
	dir := t.TempDir()
	b, err := os.ReadFile("../../library/corpus/images/gradient.dpe.json")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "g.dpe.json"), string(b))
	if code, out, errOut := runPush(t, "push", dir, "--remote", url, "--prefix", "file:///i/"); code != 0 {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	doc := hashOf(t, filepath.Join(dir, "g.dpe.json"))
	code, out, errOut := runCLI(t, "remote", "head", url, "file:///i/g.dpe.json", "file:///none", "--json")
	var heads []struct {
		FileURI string  `json:"file_uri"`
		DocHash *string `json:"doc_hash"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &heads) != nil || len(heads) != 2 || heads[0].DocHash == nil ||
		*heads[0].DocHash != doc || heads[1].FileURI != "file:///none" || heads[1].DocHash != nil {
		t.Errorf("head --json: exit %d %q %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "remote", "mv", url, "file:///i/g.dpe.json", "file:///i/h.dpe.json", "--json")
	var mv struct {
		FileURI string `json:"file_uri"`
		DocHash string `json:"doc_hash"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &mv) != nil || mv.FileURI != "file:///i/h.dpe.json" || mv.DocHash != doc {
		t.Errorf("mv --json: exit %d %q %s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "remote", "skeleton", url, "file:///i/h.dpe.json", "--json")
	var sk struct {
		Pages []struct{ Elements []string } `json:"pages"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &sk) != nil || len(sk.Pages) == 0 {
		t.Fatalf("skeleton: exit %d %q", code, out)
	}
	blob := ""
	for _, e := range sk.Pages[0].Elements {
		_, el, _ := runCLI(t, "remote", "cat", url, e)
		var o struct{ Blob string }
		if json.Unmarshal([]byte(el), &o) == nil && o.Blob != "" {
			blob = o.Blob
		}
	}
	if blob == "" {
		t.Fatal("no Image element with a blob in the pushed demo image")
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var errb strings.Builder
	if code := run([]string{"remote", "cat", url, blob}, null, &errb); code != exitOK {
		t.Errorf("cat BLOB > /dev/null: exit %d %s", code, errb.String())
	}
	code, _, errOut = runCLI(t, "remote", "cat", url, doc)
	if code != exitProtocol || !strings.Contains(errOut, "a doc_hash is a document's (remote skeleton URL URI prints it)") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("cat DOC_HASH: exit %d %q", code, errOut)
	}
}

// --token-env VAR gives push and remote the remote's token from the
// environment (never on the command line); a 401 says the token is
// wanted once, and a profile whose remote is written otherwise than the
// URL given is named as the reason, not "pass --profile" again.
func TestRemoteCLI_TokenEnvAnd401SaidOnce(t *testing.T) {
	t.Setenv("T_TOKEN_ENV_SERVE", "s3cret")
	t.Setenv("T_TOKEN_ENV_WRONG", "nope")
	url := startRemoteServe(t, "--store", t.TempDir(), "--token-env", "T_TOKEN_ENV_SERVE")
	docs := t.TempDir()
	writeFile(t, filepath.Join(docs, "p.md"), "# P\n")
	if code, out, errOut := runPush(t, "push", docs, "--remote", url, "--prefix", "file:///t/", "--token-env", "T_TOKEN_ENV_SERVE"); code != 0 || !strings.Contains(out, "1 created") {
		t.Fatalf("push --token-env: exit %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{{"ls", url, "file:///t/"}, {"head", url, "file:///t/p.md"}, {"skeleton", url, "file:///t/p.md"}} {
		args = append(append([]string{"remote"}, args...), "--token-env", "T_TOKEN_ENV_SERVE")
		if code, out, errOut := runCLI(t, args...); code != 0 || !strings.Contains(out, "file:///t/p.md") {
			t.Errorf("%v: exit %d %q %s", args, code, out, errOut)
		}
	}
	code, _, errOut := runCLI(t, "remote", "ls", url, "--token-env", "T_TOKEN_ENV_WRONG")
	if code != exitRuntime || strings.Count(errOut, "bearer token") != 1 || !strings.Contains(errOut, "the token in T_TOKEN_ENV_WRONG was refused") {
		t.Errorf("a wrong token: exit %d %q", code, errOut)
	}
	if code, _, errOut = runCLI(t, "remote", "ls", url, "--token-env", "T_TOKEN_ENV_UNSET"); code != exitUsage || !strings.Contains(errOut, "T_TOKEN_ENV_UNSET: the variable is empty or unset") {
		t.Errorf("an unset variable: exit %d %q", code, errOut)
	}
	other := strings.Replace(url, "127.0.0.1", "localhost", 1)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	writeFile(t, cfg, fmt.Sprintf("[profiles.lan]\nremote = %q\nremote_token_env = \"T_TOKEN_ENV_SERVE\"\n", other))
	code, _, errOut = runCLI(t, "--config", cfg, "--profile", "lan", "remote", "ls", url)
	if code != exitRuntime || strings.Count(errOut, "bearer token") != 1 || strings.Contains(errOut, "pass --profile") ||
		!strings.Contains(errOut, "profile lan sends its token only to its remote "+other) {
		t.Errorf("a profile of another URL: exit %d %q", code, errOut)
	}
}

// push's and the remote client's help list only the root flags that do
// something there (no SMCP server, office or agent), push has no -v (that
// is dpe-tui's --version), and a one-element page says "1 element".
func TestPushAndRemoteHelp_OnlyTheirFlags(t *testing.T) {
	for _, args := range [][]string{{"push", "--help"}, {"remote", "ls", "--help"}, {"remote", "head", "--help"}} {
		code, out, _ := runCLI(t, args...)
		for _, gone := range []string{"--office", "--mcp-config", "--a2c-version", "--path", "-v "} {
			if code != exitOK || strings.Contains(out, gone) {
				t.Errorf("%v: exit %d, lists %q:\n%s", args, code, gone, out)
			}
		}
		if !strings.Contains(out, "--token-env") || !strings.Contains(out, "--profile") {
			t.Errorf("%v lacks --token-env or --profile:\n%s", args, out)
		}
	}
	url := startRemoteServe(t, "--store", t.TempDir())
	c, _ := dpev1.New(url, dpev1.Options{})
	commitT(t, c, "file:///d/one.md", buildV1(t, "One", [][]string{{"x"}}), dpev1.Precondition{IfAbsent: true})
	if code, out, errOut := runCLI(t, "remote", "skeleton", url, "file:///d/one.md"); code != exitOK || !strings.Contains(out, "  1 element") || strings.Contains(out, "1 elements") {
		t.Errorf("skeleton: exit %d %q %s", code, out, errOut)
	}
}
