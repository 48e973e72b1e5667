package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/internal/s3test"
	"github.com/dpe-tui/dpe-tui/stack"
)

func TestS3Flags_CheckedAgainstTheResolver(t *testing.T) {
	cases := []struct {
		args     []string
		resolver string
		want     string // "" = accepted
	}{
		{[]string{"--s3-endpoint", "http://127.0.0.1:9", "--s3-bucket", "b"}, "s3", ""},
		{[]string{"--s3-endpoint", "http://127.0.0.1:9", "--s3-bucket", "b", "--s3-expiry", "2s", "--s3-prefix", "p/"}, "s3", ""},
		{[]string{"--s3-bucket", "b"}, "s3", "--resolver s3 needs --s3-endpoint URL (or DPE_TUI_S3_ENDPOINT)"},
		{[]string{"--s3-endpoint", "http://127.0.0.1:9"}, "s3", "--resolver s3 needs --s3-bucket NAME"},
		{[]string{"--s3-endpoint", "http://127.0.0.1:9", "--s3-bucket", "b", "--s3-expiry", "8d"}, "s3", "invalid argument"},
		{[]string{"--s3-endpoint", "http://127.0.0.1:9", "--s3-bucket", "b", "--s3-expiry", "200h"}, "s3", "--s3-expiry must be between 1s and 168h0m0s, not 200h0m0s"},
		{[]string{"--s3-endpoint", "127.0.0.1:9", "--s3-bucket", "b"}, "s3", "--s3-endpoint: endpoint 127.0.0.1:9: want an http:// or https:// URL"},
		{[]string{"--s3-bucket", "b"}, "http", "--s3-bucket need --resolver s3"},
		{nil, "http", ""},
	}
	for _, c := range cases {
		t.Setenv("DPE_TUI_S3_ENDPOINT", "")
		var o computer.S3ResolverOptions
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		check := addS3Flags(fs, &o)
		err := fs.Parse(c.args)
		if err == nil {
			err = applyEnv(fs)
		}
		if err == nil {
			err = check(c.resolver)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
		}
		var ue *usageError
		if c.want != "" && err != nil && !strings.Contains(c.want, "invalid argument") && !errors.As(err, &ue) {
			t.Errorf("%v: %v is not a usage error (exit 2)", c.args, err)
		}
	}
	// The endpoint defaults to the agent's variable.
	t.Setenv("DPE_TUI_S3_ENDPOINT", "http://127.0.0.1:9")
	var o computer.S3ResolverOptions
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	check := addS3Flags(fs, &o)
	if err := applyEnv(fs); err != nil {
		t.Fatal(err)
	}
	// Set from the environment, not on the command line: not refused
	// without --resolver s3 (the agent reads the same variable).
	if err := check("http"); err != nil {
		t.Errorf("DPE_TUI_S3_ENDPOINT with --resolver http: %v", err)
	}
	if o.Endpoint != "http://127.0.0.1:9" || o.Expiry != computer.DefaultResolverTTL {
		t.Errorf("defaults: %+v", o)
	}
}

// TestGet_ThroughTheS3Resolver: the stack's computers upload to a real S3
// server and `dpe-tui get` reads the document through the presigned URL.
func TestGet_ThroughTheS3Resolver(t *testing.T) {
	srv := s3test.Start(t)
	srv.MakeBucket(t, "office")
	srv.SetEnv(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "guide.md"), []byte("# Guide\n\nStored in the bucket.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := stack.Start(ctx, stack.Options{DocsDir: dir, Resolver: "s3",
		S3: computer.S3ResolverOptions{Endpoint: srv.Endpoint, Bucket: "office", Prefix: "demo/", Expiry: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	code, out, errOut := runCLI(t, "get", "dpe://io.github.dpetui.library/guide.md", "--url="+st.URL, "--format", "text")
	if code != 0 || !strings.Contains(out, "Stored in the bucket.") {
		t.Fatalf("get: exit %d\n%s%s", code, out, errOut)
	}
	keys := srv.Keys(t, "office", "demo/")
	if len(keys) != 1 || !strings.HasSuffix(keys[0], ".json") {
		t.Errorf("bucket holds %v, want the one uploaded document", keys)
	}
}

// TestGet_S3AccessURI: `dpe-tui get s3://bucket/key` reads with the SDK,
// and without credentials says which variable is missing, in one line.
func TestGet_S3AccessURI(t *testing.T) {
	srv := s3test.Start(t)
	srv.MakeBucket(t, "shared")
	srv.Put(t, "shared", "team/doc.json", "application/json",
		[]byte(`{"file_type":"md","pages":[{"page_index":0,"elements":[{"category":"NarrativeText","text":"shared by s3"}]}]}`))
	srv.SetEnv(t)
	code, out, errOut := runCLI(t, "get", "s3://shared/team/doc.json", "--format", "text")
	if code != 0 || !strings.Contains(out, "shared by s3") {
		t.Fatalf("get s3://: exit %d\n%s%s", code, out, errOut)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	code, _, errOut = runCLI(t, "get", "s3://shared/team/doc.json")
	if code != exitRuntime || strings.Count(strings.TrimSpace(errOut), "\n") != 0 ||
		!strings.Contains(errOut, "s3:// access URI: AWS_SECRET_ACCESS_KEY is not set") {
		t.Errorf("no secret: exit %d, stderr %q", code, errOut)
	}
}
