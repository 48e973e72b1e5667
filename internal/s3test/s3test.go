// Package s3test starts a real S3 server for tests: versitygw (Apache-2.0)
// with its posix backend in a temp dir, on a loopback port. .ci/run
// installs it with `go install`; a missing binary skips a test locally and
// fails it under CI (interoptest.Need).
package s3test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
)

// Region is the region the server is started with.
const Region = "us-east-1"

// Server is one running versitygw.
type Server struct {
	Endpoint  string // http://127.0.0.1:port
	AccessKey string
	SecretKey string
	Dir       string // the posix backend's root: one directory per bucket

	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

// Binary finds versitygw on PATH, in GOBIN or in GOPATH/bin (where
// `go install` puts it), or reports it missing through interoptest.Need.
func Binary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	var dirs []string
	if out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) > 0 && strings.TrimSpace(lines[0]) != "" {
			dirs = append(dirs, strings.TrimSpace(lines[0]))
		}
		if len(lines) > 1 {
			for _, gp := range filepath.SplitList(strings.TrimSpace(lines[1])) {
				dirs = append(dirs, filepath.Join(gp, "bin"))
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, "versitygw")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	interoptest.Need(t, "versitygw not found on PATH or in %v: go install github.com/versity/versitygw/cmd/versitygw@v1.8.0", dirs)
	return ""
}

// Start runs versitygw with fresh root credentials and a posix backend in
// t.TempDir(), bound to 127.0.0.1, and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	s := &Server{AccessKey: "test-" + randHex(t, 6), SecretKey: randHex(t, 20), Dir: t.TempDir()}
	// versitygw takes an address, not a listener: pick a free port and
	// try again if another process takes it first.
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		addr, err := freeAddr()
		if err != nil {
			t.Fatalf("s3test: free port: %v", err)
		}
		if lastErr = s.start(bin, addr); lastErr == nil {
			t.Cleanup(s.stop)
			return s
		}
	}
	t.Fatalf("s3test: versitygw did not start: %v", lastErr)
	return nil
}

func (s *Server) start(bin, addr string) error {
	s.out = &syncBuffer{}
	s.done = make(chan struct{})
	cmd := exec.Command(bin, "--access", s.AccessKey, "--secret", s.SecretKey, "--region", Region,
		"--port", addr, "--quiet", "posix", s.Dir)
	cmd.Stdout, cmd.Stderr = s.out, s.out
	// Only the gateway's own variables: a developer's ROOT_* or VGW_* must
	// not change what the tests run against.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.Dir}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd = cmd
	go func() { _ = cmd.Wait(); close(s.done) }()
	s.Endpoint = "http://" + addr
	deadline := time.Now().Add(15 * time.Second)
	hc := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("exited: %s", bytes.TrimSpace(s.out.Bytes()))
		default:
		}
		// Any HTTP answer (403 to an anonymous request) means it serves.
		if resp, err := hc.Get(s.Endpoint + "/"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	return fmt.Errorf("no answer at %s within 15s: %s", s.Endpoint, bytes.TrimSpace(s.out.Bytes()))
}

func (s *Server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// Log is what the gateway printed so far.
func (s *Server) Log() string { return s.out.String() }

// Env is the environment an S3 client of this server needs: the AWS
// variables and DPE_TUI_S3_ENDPOINT.
func (s *Server) Env() map[string]string {
	return map[string]string{
		"AWS_ACCESS_KEY_ID":     s.AccessKey,
		"AWS_SECRET_ACCESS_KEY": s.SecretKey,
		"AWS_REGION":            Region,
		"DPE_TUI_S3_ENDPOINT":   s.Endpoint,
	}
}

// Getenv reads Env, for options that take a Getenv.
func (s *Server) Getenv(k string) string { return s.Env()[k] }

// SetEnv sets Env for the test (t.Setenv: not for parallel tests).
func (s *Server) SetEnv(t testing.TB) {
	t.Helper()
	for k, v := range s.Env() {
		t.Setenv(k, v)
	}
}

// Client is a minio-go client with the root credentials.
func (s *Server) Client(t testing.TB) *minio.Client {
	t.Helper()
	c, err := minio.New(strings.TrimPrefix(s.Endpoint, "http://"), &minio.Options{
		Creds: credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""), Region: Region,
	})
	if err != nil {
		t.Fatalf("s3test: client: %v", err)
	}
	return c
}

// MakeBucket creates a bucket through the S3 API.
func (s *Server) MakeBucket(t testing.TB, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := s.Client(t).MakeBucket(ctx, name, minio.MakeBucketOptions{Region: Region}); err != nil {
		t.Fatalf("s3test: make bucket %s: %v", name, err)
	}
}

// Put stores an object through the S3 API.
func (s *Server) Put(t testing.TB, bucket, key, contentType string, data []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := s.Client(t).PutObject(ctx, bucket, key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: contentType}); err != nil {
		t.Fatalf("s3test: put %s/%s: %v", bucket, key, err)
	}
}

// Keys lists the object keys of a bucket under prefix.
func (s *Server) Keys(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var keys []string
	for o := range s.Client(t).ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			t.Fatalf("s3test: list %s: %v", bucket, o.Err)
		}
		keys = append(keys, o.Key)
	}
	return keys
}

// CountingTransport counts the requests it carries by method.
type CountingTransport struct {
	Base http.RoundTripper // nil: a clone of http.DefaultTransport
	mu   sync.Mutex
	n    map[string]int
	once sync.Once
}

// RoundTrip counts and forwards.
func (c *CountingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.once.Do(func() {
		if c.Base == nil {
			c.Base = http.DefaultTransport.(*http.Transport).Clone()
		}
	})
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[r.Method]++
	c.mu.Unlock()
	return c.Base.RoundTrip(r)
}

// Count is how many requests of method were carried.
func (c *CountingTransport) Count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method]
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func randHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() > 1<<20 { // bounded: the log is for failure messages
		return len(p), nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

func (s *syncBuffer) String() string { return string(s.Bytes()) }
