package remote_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/remote"
)

// doc is a test document built as a source would: element objects, page
// objects, the document object, each with its hash.
type doc struct {
	raw      json.RawMessage
	hash     string
	pages    []json.RawMessage
	objects  []json.RawMessage
	pageHash []string
	elemHash []string
}

func element(t testing.TB, v map[string]any) (json.RawMessage, string) {
	t.Helper()
	b, _ := json.Marshal(v)
	_, h, viol := wire.ParseElement(b)
	if viol != nil {
		t.Fatalf("element %s: %v", b, viol)
	}
	return b, h
}

// makeDoc builds a document of len(texts) pages, page i holding the
// NarrativeText elements texts[i].
func makeDoc(t testing.TB, title string, texts ...[]string) *doc {
	t.Helper()
	d := &doc{}
	seen := map[string]bool{}
	for _, page := range texts {
		var els []string
		for _, s := range page {
			raw, h := element(t, map[string]any{"category": "NarrativeText", "text": s, "metadata": map[string]any{"lang": "en"}})
			if !seen[h] {
				d.objects = append(d.objects, raw)
				d.elemHash = append(d.elemHash, h)
				seen[h] = true
			}
			els = append(els, h)
		}
		pb, _ := json.Marshal(map[string]any{"page_metadata": map[string]any{}, "elements": els})
		_, ph, v := wire.ParsePage(pb)
		if v != nil {
			t.Fatal(v)
		}
		d.pages = append(d.pages, pb)
		d.pageHash = append(d.pageHash, ph)
	}
	db, _ := json.Marshal(map[string]any{"file_type": "md", "title": title, "doc_metadata": map[string]any{}, "pages": d.pageHash})
	_, h, v := wire.ParseDocument(db)
	if v != nil {
		t.Fatal(v)
	}
	d.raw, d.hash = db, h
	return d
}

func (d *doc) inline() *wire.CommitRequest {
	return &wire.CommitRequest{Document: d.raw, Pages: d.pages, Objects: d.objects}
}

// remoteOn starts our remote on 127.0.0.1:0 and a client of it.
func remoteOn(t testing.TB, opt remote.Options, copt dpev1.Options) (*dpev1.Client, *remote.Server, *httptest.Server) {
	t.Helper()
	srv, err := remote.Open(t.TempDir(), opt)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	c, err := dpev1.New(hs.URL, copt)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv, hs
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, 30*time.Second))
	t.Cleanup(cancel)
	return ctx
}

func wantCode(t testing.TB, err error, code wire.Code, status int) {
	t.Helper()
	var p *wire.Problem
	if !errors.As(err, &p) {
		t.Fatalf("err = %v, want a %s problem", err, code)
	}
	if p.Code != code || !errors.Is(err, code) {
		t.Fatalf("code = %s, want %s (%v)", p.Code, code, err)
	}
	if status != 0 && p.Status != status {
		t.Fatalf("%s came with HTTP %d, want %d", code, p.Status, status)
	}
}

