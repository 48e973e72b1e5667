package dpe

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

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
	f, err := (&Fetcher{}).Fetch(ctx, "s3://shared/team/doc.json")
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
	o := &Opener{Fetcher: &Fetcher{}, Resolver: ResolverFunc(func(ctx context.Context, uri string) (Access, error) {
		calls++
		return Access{URI: "s3://shared/team/doc.json", Size: -1, Computer: "pc"}, nil
	})}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	op, err := o.Open(ctx, "dpe://com.example.docs/doc")
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if op.Kind != KindDocument || op.Doc == nil || len(op.Doc.Pages) != 1 {
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
		{[]string{EnvS3Endpoint}, "DPE_TUI_S3_ENDPOINT is not set"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for _, c := range cases {
		t.Run(strings.Join(c.unset, "+"), func(t *testing.T) {
			for _, k := range c.unset {
				t.Setenv(k, "")
			}
			_, err := (&Fetcher{}).Fetch(ctx, "s3://shared/team/doc.json")
			want := "fetch s3://shared/team/doc.json: s3:// access URI: " + c.want
			if err == nil || err.Error() != want {
				t.Fatalf("err = %v\nwant  %s", err, want)
			}
			if !errors.Is(err, ErrS3NotConfigured) {
				t.Errorf("%v is not ErrS3NotConfigured", err)
			}
			// The Opener does not ask the computer again: a new access URI
			// cannot supply a missing variable.
			calls := 0
			o := &Opener{Resolver: ResolverFunc(func(context.Context, string) (Access, error) {
				calls++
				return Access{URI: "s3://shared/team/doc.json", Size: -1}, nil
			})}
			_, err = o.Open(ctx, "dpe://com.example.docs/doc")
			if err == nil || !strings.HasSuffix(err.Error(), c.want) || calls != 1 {
				t.Errorf("open: calls=%d err=%v", calls, err)
			}
		})
	}
	// With everything set again it works (the cases restored the env).
	if _, err := (&Fetcher{}).Fetch(ctx, "s3://shared/team/doc.json"); err != nil {
		t.Fatalf("restored env at %s: %v", srv.Endpoint, err)
	}
}

func TestFetchS3_LimitsAndStoreErrors(t *testing.T) {
	s3Store(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()

	// Size: the stated size is checked before the body is read.
	_, err := (&Fetcher{MaxBytes: 10}).Fetch(ctx, "s3://shared/team/doc.json")
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != 10 || le.Got != int64(len(s3Doc)) {
		t.Errorf("over MaxBytes: %v, want a fetch size LimitError", err)
	}
	// A missing key is the store's 404, a FetchError like http's.
	_, err = (&Fetcher{}).Fetch(ctx, "s3://shared/team/none.json")
	var fe *FetchError
	if !errors.As(err, &fe) || fe.Status != http.StatusNotFound || !errors.Is(err, ErrBadStatus) {
		t.Errorf("missing key: %v, want a 404 FetchError", err)
	}
	// Wrong credentials: the store's 403, and the secret is not in the error.
	t.Setenv(EnvAWSSecretAccessKey, "wrong-secret-value")
	_, err = (&Fetcher{}).Fetch(ctx, "s3://shared/team/doc.json")
	if !errors.As(err, &fe) || fe.Status != http.StatusForbidden || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("bad secret: %v, want a 403 FetchError", err)
	}
	// Not an s3://bucket/key.
	for _, bad := range []string{"s3:///key", "s3://shared/", "s3://Bad_Bucket/k", "s3://shared/k?x=1"} {
		if _, err := (&Fetcher{}).Fetch(ctx, bad); !errors.Is(err, ErrUnsupportedURI) {
			t.Errorf("%s: %v, want ErrUnsupportedURI", bad, err)
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
	t.Setenv(EnvS3Endpoint, "http://"+ln.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err = (&Fetcher{IdleTimeout: 300 * time.Millisecond}).Fetch(ctx, "s3://shared/team/doc.json")
	if !errors.Is(err, ErrStalled) {
		t.Fatalf("stalled store: %v, want ErrStalled", err)
	}
	// The overall Timeout bounds it too.
	_, err = (&Fetcher{Timeout: 300 * time.Millisecond, IdleTimeout: time.Minute}).Fetch(ctx, "s3://shared/team/doc.json")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow store: %v, want the fetch deadline", err)
	}
}

func TestParseS3Endpoint(t *testing.T) {
	for in, want := range map[string]string{"http://127.0.0.1:9000": "127.0.0.1:9000 false", "https://s3.example.com/": "s3.example.com true"} {
		h, sec, err := ParseS3Endpoint(in)
		if err != nil || h+" "+map[bool]string{true: "true", false: "false"}[sec] != want {
			t.Errorf("%s: %s %v %v", in, h, sec, err)
		}
	}
	for _, bad := range []string{"127.0.0.1:9000", "ftp://x", "http://u:p@x", "http://x/path", "http://x?a=1", "http://"} {
		if _, _, err := ParseS3Endpoint(bad); err == nil {
			t.Errorf("%s accepted", bad)
		} else if strings.Contains(err.Error(), "u:p") {
			t.Errorf("%s: error shows the userinfo: %v", bad, err)
		}
	}
}
