// Package s3 reads s3:// access URIs with minio-go (dpe.md §部署示例,
// "多 Agent 共享文档") and builds the S3 client the computer's S3
// resolver uses. It is the only package that links the object-store SDK:
// dpe's Fetcher takes a Reader through its S3 field.
package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// Environment of s3:// access (dpe.md §部署示例, "多 Agent 共享文档"): the
// agent reads s3://bucket/key with the object store's SDK, at the endpoint
// DPE_TUI_S3_ENDPOINT, with the standard AWS credential variables.
const (
	EnvEndpoint           = "DPE_TUI_S3_ENDPOINT"
	EnvAWSAccessKeyID     = "AWS_ACCESS_KEY_ID"
	EnvAWSSecretAccessKey = "AWS_SECRET_ACCESS_KEY"
	EnvAWSSessionToken    = "AWS_SESSION_TOKEN"
	EnvAWSRegion          = "AWS_REGION"
	// DefaultRegion is used when AWS_REGION is unset: naming a region
	// spares the SDK a GetBucketLocation round trip before every request.
	DefaultRegion = "us-east-1"
)

// ErrNotConfigured is wrapped by ConfigError.
var ErrNotConfigured = errors.New("s3 not configured")

// ConfigError names the environment variables an S3 client lacks.
type ConfigError struct {
	For     string   // "s3:// access URI", "s3 resolver"
	Missing []string // variable names, in the order they are asked for
}

func (e *ConfigError) Error() string {
	verb := "is"
	if len(e.Missing) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("%s: %s %s not set", e.For, strings.Join(e.Missing, " and "), verb)
}

// Unwrap makes errors.Is(err, ErrNotConfigured) true, and also
// dpe.ErrUnsupportedURI: without configuration this process cannot read
// s3:// at all, so asking the computer for the same URI again is useless
// (the Opener does not re-resolve unsupported URIs).
func (e *ConfigError) Unwrap() []error { return []error{ErrNotConfigured, dpe.ErrUnsupportedURI} }

// Config is what an S3 client needs.
type Config struct {
	Endpoint string // http(s)://host[:port]
	// Getenv reads the AWS variables; nil means os.Getenv.
	Getenv func(string) string
	// Transport carries the requests; nil means a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
	// For names the user of the client in errors ("s3 resolver").
	For string
}

