package computer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/internal/s3test"
	"github.com/dpe-tui/dpe-tui/protocol"
)

const s3Bucket = "dpe-docs"

// newS3Store starts versitygw with a bucket and returns a resolver on it
// whose requests are counted.
func newS3Store(t *testing.T, opt S3ResolverOptions) (*s3test.Server, *S3Resolver, *s3test.CountingTransport) {
	t.Helper()
	srv := s3test.Start(t)
	srv.MakeBucket(t, s3Bucket)
	r, ct := newS3Resolver(t, srv, opt)
	return srv, r, ct
}

func newS3Resolver(t *testing.T, srv *s3test.Server, opt S3ResolverOptions) (*S3Resolver, *s3test.CountingTransport) {
	t.Helper()
	ct := &s3test.CountingTransport{}
	opt.Endpoint, opt.Bucket, opt.Getenv, opt.Transport = srv.Endpoint, s3Bucket, srv.Getenv, ct
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	r, err := NewS3Resolver(ctx, opt)
	if err != nil {
		t.Fatalf("NewS3Resolver: %v", err)
	}
	return r, ct
}

func s3Resolve(t *testing.T, r Resolver, doc string) protocol.A2CResource {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	out, err := r.Resolve(ctx, protocol.A2CResource{URI: "dpe://" + host + "/x", Name: "x"},
		Contents{Kind: ContentsInline, Document: json.RawMessage(doc)}, Hint{})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	return out
}

