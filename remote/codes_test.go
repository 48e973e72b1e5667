package remote_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/remote"
)

// clock is a settable clock for session expiry.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
func rawPut(t *testing.T, url string, body string, h map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestErrorCodes drives every code of core §6 through the client against
// our remote, and checks the status http §5 maps it to on that endpoint.
func TestErrorCodes(t *testing.T) {
	ctx := ctxT(t)
	d := makeDoc(t, "d", []string{"a"})
	seed := func(t *testing.T, c *dpev1.Client, uri string) {
		t.Helper()
		if _, err := c.Commit(ctx, uri, d.inline(), dpev1.Precondition{IfAbsent: true}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		code   wire.Code
		status int
		opt    remote.Options
		copt   dpev1.Options
		run    func(t *testing.T, c *dpev1.Client, base string) error
	}{
		{wire.CodeValidation, 400, remote.Options{}, dpev1.Options{}, func(t *testing.T, c *dpev1.Client, _ string) error {
			// A relative reference is not a file_uri (core §1.1).
			_, err := c.BatchHead(ctx, []string{"docs/a.md"})
			return err
		}},
		{wire.CodeContractUnsupported, 400, remote.Options{}, dpev1.Options{}, func(t *testing.T, c *dpev1.Client, _ string) error {
			db, _ := json.Marshal(map[string]any{"file_type": "md", "pages": []string{"dpe9:" + strings.Repeat("0", 64)}})
			_, err := c.Commit(ctx, "file:///x", &wire.CommitRequest{Document: db}, dpev1.Precondition{IfAbsent: true})
			return err
		}},
		{wire.CodeCategoryUnknown, 400, remote.Options{}, dpev1.Options{}, func(t *testing.T, c *dpev1.Client, _ string) error {
			req := d.inline()
			req.Objects = append(req.Objects, json.RawMessage(`{"category":"Bogus","text":"x"}`))
			_, err := c.Commit(ctx, "file:///x", req, dpev1.Precondition{IfAbsent: true})
			return err
		}},
		{wire.CodePreconditionRequired, 428, remote.Options{}, dpev1.Options{}, func(t *testing.T, c *dpev1.Client, _ string) error {
			_, err := c.Commit(ctx, "file:///x", d.inline(), dpev1.Precondition{})
			return err
		}},
		{wire.CodePreconditionFailed, 412, remote.Options{}, dpev1.Options{}, func(t *testing.T, c *dpev1.Client, _ string) error {
			seed(t, c, "file:///x")
			d2 := makeDoc(t, "d2", []string{"b"})
			_, err := c.Commit(ctx, "file:///x", d2.inline(), dpev1.Precondition{BaseHash: base64Wrong})
			return err
		}},
		{wire.CodeAlreadyExists, 412, remote.Options{}, dpev1.Options{}, func(t *testing.T, c *dpev1.Client, _ string) error {
			seed(t, c, "file:///x")
			d2 := makeDoc(t, "d2", []string{"b"})
			_, err := c.Commit(ctx, "file:///x", d2.inline(), dpev1.Precondition{IfAbsent: true})
			return err
		}},
		{wire.CodeNotFound, 412, remote.Options{}, dpev1.Options{}, func(t *testing.T, c *dpev1.Client, _ string) error {
			// If-Match on a document that is not there is 412 (http §3.2).
			_, err := c.Commit(ctx, "file:///x", d.inline(), dpev1.Precondition{BaseHash: d.hash})
			return err
		}},
		{wire.CodeSessionExpired, 410, remote.Options{}, dpev1.Options{}, func(t *testing.T, c *dpev1.Client, _ string) error {
			_, err := c.Upload(ctx, "st-nobody", dpev1.KindObject, d.elemHash[0], d.objects[0], "")
			return err
		}},
		{wire.CodeHashMismatch, 400, remote.Options{}, dpev1.Options{}, func(t *testing.T, c *dpev1.Client, _ string) error {
			neg, err := c.Negotiate(ctx, &wire.NegotiateRequest{FileURI: "file:///x", Document: d.raw})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Upload(ctx, neg.StagingSession.ID, dpev1.KindObject, base64Wrong, d.objects[0], "")
			return err
		}},
		{wire.CodeMissingContent, 400, remote.Options{}, dpev1.Options{}, func(t *testing.T, c *dpev1.Client, _ string) error {
			_, err := c.Commit(ctx, "file:///x", &wire.CommitRequest{Document: d.raw}, dpev1.Precondition{IfAbsent: true})
			return err
		}},
		{wire.CodePayloadTooLarge, 413, remote.Options{Limits: wire.Limits{MaxPayloadBytes: 100}}, dpev1.Options{}, func(t *testing.T, c *dpev1.Client, _ string) error {
			_, err := c.Commit(ctx, "file:///x", d.inline(), dpev1.Precondition{IfAbsent: true})
			return err
		}},
		{wire.CodeForbidden, 403, remote.Options{CanWrite: func(_, uri string) bool { return strings.HasPrefix(uri, "file:///mine/") }}, dpev1.Options{},
			func(t *testing.T, c *dpev1.Client, _ string) error {
				_, err := c.Commit(ctx, "file:///theirs/x", d.inline(), dpev1.Precondition{IfAbsent: true})
				return err
			}},
		{wire.CodeRateLimited, 429, remote.Options{RateLimit: 1, RatePer: time.Hour}, dpev1.Options{MaxRetryAfter: time.Second}, func(t *testing.T, c *dpev1.Client, _ string) error {
			if _, err := c.Capabilities(ctx); err != nil {
				t.Fatal(err)
			}
			// Retry-After is an hour, over the client's bound: not waited for.
			_, err := c.Head(ctx, "file:///x")
			var p *wire.Problem
			if errors.As(err, &p) && p.RetryAfter == "" {
				t.Error("429 without Retry-After")
			}
			return err
		}},
		{wire.CodeUnavailable, 503, remote.Options{MaxInFlight: 1}, dpev1.Options{MaxRetries: -1}, func(t *testing.T, c *dpev1.Client, base string) error {
			// One upload holds the only slot with a body that does not end.
			pr, pw := io.Pipe()
			defer pw.Close()
			started := make(chan struct{})
			go func() {
				req, _ := http.NewRequest(http.MethodPut, base+"/staging/st-x/blobs/sha256:"+strings.Repeat("0", 64), pr)
				close(started)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			<-started
			pw.Write([]byte("x"))
			deadline, _ := t.Deadline()
			for {
				_, err := c.Head(ctx, "file:///x")
				if errors.Is(err, wire.CodeUnavailable) || time.Now().After(deadline.Add(-time.Second)) {
					var p *wire.Problem
					if errors.As(err, &p) && p.RetryAfter == "" {
						t.Error("503 without Retry-After")
					}
					return err
				}
				time.Sleep(10 * time.Millisecond)
			}
		}},
	}
	covered := map[wire.Code]bool{}
	for _, tc := range cases {
		t.Run(string(tc.code), func(t *testing.T) {
			c, _, hs := remoteOn(t, tc.opt, tc.copt)
			err := tc.run(t, c, hs.URL)
			wantCode(t, err, tc.code, tc.status)
		})
		covered[tc.code] = true
	}
	for _, code := range wire.Codes() {
		if !covered[code] {
			t.Errorf("no test of %s", code)
		}
	}
}

func TestRateLimited_ClientWaitsRetryAfterAndSucceeds(t *testing.T) {
	c, _, _ := remoteOn(t, remote.Options{RateLimit: 1, RatePer: time.Second}, dpev1.Options{})
	ctx := ctxT(t)
	if _, err := c.Capabilities(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Head(ctx, "file:///x"); err != nil {
		t.Fatalf("after Retry-After: %v", err)
	}
	// A cancelled wait ends at once with the cause.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := c.Head(cctx, "file:///x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
}

func TestSession_ExpiresAfterTTLWithoutUse(t *testing.T) {
	clk := &clock{t: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)}
	c, _, _ := remoteOn(t, remote.Options{Now: clk.now}, dpev1.Options{})
	ctx := ctxT(t)
	d := makeDoc(t, "s", []string{"a"})
	neg, err := c.Negotiate(ctx, &wire.NegotiateRequest{FileURI: "file:///s", Document: d.raw})
	if err != nil {
		t.Fatal(err)
	}
	clk.add(23 * time.Hour)
	// A use renews the session (core §3.4) …
	if _, err := c.Upload(ctx, neg.StagingSession.ID, dpev1.KindPage, d.pageHash[0], d.pages[0], ""); err != nil {
		t.Fatal(err)
	}
	clk.add(23 * time.Hour)
	if _, err := c.Upload(ctx, neg.StagingSession.ID, dpev1.KindObject, d.elemHash[0], d.objects[0], ""); err != nil {
		t.Fatal(err)
	}
	// … the offset query does not, and a day idle ends it.
	clk.add(25 * time.Hour)
	_, err = c.Offset(ctx, neg.StagingSession.ID, dpev1.KindObject, d.elemHash[0])
	wantCode(t, err, wire.CodeSessionExpired, 410)
	_, err = c.Commit(ctx, "file:///s", &wire.CommitRequest{Document: d.raw, StagingSession: neg.StagingSession.ID}, dpev1.Precondition{IfAbsent: true})
	wantCode(t, err, wire.CodeSessionExpired, 410)
}

func TestContractHeader_RequiredOnEveryRequestButCapabilities(t *testing.T) {
	_, _, hs := remoteOn(t, remote.Options{}, dpev1.Options{})
	resp := rawPut(t, hs.URL+"/documents?uri=file:///x", `{"document":{"file_type":"md","pages":[]}}`, map[string]string{"If-None-Match": "*"})
	if resp.StatusCode != 400 || resp.Header.Get(wire.HeaderErrorCode) != string(wire.CodeContractUnsupported) {
		t.Fatalf("commit without %s = %d %s", wire.HeaderContract, resp.StatusCode, resp.Header.Get(wire.HeaderErrorCode))
	}
	// A body that is not I-JSON is refused first (http §3.1 step 1).
	resp = rawPut(t, hs.URL+"/documents?uri=file:///x", `{"document":1,"document":2}`, nil)
	if resp.Header.Get(wire.HeaderErrorCode) != string(wire.CodeValidation) {
		t.Fatalf("duplicate keys = %s", resp.Header.Get(wire.HeaderErrorCode))
	}
	r, err := http.Get(hs.URL + "/capabilities")
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("capabilities without the header = %v, %v", r, err)
	}
	r.Body.Close()
}
