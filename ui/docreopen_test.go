package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/s3test"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// reresolvingAgent is the fake office whose get_dpe answers come from
// resolve (a slowed or re-versioned answer, or a real S3 resolver).
type reresolvingAgent struct {
	*fakeAgent
	resolve func(ctx context.Context, computer, uri string) (dpe.Access, error)
}

func (a *reresolvingAgent) Resolver(computer string) dpe.Resolver {
	return dpe.ResolverFunc(func(ctx context.Context, uri string) (dpe.Access, error) {
		return a.resolve(ctx, computer, uri)
	})
}

// manifestPages is a manifest document of n pages whose page i lives in
// p<i>.json next to it and says "marker page <i+1>".
func manifestPages(t *testing.T, dir string, n int, skip int) []byte {
	t.Helper()
	entries := make([]any, n)
	for i := range n {
		name := fmt.Sprintf("p%d.json", i)
		entries[i] = map[string]any{"page_index": i, "title": fmt.Sprintf("Part %d", i+1), "uri": name, "element_count": 1}
		if i == skip {
			continue // a page the store lost
		}
		page := fmt.Sprintf(`{"page_index":%d,"elements":[{"category":"NarrativeText","text":"marker page %d"}]}`, i, i+1)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(map[string]any{"doc_ref": "parts", "title": "Parts", "page_count": n, "pages": entries})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The race probe: a page whose fetch fails makes a command call get_dpe
// again, slowly, and the answer names another version; meanwhile the
// screen goes on drawing the document (its crumb names the computer the
// access came from) and more keys arrive. Run with -race: a command that
// writes the open document's access or page index while View reads it
// shows up here. The pages after the failed one must still show their
// elements.
func TestRace_ReResolveWhileTheDocumentIsDrawn(t *testing.T) {
	f := newFakeAgent(t)
	doc := filepath.Join(f.dir, "parts.json")
	if err := os.WriteFile(doc, manifestPages(t, f.dir, 4, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	f.docs[reportURI] = doc // the listing's "Annual report" is this document
	var mu sync.Mutex
	calls := 0
	plain := f.fakeAgentResolver()
	a := &reresolvingAgent{fakeAgent: f, resolve: func(ctx context.Context, computer, u string) (dpe.Access, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		acc, err := plain(ctx, computer, u)
		if n > 1 {
			select { // the second get_dpe is slow, and names another version
			case <-time.After(300 * time.Millisecond):
			case <-ctx.Done():
				return dpe.Access{}, ctx.Err()
			}
			acc.ETag = fmt.Sprintf(`"v%d"`, n)
		}
		return acc, err
	}}
	s := start(t, testOptions(a))
	s.toResources()
	s.keys("enter")
	s.waitFor("marker page 1")
	s.keys("]") // page 2: its file is gone → get_dpe again
	for range 20 {
		s.keys("j", "k")
	}
	s.keys("]") // page 3, while page 2's re-resolve may still run
	s.waitUntil("page 3's elements", func(f string) bool {
		return strings.Contains(f, "marker page 3") || strings.Contains(f, "empty page")
	})
	frame := s.final()
	if !strings.Contains(frame, "marker page 3") {
		t.Fatalf("page 3 after a re-resolve lost its elements:\n%s", frame)
	}
}

// fakeAgentResolver is the fake office's own get_dpe, as a function.
func (f *fakeAgent) fakeAgentResolver() func(ctx context.Context, computer, uri string) (dpe.Access, error) {
	return func(ctx context.Context, computer, uri string) (dpe.Access, error) {
		return f.Resolver(computer).Resolve(ctx, uri)
	}
}

// A document served by the S3 resolver in manifest mode with 2 s
// presigns, browsed past its expiry: the page fetched after it gets 403,
// the browser calls get_dpe once more, and the pages after the expiry
// show their elements (the re-presigned manifest is the same document,
// not "0 elements").
func TestS3_PagesAfterThePresignExpiredRenderTheirElements(t *testing.T) {
	srv := s3test.Start(t)
	srv.MakeBucket(t, "docs")
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, time.Minute))
	defer cancel()
	r, err := computer.NewS3Resolver(ctx, computer.S3ResolverOptions{Endpoint: srv.Endpoint, Bucket: "docs", Getenv: srv.Getenv,
		Expiry: 2 * time.Second, ManifestThreshold: 256})
	if err != nil {
		t.Fatal(err)
	}
	pages := make([]any, 4)
	for i := range pages {
		pages[i] = map[string]any{"page_index": i, "title": fmt.Sprintf("Part %d", i+1), "elements": []any{
			map[string]any{"element_id": fmt.Sprintf("e%d", i), "category": "NarrativeText", "text": fmt.Sprintf("marker page %d %s", i+1, strings.Repeat("x", 200))}}}
	}
	body, err := json.Marshal(map[string]any{"doc_ref": "parts", "title": "Parts", "page_count": 4, "pages": pages})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var first string
	a := &reresolvingAgent{fakeAgent: newFakeAgent(t), resolve: func(ctx context.Context, who, u string) (dpe.Access, error) {
		out, err := r.Resolve(ctx, protocol.A2CResource{URI: u, Name: "Parts"},
			computer.Contents{Kind: computer.ContentsInline, Document: body}, computer.Hint{})
		if err != nil {
			return dpe.Access{}, err
		}
		acc := dpe.Access{URI: out.URI, MimeType: out.MimeType, Size: -1, Computer: who}
		if out.Size != nil {
			acc.Size = *out.Size
		}
		if out.Meta != nil {
			acc.ETag = out.Meta.ETag
			acc.ExpiresAt, _ = time.Parse(time.RFC3339, out.Meta.ExpiresAt)
		}
		mu.Lock()
		if first == "" {
			first = acc.URI
		}
		mu.Unlock()
		return acc, nil
	}}
	opt := testOptions(a)
	opt.Fetcher = &dpe.Fetcher{}
	s := start(t, opt)
	s.toResources()
	s.keys("enter") // the listing's "Annual report" is this document
	s.waitFor("marker page 1")

	// Wait (to the test's own deadline) until the store refuses the
	// first answer's URL: every presign of that answer has expired.
	for {
		mu.Lock()
		u := first
		mu.Unlock()
		_, err := (&dpe.Fetcher{}).Fetch(ctx, u)
		var fe *dpe.FetchError
		if errors.As(err, &fe) && fe.Status == http.StatusForbidden {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the store still serves a 2 s presign: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, want := range []string{"marker page 2", "marker page 3"} {
		s.keys("]")
		s.waitUntil(want, func(f string) bool { return strings.Contains(f, want) || strings.Contains(f, "empty page") })
		reply := make(chan string, 1)
		s.tm.Send(probeMsg{reply: reply})
		if frame := <-reply; !strings.Contains(frame, want) {
			t.Fatalf("after the presign expired, %q is not shown:\n%s", want, frame)
		}
	}
	frame := s.final()
	if strings.Contains(frame, "changed while open") {
		t.Errorf("a re-presign was taken for another version of the document:\n%s", frame)
	}
}