func TestS3Resolver_UploadsTheDocumentAndAnswersAPresignedURL(t *testing.T) {
	srv, r, _ := newS3Store(t, S3ResolverOptions{Prefix: "office/", Expiry: 10 * time.Minute})
	doc := docJSON(host, "small", 2, 10)
	before := time.Now()
	res := s3Resolve(t, r, doc)

	id := identity.KeyHex(identity.Key([]byte(doc)))
	if got := srv.Keys(t, s3Bucket, ""); !slices.Equal(got, []string{"office/" + id + ".json"}) {
		t.Fatalf("bucket holds %v, want the one document object office/%s.json", got, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	st, err := srv.Client(t).StatObject(ctx, s3Bucket, "office/"+id+".json", minio.StatObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Meta == nil || res.Meta.ETag != st.ETag || st.ETag == "" {
		t.Errorf("_meta.etag = %+v, want the object's ETag %q", res.Meta, st.ETag)
	}
	exp, err := time.Parse(time.RFC3339, res.Meta.ExpiresAt)
	if err != nil {
		t.Fatalf("_meta.expires_at %q: %v", res.Meta.ExpiresAt, err)
	}
	if lo, hi := before.Add(10*time.Minute-time.Second), time.Now().Add(10*time.Minute); exp.Before(lo) || exp.After(hi) {
		t.Errorf("expires_at %v not within the 10m presign (%v … %v)", exp, lo, hi)
	}
	if !strings.Contains(res.URI, "X-Amz-Expires=600") || !strings.HasPrefix(res.URI, srv.Endpoint+"/"+s3Bucket+"/office/") {
		t.Errorf("URI %s is not a 600 s presigned URL of the object", dpe.RedactURI(res.URI))
	}
	if res.Size == nil || *res.Size != int64(len(doc)) || res.MimeType != "application/json" || res.Name != "x" {
		t.Errorf("resource = %+v", res)
	}

	// The agent's fetcher reads exactly the document through the URL ...
	f, err := (&dpe.Fetcher{}).Fetch(ctx, res.URI)
	if err != nil {
		t.Fatalf("fetch presigned URL: %v", err)
	}
	if string(f.Bytes) != doc {
		t.Errorf("fetched %d bytes, not the document", len(f.Bytes))
	}
	// ... and the store refuses the same object without the signature.
	unsigned := strings.SplitN(res.URI, "?", 2)[0]
	_, err = (&dpe.Fetcher{}).Fetch(ctx, unsigned)
	var fe *dpe.FetchError
	if !errors.As(err, &fe) || fe.Status != http.StatusForbidden {
		t.Errorf("unsigned fetch: %v, want 403", err)
	}
}

func TestS3Resolver_UnchangedDocumentsAreNotUploadedAgain(t *testing.T) {
	srv, r, ct := newS3Store(t, S3ResolverOptions{ManifestThreshold: 2048})
	small := docJSON(host, "small", 2, 10)
	big := docJSON(host, "big", 6, 1000) // manifest mode: 6 pages

	s3Resolve(t, r, small)
	if n := ct.Count(http.MethodPut); n != 1 {
		t.Fatalf("first resolve: %d PUTs, want 1", n)
	}
	a := s3Resolve(t, r, small)
	if n := ct.Count(http.MethodPut); n != 1 {
		t.Errorf("same document again: %d PUTs in all, want still 1", n)
	}
	// A resolver with an empty local map (another process, a restart)
	// finds the bytes by a stat and does not upload them either.
	r2, ct2 := newS3Resolver(t, srv, S3ResolverOptions{ManifestThreshold: 2048})
	b := s3Resolve(t, r2, small)
	if n := ct2.Count(http.MethodPut); n != 0 {
		t.Errorf("fresh resolver, stored document: %d PUTs, want 0", n)
	}
	if a.Meta.ETag != b.Meta.ETag {
		t.Errorf("etag changed without an upload: %s vs %s", a.Meta.ETag, b.Meta.ETag)
	}
	// A changed document is uploaded.
	s3Resolve(t, r, docJSON(host, "small", 3, 10))
	if n := ct.Count(http.MethodPut); n != 2 {
		t.Errorf("changed document: %d PUTs in all, want 2", n)
	}

	// Manifest mode: 6 pages and the manifest, once.
	s3Resolve(t, r, big)
	if n := ct.Count(http.MethodPut); n != 2+7 {
		t.Fatalf("big document: %d PUTs in all, want %d (6 pages + manifest)", n, 2+7)
	}
	s3Resolve(t, r, big)
	if n := ct.Count(http.MethodPut); n != 9 {
		t.Errorf("big document again: %d PUTs in all, want still 9", n)
	}
	// Elsewhere only the manifest (it holds presigned page URLs) is new.
	s3Resolve(t, r2, big)
	if n := ct2.Count(http.MethodPut); n != 1 {
		t.Errorf("fresh resolver, stored pages: %d PUTs, want 1 (the manifest)", n)
	}
}

func TestS3Resolver_EquivalentDocumentWithOtherBytesReplacesTheObject(t *testing.T) {
	srv, r, ct := newS3Store(t, S3ResolverOptions{})
	// docA and docB: one doc_hash (one object key), other bytes.
	id := identity.KeyHex(identity.Key([]byte(docA)))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for i, doc := range []string{docA, docB, docB} {
		res := s3Resolve(t, r, doc)
		f, err := (&dpe.Fetcher{}).Fetch(ctx, res.URI)
		if err != nil {
			t.Fatal(err)
		}
		if string(f.Bytes) != doc {
			t.Errorf("resolve %d serves %q, want the bytes of this resolve %q", i, f.Bytes, doc)
		}
	}
	if n := ct.Count(http.MethodPut); n != 2 {
		t.Errorf("%d PUTs, want 2 (docA, then docB over it; docB again is there)", n)
	}
	if got := srv.Keys(t, s3Bucket, ""); !slices.Equal(got, []string{id + ".json"}) {
		t.Errorf("bucket holds %v, want the one object %s.json", got, id)
	}
}

func TestS3Resolver_ManifestPagesAreObjects(t *testing.T) {
	srv, r, _ := newS3Store(t, S3ResolverOptions{ManifestThreshold: 2048, Prefix: "m/"})
	doc := docJSON(host, "big", 5, 1000)
	res := s3Resolve(t, r, doc)
	id := identity.KeyHex(identity.Key([]byte(doc)))
	want := []string{"m/" + id + "/manifest.json"}
	for i := range 5 {
		want = append(want, r.PageKey(id, i))
	}
	got := srv.Keys(t, s3Bucket, "")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("bucket holds %v, want %v", got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	st, err := srv.Client(t).StatObject(ctx, s3Bucket, r.ManifestKey(id), minio.StatObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256([]byte(doc)); res.Meta.ETag != hex.EncodeToString(sum[:]) || res.Meta.ETag == st.ETag {
		t.Errorf("_meta.etag %q, want the document's sha256 (not the manifest object's ETag %q)", res.Meta.ETag, st.ETag)
	}
	// The agent opens the manifest and loads every page from its object.
	op := &dpe.Opener{Fetcher: &dpe.Fetcher{}}
	opened, err := op.OpenAccess(ctx, res.URI)
	if err != nil {
		t.Fatalf("open manifest: %v", err)
	}
	var full struct {
		Pages []json.RawMessage `json:"pages"`
	}
	if err := json.Unmarshal([]byte(doc), &full); err != nil {
		t.Fatal(err)
	}
	if len(opened.Doc.Pages) != 5 {
		t.Fatalf("manifest has %d pages, want 5", len(opened.Doc.Pages))
	}
	for i, p := range opened.Doc.Pages {
		if p.Decoded || !strings.Contains(p.URI, "/p/"+strconv.Itoa(i)+".json?") {
			t.Fatalf("page %d is not a manifest entry of its object: decoded=%v uri=%s", i, p.Decoded, dpe.RedactURI(p.URI))
		}
		if err := op.LoadPageInto(ctx, opened, i); err != nil {
			t.Fatalf("load page %d: %v", i, err)
		}
		p = opened.Doc.Pages[i]
		if len(p.Elements) != 2 || !strings.Contains(p.Elements[0].Text, "big page "+strconv.Itoa(i)) {
			t.Errorf("page %d elements: %d, first %+v", i, len(p.Elements), p.Elements)
		}
		// The page object is byte for byte the page of the document.
		obj, err := srv.Client(t).GetObject(ctx, s3Bucket, r.PageKey(id, i), minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if _, err := io.Copy(&b, io.LimitReader(obj, 1<<20)); err != nil {
			t.Fatal(err)
		}
		obj.Close()
		if b.String() != string(full.Pages[i]) {
			t.Errorf("page object %d differs from the document's page", i)
		}
	}
}

// s3Office is a server, one computer "pc" with the s3 resolver and the
// test library, and a real agent (client package).
func s3Office(t *testing.T, r Resolver) *client.Client {
	t.Helper()
	url, _ := startSMCP(t, "")
	c := New(Options{URL: url, Office: "office-s3", Name: "pc", Resolver: r, Logger: quietLog()})
	t.Cleanup(func() { _ = c.Close() })
	inProc(t, c, "lib", newDocServer(docServerOptions{Host: host, Docs: 2}))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	ag, err := client.Dial(ctx, client.Options{URL: url, Office: "office-s3", Name: "agent", RequestTimeout: wait, Logger: quietLog()})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { ag.Close() })
	return ag
}

func TestS3Resolver_ExpiredPresignIsReResolvedThroughGetDPE(t *testing.T) {
	// 2 s presigns; "big" (8 pages of 4000 bytes) is in manifest mode.
	_, r, _ := newS3Store(t, S3ResolverOptions{Expiry: 2 * time.Second, ManifestThreshold: 4096})
	ag := s3Office(t, r)

	var (
		mu      sync.Mutex
		getDPEs int
		traces  []dpe.TraceEvent
	)
	resolver := dpe.ResolverFunc(func(ctx context.Context, uri string) (dpe.Access, error) {
		mu.Lock()
		getDPEs++
		mu.Unlock()
		return ag.GetDPE(ctx, "pc", uri)
	})
	op := &dpe.Opener{Resolver: resolver, Fetcher: &dpe.Fetcher{}, OnTrace: func(ev dpe.TraceEvent) {
		mu.Lock()
		traces = append(traces, ev)
		mu.Unlock()
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*wait)
	defer cancel()
	opened, err := op.Open(ctx, "dpe://"+host+"/big")
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if opened.Access.ExpiresAt.IsZero() || opened.Access.ExpiresAt.After(time.Now().Add(2*time.Second)) {
		t.Fatalf("access expires at %v, want within the 2 s presign", opened.Access.ExpiresAt)
	}
	if err := op.LoadPageInto(ctx, opened, 0); err != nil {
		t.Fatalf("page 0 before expiry: %v", err)
	}
	stalePage := opened.Doc.Pages[1].URI

	// Wait (bounded) until the store itself refuses the old page URL.
	deadline := time.Now().Add(wait)
	for {
		_, err := (&dpe.Fetcher{}).Fetch(ctx, stalePage)
		var fe *dpe.FetchError
		if errors.As(err, &fe) && fe.Status == http.StatusForbidden {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store still serves a 2 s presign after %v: %v", wait, err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Loading page 1 now re-resolves once through get_dpe and succeeds.
	if err := op.LoadPageInto(ctx, opened, 1); err != nil {
		t.Fatalf("page 1 after expiry: %v", err)
	}
	if !opened.Doc.Pages[1].Decoded || len(opened.Doc.Pages[1].Elements) != 2 {
		t.Fatalf("page 1 not loaded: %+v", opened.Doc.Pages[1])
	}
	// A re-presign is the same document: the pages loaded stay.
	if opened.Version != 0 || !opened.Doc.Pages[0].Decoded {
		t.Errorf("the re-resolve was taken for another version (version %d, page 0 decoded %v)", opened.Version, opened.Doc.Pages[0].Decoded)
	}
	mu.Lock()
	defer mu.Unlock()
	if getDPEs != 2 {
		t.Errorf("get_dpe calls = %d, want 2 (open, then one re-resolve)", getDPEs)
	}
	refetches := 0
	for _, ev := range traces {
		if ev.Kind == dpe.TraceRefetch {
			refetches++
		}
	}
	if refetches != 1 {
		t.Errorf("refetch trace events = %d, want 1", refetches)
	}
	if opened.Doc.Pages[1].URI == stalePage {
		t.Error("page 1 kept its expired URL")
	}
}

func TestS3Resolver_ExpiredDocumentURLRefetchedByOpen(t *testing.T) {
	// Below the threshold: one document object behind a 2 s presign. An
	// agent whose clock runs behind does not see the expiry itself: the
	// store's refusal of the stale URL makes Open call get_dpe once more.
	_, r, _ := newS3Store(t, S3ResolverOptions{Expiry: 2 * time.Second})
	ag := s3Office(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 3*wait)
	defer cancel()
	uri := "dpe://" + host + "/doc-001"
	stale, err := ag.GetDPE(ctx, "pc", uri)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(stale.ExpiresAt) + 100*time.Millisecond)
	calls := 0
	op := &dpe.Opener{Fetcher: &dpe.Fetcher{}, Resolver: dpe.ResolverFunc(func(ctx context.Context, u string) (dpe.Access, error) {
		calls++
		if calls == 1 {
			a := stale // as a clock behind by more than 2 s reads it

			a.ExpiresAt = time.Time{}
			return a, nil
		}
		return ag.GetDPE(ctx, "pc", u)
	})}
	opened, err := op.Open(ctx, uri)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if calls != 2 || opened.Doc == nil || opened.Access.URI == stale.URI {
		t.Errorf("calls=%d doc=%v fresh URI=%v", calls, opened.Doc != nil, opened.Access.URI != stale.URI)
	}
}

func TestNewS3Resolver_RefusesBadConfiguration(t *testing.T) {
	srv := s3test.Start(t)
	srv.MakeBucket(t, s3Bucket)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	env := func(drop string) func(string) string {
		return func(k string) string {
			if k == drop {
				return ""
			}
			return srv.Getenv(k)
		}
	}
	cases := []struct {
		name string
		opt  S3ResolverOptions
		want string
	}{
		{"no secret", S3ResolverOptions{Endpoint: srv.Endpoint, Bucket: s3Bucket, Getenv: env("AWS_SECRET_ACCESS_KEY")},
			"s3 resolver: AWS_SECRET_ACCESS_KEY is not set"},
		{"no key id", S3ResolverOptions{Endpoint: srv.Endpoint, Bucket: s3Bucket, Getenv: env("AWS_ACCESS_KEY_ID")},
			"s3 resolver: AWS_ACCESS_KEY_ID is not set"},
		{"no bucket", S3ResolverOptions{Endpoint: srv.Endpoint, Getenv: srv.Getenv}, "s3 resolver: no bucket (--s3-bucket)"},
		{"missing bucket", S3ResolverOptions{Endpoint: srv.Endpoint, Bucket: "nope", Getenv: srv.Getenv},
			"s3 resolver: bucket nope does not exist at " + srv.Endpoint},
		{"bad endpoint", S3ResolverOptions{Endpoint: "ftp://x", Bucket: s3Bucket, Getenv: srv.Getenv},
			"s3 resolver: endpoint ftp://x: want an http:// or https:// URL"},
		{"long expiry", S3ResolverOptions{Endpoint: srv.Endpoint, Bucket: s3Bucket, Getenv: srv.Getenv, Expiry: 8 * 24 * time.Hour},
			"s3 resolver: expiry 192h0m0s out of range (1s to 168h0m0s)"},
	}
	for _, c := range cases {
		_, err := NewS3Resolver(ctx, c.opt)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