func TestCapabilities_LimitsAndTheReadExtension(t *testing.T) {
	c, _, _ := remoteOn(t, remote.Options{ReadObjects: true, Limits: wire.Limits{StagingTTLSeconds: 60}}, dpev1.Options{})
	caps, err := c.Capabilities(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if caps.Protocol != "dpe/1" || caps.HashContracts[0] != "dpe1" || !caps.Has(wire.FeatureMove) || !caps.Has(wire.FeatureReadObjects) {
		t.Fatalf("capabilities = %+v", caps)
	}
	if caps.Limits.StagingTTLSeconds != 3600 || caps.Limits.MaxPayloadBytes != 8<<20 || caps.Limits.BatchHeadMax != 500 {
		t.Fatalf("limits = %+v (ttl is at least an hour, core §3.4)", caps.Limits)
	}
	c2, _, _ := remoteOn(t, remote.Options{}, dpev1.Options{})
	if caps, _ := c2.Capabilities(ctxT(t)); caps.Has(wire.FeatureReadObjects) {
		t.Fatal("the read extension is opt-in")
	}
}

func TestFastPath_CreateThenHeadBatchHeadSkeletonList(t *testing.T) {
	c, _, _ := remoteOn(t, remote.Options{}, dpev1.Options{})
	ctx := ctxT(t)
	d := makeDoc(t, "one", []string{"a", "b", "a"}, []string{"c"})
	res, err := c.Commit(ctx, "file:///docs/One.md", d.inline(), dpev1.Precondition{IfAbsent: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "created" || res.DocHash != d.hash || res.Delta != (wire.Delta{Added: 4}) {
		t.Fatalf("commit = %+v, want created %s with 4 added", res, d.hash)
	}
	// The same URI in another spelling is the same document (core §1.1).
	h, err := c.Head(ctx, "FILE:///docs/%4Fne.md")
	if err != nil || h == nil || h.DocHash != d.hash {
		t.Fatalf("head = %v, %v", h, err)
	}
	if h, err := c.Head(ctx, "file:///docs/none.md"); h != nil || err != nil {
		t.Fatalf("head of nothing = %v, %v, want nil, nil", h, err)
	}
	heads, err := c.BatchHead(ctx, []string{"file:///docs/One.md", "file:///docs/none.md"})
	if err != nil || len(heads) != 2 || heads[0].DocHash != d.hash || heads[1] != nil {
		t.Fatalf("batch_head = %v, %v", heads, err)
	}
	sk, err := c.GetSkeleton(ctx, "file:///docs/One.md", "")
	if err != nil {
		t.Fatal(err)
	}
	if sk.Skeleton.FileURI != "file:///docs/One.md" || len(sk.Skeleton.Pages) != 2 || len(sk.Skeleton.Pages[0].Elements) != 3 || *sk.Skeleton.Document.Title != "one" {
		t.Fatalf("skeleton = %+v", sk.Skeleton)
	}
	// Unchanged whatever the precondition (core §3.3 step 4).
	res, err = c.Commit(ctx, "file:///docs/One.md", d.inline(), dpev1.Precondition{IfAbsent: true})
	if err != nil || res.Status != "unchanged" || res.Delta != (wire.Delta{Retained: 4}) {
		t.Fatalf("recommit = %+v, %v", res, err)
	}
	for i := range 5 {
		dd := makeDoc(t, fmt.Sprint(i), []string{"x"})
		if _, err := c.Commit(ctx, fmt.Sprintf("file:///docs/sub/%d.md", i), dd.inline(), dpev1.Precondition{IfAbsent: true}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for e, err := range c.List(ctx, "file:///docs/sub/", dpev1.ListOptions{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.FileURI)
	}
	if len(got) != 5 || got[0] != "file:///docs/sub/0.md" || got[4] != "file:///docs/sub/4.md" {
		t.Fatalf("list = %v", got)
	}
}

func TestSkeleton_IfNoneMatchRevalidatesWith304(t *testing.T) {
	var n304 atomic.Int32
	srv, err := remote.Open(t.TempDir(), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &statusRecorder{ResponseWriter: w}
		srv.ServeHTTP(rw, r)
		if rw.status == http.StatusNotModified {
			n304.Add(1)
		}
	}))
	defer hs.Close()
	c, _ := dpev1.New(hs.URL, dpev1.Options{})
	ctx := ctxT(t)
	d := makeDoc(t, "r", []string{"a"})
	if _, err := c.Commit(ctx, "s3://b/r.md", d.inline(), dpev1.Precondition{IfAbsent: true}); err != nil {
		t.Fatal(err)
	}
	first, err := c.GetSkeleton(ctx, "s3://b/r.md", "")
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.GetSkeleton(ctx, "s3://b/r.md", first.DocHash)
	if err != nil || !again.NotModified || again.Skeleton != nil || n304.Load() != 1 {
		t.Fatalf("revalidation = %+v, %v (304s: %d)", again, err, n304.Load())
	}
	d2 := makeDoc(t, "r2", []string{"b"})
	if _, err := c.Commit(ctx, "s3://b/r.md", d2.inline(), dpev1.Precondition{BaseHash: d.hash}); err != nil {
		t.Fatal(err)
	}
	changed, err := c.GetSkeleton(ctx, "s3://b/r.md", first.DocHash)
	if err != nil || changed.NotModified || changed.DocHash != d2.hash {
		t.Fatalf("after a change = %+v, %v", changed, err)
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(s int) { r.status = s; r.ResponseWriter.WriteHeader(s) }

func TestNegotiateUploadCommit_OnlyMissingIsAsked(t *testing.T) {
	c, _, _ := remoteOn(t, remote.Options{}, dpev1.Options{})
	ctx := ctxT(t)
	uri := "feishu://doc/a"
	img := []byte("\x89PNG not really")
	imgRef := "sha256:" + sha(img)
	iraw, ih := element(t, map[string]any{"category": "Image", "blob": imgRef, "mime_type": "image/png"})
	d := makeDoc(t, "big", []string{"a", "b"}, []string{"c"})
	// Page 3 holds the image.
	p3, _ := json.Marshal(map[string]any{"elements": []string{ih}})
	_, p3h, _ := wire.ParsePage(p3)
	db, _ := json.Marshal(map[string]any{"file_type": "pdf", "pages": append(append([]string{}, d.pageHash...), p3h)})
	neg, err := c.Negotiate(ctx, &wire.NegotiateRequest{FileURI: uri, Document: db, Pages: []json.RawMessage{d.pages[0]}})
	if err != nil {
		t.Fatal(err)
	}
	if len(neg.MissingPages) != 2 || len(neg.MissingContentHashes) != 2 || neg.StagingSession.ID == "" {
		t.Fatalf("negotiate = %+v, want pages 2 and 3 and the elements of page 1", neg)
	}
	sid := neg.StagingSession.ID
	// Commit too early: the missing list says what to send.
	_, err = c.Commit(ctx, uri, &wire.CommitRequest{Document: db, StagingSession: sid}, dpev1.Precondition{IfAbsent: true})
	wantCode(t, err, wire.CodeMissingContent, 400)
	var p *wire.Problem
	errors.As(err, &p)
	if p.Missing == nil || len(p.Missing.Pages) != 2 || len(p.Missing.ContentHashes) != 2 {
		t.Fatalf("missing = %+v", p.Missing)
	}
	for i, pg := range [][]byte{d.pages[1], p3} {
		h := []string{d.pageHash[1], p3h}[i]
		r, err := c.Upload(ctx, sid, dpev1.KindPage, h, pg, "")
		if err != nil || !r.New || len(r.Missing.MissingContentHashes) != 1 || r.Expires == "" {
			t.Fatalf("upload page = %+v, %v", r, err)
		}
	}
	for i, h := range d.elemHash {
		if _, err := c.Upload(ctx, sid, dpev1.KindObject, h, d.objects[i], ""); err != nil {
			t.Fatal(err)
		}
	}
	r, err := c.Upload(ctx, sid, dpev1.KindObject, ih, iraw, "")
	if err != nil || len(r.Missing.MissingBlobs) != 1 || r.Missing.MissingBlobs[0] != imgRef {
		t.Fatalf("upload image = %+v, %v", r, err)
	}
	again, err := c.Upload(ctx, sid, dpev1.KindObject, ih, iraw, "")
	if err != nil || again.New {
		t.Fatalf("a repeated upload is 200, not new: %+v, %v", again, err)
	}
	_, err = c.Commit(ctx, uri, &wire.CommitRequest{Document: db, StagingSession: sid}, dpev1.Precondition{IfAbsent: true})
	wantCode(t, err, wire.CodeMissingContent, 400)
	if _, err := c.Upload(ctx, sid, dpev1.KindBlob, imgRef, img, "image/png"); err != nil {
		t.Fatal(err)
	}
	res, err := c.Commit(ctx, uri, &wire.CommitRequest{Document: db, StagingSession: sid}, dpev1.Precondition{IfAbsent: true})
	if err != nil || res.Status != "created" || res.Delta.Added != 4 {
		t.Fatalf("commit = %+v, %v", res, err)
	}
	// The session is consumed by a created commit (core §3.4).
	_, err = c.Upload(ctx, sid, dpev1.KindBlob, imgRef, img, "image/png")
	wantCode(t, err, wire.CodeSessionExpired, 410)
	// A new session over the same document asks for nothing it holds.
	neg, err = c.Negotiate(ctx, &wire.NegotiateRequest{FileURI: uri, Document: db})
	if err != nil || len(neg.MissingPages) != 0 {
		t.Fatalf("renegotiate = %+v, %v", neg, err)
	}
}

func sha(b []byte) string { return fmt.Sprintf("%x", sha256Sum(b)) }

// countingHandler counts the request body bytes of blob uploads.
type countingHandler struct {
	h         http.Handler
	blobBytes atomic.Int64
	cutAfter  atomic.Int64 // >0: drop the connection of the PUT that would pass this many blob bytes
}

func (c *countingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/blobs/") {
		b, _ := io.ReadAll(r.Body)
		total := c.blobBytes.Add(int64(len(b)))
		if cut := c.cutAfter.Load(); cut > 0 && total > cut {
			// The chunk reached the remote; its answer never comes back.
			rr := r.Clone(r.Context())
			rr.Body = io.NopCloser(bytes.NewReader(b))
			c.h.ServeHTTP(httptest.NewRecorder(), rr)
			c.cutAfter.Store(0)
			panic(http.ErrAbortHandler)
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	c.h.ServeHTTP(w, r)
}

func TestUploadChunked_ResumesAfterAnInterruptedUpload(t *testing.T) {
	srv, err := remote.Open(t.TempDir(), remote.Options{Limits: wire.Limits{BlobChunkBytes: 1000, MaxPayloadBytes: 4000}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ch := &countingHandler{h: srv}
	hs := httptest.NewServer(ch)
	defer hs.Close()
	c, _ := dpev1.New(hs.URL, dpev1.Options{})
	ctx := ctxT(t)
	blob := bytes.Repeat([]byte("0123456789"), 1050) // 10,500 bytes: 11 chunks
	ref := "sha256:" + sha(blob)
	_, eh := element(t, map[string]any{"category": "Image", "blob": ref})
	pb, _ := json.Marshal(map[string]any{"elements": []string{eh}})
	_, ph, _ := wire.ParsePage(pb)
	db, _ := json.Marshal(map[string]any{"file_type": "png", "pages": []string{ph}})
	neg, err := c.Negotiate(ctx, &wire.NegotiateRequest{FileURI: "file:///i.png", Document: db})
	if err != nil {
		t.Fatal(err)
	}
	sid := neg.StagingSession.ID
	// The first upload is cut: the fourth chunk is received but its
	// answer is lost, and the uploader stops there (its process died).
	ch.cutAfter.Store(3500)
	short := &failingReader{data: blob, failAt: 4000}
	if _, err := c.UploadChunked(ctx, sid, dpev1.KindBlob, ref, short, int64(len(blob)), 1000, "image/png"); err == nil {
		t.Fatal("the interrupted upload reported success")
	}
	off, err := c.Offset(ctx, sid, dpev1.KindBlob, ref)
	if err != nil || off != 4000 {
		t.Fatalf("offset after the interruption = %d, %v, want 4000", off, err)
	}
	sent := ch.blobBytes.Load()
	r, err := c.UploadChunked(ctx, sid, dpev1.KindBlob, ref, bytes.NewReader(blob), int64(len(blob)), 1000, "image/png")
	if err != nil || !r.New {
		t.Fatalf("resumed upload = %+v, %v", r, err)
	}
	if resent := ch.blobBytes.Load() - sent; resent != int64(len(blob))-4000 {
		t.Fatalf("the resumed upload sent %d bytes, want the %d not yet received", resent, len(blob)-4000)
	}
	// Complete: asking again resends one chunk and gets 200.
	r, err = c.UploadChunked(ctx, sid, dpev1.KindBlob, ref, bytes.NewReader(blob), int64(len(blob)), 1000, "image/png")
	if err != nil || r.New {
		t.Fatalf("re-upload of a complete blob = %+v, %v", r, err)
	}
	if off, _ := c.Offset(ctx, sid, dpev1.KindBlob, ref); off != int64(len(blob)) {
		t.Fatalf("offset of a complete blob = %d", off)
	}
}

// failingReader fails reads past failAt, as a dying uploader would.
type failingReader struct {
	data   []byte
	failAt int64
}

func (f *failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.failAt {
		return 0, errors.New("uploader stopped")
	}
	return copy(p, f.data[off:]), nil
}

func TestCommit_ConcurrentPushersOneWinsTheOtherIsRefused(t *testing.T) {
	c, _, _ := remoteOn(t, remote.Options{}, dpev1.Options{})
	ctx := ctxT(t)
	base := makeDoc(t, "base", []string{"x"})
	if _, err := c.Commit(ctx, "git://r/f", base.inline(), dpev1.Precondition{IfAbsent: true}); err != nil {
		t.Fatal(err)
	}
	for round := range 10 {
		h, _ := c.Head(ctx, "git://r/f")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := makeDoc(t, fmt.Sprintf("pusher %d round %d", i, round), []string{fmt.Sprint(i, round)})
				_, errs[i] = c.Commit(ctx, "git://r/f", d.inline(), dpev1.Precondition{BaseHash: h.DocHash})
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
				continue
			}
			wantCode(t, err, wire.CodePreconditionFailed, 412)
		}
		if won != 1 {
			t.Fatalf("round %d: %d commits won (%v)", round, won, errs)
		}
	}
}

func TestMoveAndDelete(t *testing.T) {
	c, _, _ := remoteOn(t, remote.Options{ReadObjects: true}, dpev1.Options{})
	ctx := ctxT(t)
	d := makeDoc(t, "m", []string{"moved text"})
	if _, err := c.Commit(ctx, "file:///a", d.inline(), dpev1.Precondition{IfAbsent: true}); err != nil {
		t.Fatal(err)
	}
	mv, err := c.Move(ctx, "file:///a", "file:///b", d.hash)
	if err != nil || mv.DocHash != d.hash || !strings.HasSuffix(mv.Location, "/documents?uri=file%3A%2F%2F%2Fb") {
		t.Fatalf("move = %+v, %v", mv, err)
	}
	// A retry finds the state reached: success again (core §5.2).
	if _, err := c.Move(ctx, "file:///a", "file:///b", d.hash); err != nil {
		t.Fatalf("retried move: %v", err)
	}
	if h, _ := c.Head(ctx, "file:///a"); h != nil {
		t.Fatal("the source is still there")
	}
	// The read extension follows the move.
	if b, err := c.ReadObject(ctx, d.elemHash[0]); err != nil || !strings.Contains(string(b), "moved text") {
		t.Fatalf("read object = %s, %v", b, err)
	}
	_, err = c.Move(ctx, "file:///b", "file:///b", d.hash)
	wantCode(t, err, wire.CodeAlreadyExists, 409)
	_, err = c.Move(ctx, "file:///b", "file:///c", base64Wrong)
	wantCode(t, err, wire.CodePreconditionFailed, 409)
	err = c.Delete(ctx, "file:///b", base64Wrong)
	wantCode(t, err, wire.CodePreconditionFailed, 412)
	if err := c.Delete(ctx, "file:///b", d.hash); err != nil {
		t.Fatal(err)
	}
	if h, _ := c.Head(ctx, "file:///b"); h != nil {
		t.Fatal("deleted document still has a head")
	}
	// Nothing references the element now: the extension refuses it.
	_, err = c.ReadObject(ctx, d.elemHash[0])
	wantCode(t, err, wire.CodeNotFound, 404)
	err = c.Delete(ctx, "file:///b", d.hash)
	wantCode(t, err, wire.CodeNotFound, 412)
}

const base64Wrong = "dpe1:0000000000000000000000000000000000000000000000000000000000000000"
