package s3

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/s3test"
)

const s3Doc = `{"file_type":"md","title":"Shared","pages":[{"page_index":0,"elements":[{"category":"Title","text":"from the bucket"}]}]}`

// s3Store starts versitygw with bucket "shared" holding doc.json and sets
// the agent's environment to it (t.Setenv: these tests are not parallel).
func s3Store(t *testing.T) *s3test.Server {
	t.Helper()
	srv := s3test.Start(t)
	srv.MakeBucket(t, "shared")
	srv.Put(t, "shared", "team/doc.json", "application/json", []byte(s3Doc))
	srv.SetEnv(t)
	t.Setenv(EnvAWSSessionToken, "")
	return srv
}

func TestFetchS3_ReadsTheObjectWithTheSDK(t *testing.T) {
	s3Store(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	f, err := (&dpe.Fetcher{S3: Reader{}}).Fetch(ctx, "s3://shared/team/doc.json")
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	if string(f.Bytes) != s3Doc || f.MimeType != "application/json" || f.Status != http.StatusOK {
		t.Errorf("fetched %q (%s, %d)", f.Bytes, f.MimeType, f.Status)
	}
}

func TestOpen_DPEResolvedToS3URIIsFetchedAndDecoded(t *testing.T) {
	s3Store(t)
	calls := 0
	o := &dpe.Opener{Fetcher: &dpe.Fetcher{S3: Reader{}}, Resolver: dpe.ResolverFunc(func(ctx context.Context, uri string) (dpe.Access, error) {
		calls++
		return dpe.Access{URI: "s3://shared/team/doc.json", Size: -1, Computer: "pc"}, nil
	})}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	op, err := o.Open(ctx, "dpe://com.example.docs/doc")
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if op.Kind != dpe.KindDocument || op.Doc == nil || len(op.Doc.Pages) != 1 {
		t.Fatalf("opened %s with %v", op.Kind, op.Doc)
	}
	if err := o.LoadPageInto(ctx, op, 0); err != nil || op.Doc.Pages[0].Elements[0].Text != "from the bucket" {
		t.Errorf("page 0: %v %+v", err, op.Doc.Pages[0].Elements)
	}
	if calls != 1 {
		t.Errorf("get_dpe calls = %d, want 1", calls)
	}
}

func TestFetchS3_MissingConfigurationNamesTheVariable(t *testing.T) {
	srv := s3Store(t)
	cases := []struct {
		unset []string
		want  string
	}{
		{[]string{EnvAWSAccessKeyID}, "AWS_ACCESS_KEY_ID is not set"},
		{[]string{EnvAWSSecretAccessKey}, "AWS_SECRET_ACCESS_KEY is not set"},
		{[]string{EnvAWSAccessKeyID, EnvAWSSecretAccessKey}, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set"},
		{[]string{EnvEndpoint}, "DPE_TUI_S3_ENDPOINT is not set"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for _, c := range cases {
		t.Run(strings.Join(c.unset, "+"), func(t *testing.T) {
			for _, k := range c.unset {
				t.Setenv(k, "")
			}
			_, err := (&dpe.Fetcher{S3: Reader{}}).Fetch(ctx, "s3://shared/team/doc.json")
			want := "fetch s3://shared/team/doc.json: s3:// access URI: " + c.want
			if err == nil || err.Error() != want {
				t.Fatalf("err = %v\nwant  %s", err, want)
			}
			if !errors.Is(err, ErrNotConfigured) {
				t.Errorf("%v is not ErrNotConfigured", err)
			}
			// The dpe.Opener does not ask the computer again: a new access URI
			// cannot supply a missing variable.
			calls := 0
			o := &dpe.Opener{Fetcher: &dpe.Fetcher{S3: Reader{}}, Resolver: dpe.ResolverFunc(func(context.Context, string) (dpe.Access, error) {
				calls++
				return dpe.Access{URI: "s3://shared/team/doc.json", Size: -1}, nil
			})}
			_, err = o.Open(ctx, "dpe://com.example.docs/doc")
			if err == nil || !strings.HasSuffix(err.Error(), c.want) || calls != 1 {
				t.Errorf("open: calls=%d err=%v", calls, err)
			}
		})
	}
	// With everything set again it works (the cases restored the env).
	if _, err := (&dpe.Fetcher{S3: Reader{}}).Fetch(ctx, "s3://shared/team/doc.json"); err != nil {
		t.Fatalf("restored env at %s: %v", srv.Endpoint, err)
	}
}

func TestFetchS3_LimitsAndStoreErrors(t *testing.T) {
	s3Store(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()

	// Size: the stated size is checked before the body is read.
	_, err := (&dpe.Fetcher{S3: Reader{}, MaxBytes: 10}).Fetch(ctx, "s3://shared/team/doc.json")
	var le *dpe.LimitError
	if !errors.As(err, &le) || le.Limit != 10 || le.Got != int64(len(s3Doc)) {
		t.Errorf("over MaxBytes: %v, want a fetch size dpe.LimitError", err)
	}
	// A missing key is the store's 404, a dpe.FetchError like http's.
	_, err = (&dpe.Fetcher{S3: Reader{}}).Fetch(ctx, "s3://shared/team/none.json")
	var fe *dpe.FetchError
	if !errors.As(err, &fe) || fe.Status != http.StatusNotFound || !errors.Is(err, dpe.ErrBadStatus) {
		t.Errorf("missing key: %v, want a 404 dpe.FetchError", err)
	}
	// Wrong credentials: the store's 403, and the secret is not in the error.
	t.Setenv(EnvAWSSecretAccessKey, "wrong-secret-value")
	_, err = (&dpe.Fetcher{S3: Reader{}}).Fetch(ctx, "s3://shared/team/doc.json")
	if !errors.As(err, &fe) || fe.Status != http.StatusForbidden || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("bad secret: %v, want a 403 dpe.FetchError", err)
	}
	// Not an s3://bucket/key.
	for _, bad := range []string{"s3:///key", "s3://shared/", "s3://Bad_Bucket/k", "s3://shared/k?x=1"} {
		if _, err := (&dpe.Fetcher{S3: Reader{}}).Fetch(ctx, bad); !errors.Is(err, dpe.ErrUnsupportedURI) {
			t.Errorf("%s: %v, want dpe.ErrUnsupportedURI", bad, err)
		}
	}
}

func TestFetchS3_StalledStoreHitsTheIdleTimeout(t *testing.T) {
	s3Store(t)
	// An endpoint that accepts and never answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { <-done; c.Close() }()
		}
	}()
	t.Setenv(EnvEndpoint, "http://"+ln.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err = (&dpe.Fetcher{S3: Reader{}, IdleTimeout: 300 * time.Millisecond}).Fetch(ctx, "s3://shared/team/doc.json")
	if !errors.Is(err, dpe.ErrStalled) {
		t.Fatalf("stalled store: %v, want dpe.ErrStalled", err)
	}
	// The overall Timeout bounds it too.
	_, err = (&dpe.Fetcher{S3: Reader{}, Timeout: 300 * time.Millisecond, IdleTimeout: time.Minute}).Fetch(ctx, "s3://shared/team/doc.json")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow store: %v, want the fetch deadline", err)
	}
}

func TestParseEndpoint(t *testing.T) {
	for in, want := range map[string]string{"http://127.0.0.1:9000": "127.0.0.1:9000 false", "https://s3.example.com/": "s3.example.com true"} {
		h, sec, err := ParseEndpoint(in)
		if err != nil || h+" "+map[bool]string{true: "true", false: "false"}[sec] != want {
			t.Errorf("%s: %s %v %v", in, h, sec, err)
		}
	}
	for _, bad := range []string{"127.0.0.1:9000", "ftp://x", "http://u:p@x", "http://x/path", "http://x?a=1", "http://"} {
		if _, _, err := ParseEndpoint(bad); err == nil {
			t.Errorf("%s accepted", bad)
		} else if strings.Contains(err.Error(), "u:p") {
			t.Errorf("%s: error shows the userinfo: %v", bad, err)
		}
	}
}
