package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/stack"
)

// syncBuffer is a bytes.Buffer a running command writes while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// `computer --url A,B` serves its folder on A; when A dies (SIGKILL of a
// real `serve` process) it moves to B and joins its office there, where an
// agent lists its documents, searches them with the Finder and sees its
// desktop: the one --docs path of serve.
func TestComputer_FailsOverToTheNextURLAndRejoins(t *testing.T) {
	urlA, nodeA := startChildServe(t, "--no-computers")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nodeB, err := stack.Start(ctx, stack.Options{NoComputers: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nodeB.Close() })

	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "harbour-report.md"),
		[]byte("# Harbour report\n\nThe pilot boats logged forty-two crossings of the estuary.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cctx, stop := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runContext(cctx, []string{"computer", "--url", urlA + "," + nodeB.URL, "--office", "o", "--name", "gamma",
			"--docs", docs, "--connect-timeout", "5s"}, &out, &errOut)
	}()
	t.Cleanup(func() {
		stop()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("computer did not stop")
		}
	})
	inOffice := func(url string) func() bool {
		return func() bool {
			code, stdout, _ := runCLI(t, "ls", "computers", "--url="+url, "--office", "o")
			return code == 0 && strings.Contains(stdout, "gamma")
		}
	}
	waitFor(t, "gamma joins o on node A", inOffice(urlA))
	if err := nodeA.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "gamma re-joins o on node B", inOffice(nodeB.URL))
	if !strings.Contains(out.String(), "gamma joined office o") {
		t.Errorf("stdout %q", out.String())
	}

	b := "--url=" + nodeB.URL
	code, stdout, stderr := runCLI(t, "ls", "resources", b, "--office", "o", "--computer", "gamma", "--server", "library")
	if code != 0 || !strings.Contains(stdout, "harbour-report.md") {
		t.Fatalf("ls resources on node B: exit %d\n%s\n%s", code, stdout, stderr)
	}
	waitFor(t, "the Finder finds the report", func() bool {
		code, stdout, _ := runCLI(t, "find", "estuary", b, "--office", "o", "--computer", "gamma")
		return code == 0 && strings.Contains(stdout, "harbour-report.md")
	})
	code, stdout, stderr = runCLI(t, "ls", "desktop", b, "--office", "o", "--computer", "gamma")
	if code != 0 || !strings.Contains(stdout, "window://"+stack.HostLibrary+"/status") {
		t.Fatalf("ls desktop on node B: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