// NewClient returns a minio-go client for cfg, with credentials from
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN when
// set) and the region from AWS_REGION (default DefaultRegion). A missing
// variable is an *ConfigError naming it.
func NewClient(cfg Config) (*minio.Client, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	what := cfg.For
	if what == "" {
		what = "s3"
	}
	var missing []string
	if cfg.Endpoint == "" {
		missing = append(missing, EnvEndpoint)
	}
	id, secret := getenv(EnvAWSAccessKeyID), getenv(EnvAWSSecretAccessKey)
	if id == "" {
		missing = append(missing, EnvAWSAccessKeyID)
	}
	if secret == "" {
		missing = append(missing, EnvAWSSecretAccessKey)
	}
	if len(missing) > 0 {
		return nil, &ConfigError{For: what, Missing: missing}
	}
	host, secure, err := ParseEndpoint(cfg.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	region := getenv(EnvAWSRegion)
	if region == "" {
		region = DefaultRegion
	}
	rt := cfg.Transport
	if rt == nil {
		rt = http.DefaultTransport.(*http.Transport).Clone()
	}
	c, err := minio.New(host, &minio.Options{
		Creds:     credentials.NewStaticV4(id, secret, getenv(EnvAWSSessionToken)),
		Secure:    secure,
		Region:    region,
		Transport: rt,
		// Retries stay inside the caller's deadline either way; a few
		// are enough for a transient 503.
		MaxRetries: 3,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: endpoint %s: %w", what, dpe.RedactURI(cfg.Endpoint), err)
	}
	return c, nil
}

// ParseEndpoint splits an endpoint URL (http://127.0.0.1:7070,
// https://s3.example.com) into the host[:port] minio-go wants and whether
// it is TLS. A path, query or userinfo is refused: credentials come from
// the environment only.
func ParseEndpoint(s string) (host string, secure bool, err error) {
	u, err := url.Parse(s)
	scheme := ""
	if err == nil {
		scheme = strings.ToLower(u.Scheme)
	}
	switch scheme {
	case "http":
	case "https":
		secure = true
	default:
		return "", false, fmt.Errorf("endpoint %s: want an http:// or https:// URL", dpe.RedactURI(s))
	}
	if u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false, fmt.Errorf("endpoint %s: want scheme://host[:port] only", dpe.RedactURI(s))
	}
	return u.Host, secure, nil
}

// ParseURI splits s3://bucket/key.
func ParseURI(u *url.URL) (bucket, key string, err error) {
	if !strings.EqualFold(u.Scheme, "s3") {
		return "", "", fmt.Errorf("%w %q", dpe.ErrUnsupportedURI, u.Scheme)
	}
	bucket, key = u.Host, strings.TrimPrefix(u.Path, "/")
	if u.User != nil || u.RawQuery != "" || u.Opaque != "" {
		return "", "", fmt.Errorf("%w: s3:// URI must be s3://bucket/key", dpe.ErrUnsupportedURI)
	}
	if err := s3utils.CheckValidBucketNameStrict(bucket); err != nil {
		return "", "", fmt.Errorf("%w: s3:// bucket: %v", dpe.ErrUnsupportedURI, err)
	}
	if err := s3utils.CheckValidObjectName(key); err != nil {
		return "", "", fmt.Errorf("%w: s3:// key: %v", dpe.ErrUnsupportedURI, err)
	}
	return bucket, key, nil
}

// Reader is the s3:// reader of a dpe.Fetcher (its S3 field).
type Reader struct{}

// ReadS3 reads s3://bucket/key with minio-go under the limits of the
// Fetcher's http reads: the caller's overall timeout, IdleTimeout per wait (headers
// included), MaxBytes checked against the stated size and while reading.
// Redirects are never followed (minio-go answers a 3xx as an error), which
// is within the http policy of at most MaxRedirects.
func (Reader) ReadS3(ctx context.Context, u *url.URL, r dpe.S3Read) (*dpe.Fetched, error) {
	bucket, key, err := ParseURI(u)
	if err != nil {
		return nil, err
	}
	c, err := NewClient(Config{Endpoint: os.Getenv(EnvEndpoint), Transport: r.Transport, For: "s3:// access URI"})
	if err != nil {
		return nil, err
	}
	idle := r.Idle
	if idle <= 0 {
		idle = dpe.DefaultIdleTimeout
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := fmt.Errorf("%w: no data for %v", dpe.ErrStalled, idle)
	timer := time.AfterFunc(idle, func() { cancel(stall) })
	defer timer.Stop()

	obj, err := c.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, s3Error(ctx, u, err)
	}
	defer obj.Close()
	st, err := obj.Stat()
	if err != nil {
		return nil, s3Error(ctx, u, err)
	}
	max := r.MaxBytes
	if max <= 0 {
		max = dpe.DefaultMaxBytes
	}
	if st.Size > max {
		return nil, &dpe.LimitError{What: "fetch size", Limit: max, Got: st.Size}
	}
	var buf bytes.Buffer
	if st.Size > 0 {
		buf.Grow(int(st.Size))
	}
	chunk := make([]byte, 64<<10)
	for {
		n, rerr := obj.Read(chunk)
		if n > 0 {
			timer.Reset(idle)
			if int64(buf.Len()+n) > max {
				return nil, &dpe.LimitError{What: "fetch size", Limit: max, Got: int64(buf.Len() + n)}
			}
			buf.Write(chunk[:n])
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if c := context.Cause(ctx); c != nil {
				return nil, fmt.Errorf("after %d bytes: %w", buf.Len(), c)
			}
			return nil, fmt.Errorf("after %d bytes: %w", buf.Len(), s3Error(ctx, u, rerr))
		}
	}
	mt := ""
	if st.ContentType != "" {
		if m, _, err := mime.ParseMediaType(st.ContentType); err == nil {
			mt = strings.ToLower(m)
		}
	}
	return &dpe.Fetched{Status: http.StatusOK, MimeType: mt, Bytes: buf.Bytes()}, nil
}

// s3Error turns a minio-go failure into a dpe.FetchError with the HTTP status
// the store answered (so a 403 or 404 is retried by re-resolving, like
// http), or the stall/deadline cause.
func s3Error(ctx context.Context, u *url.URL, err error) error {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c
	}
	var er minio.ErrorResponse
	if errors.As(err, &er) && er.StatusCode != 0 {
		msg := er.Code
		if msg == "" {
			msg = http.StatusText(er.StatusCode)
		}
		return &dpe.FetchError{URI: dpe.RedactURI(u.String()), Status: er.StatusCode,
			Err: fmt.Errorf("%w %d %s", dpe.ErrBadStatus, er.StatusCode, msg)}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err // the url.Error repeats the URL, with its signature
	}
	return err
}
