package dpev1

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpev1/wire"
)

func hostile(t *testing.T, h http.HandlerFunc) *Client {
	t.Helper()
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	c, err := New(hs.URL, Options{MaxRetryAfter: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestErrors_DispatchedByCodeNeverByStatus: http §3.2 and §5.
func TestErrors_DispatchedByCodeNeverByStatus(t *testing.T) {
	// A 418 that says DPE_NOT_FOUND is "no such document".
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(wire.HeaderContract) != "dpe1" {
			t.Errorf("%s %s without %s", r.Method, r.URL, wire.HeaderContract)
		}
		w.Header().Set(wire.HeaderErrorCode, "DPE_NOT_FOUND")
		w.WriteHeader(http.StatusTeapot)
	})
	if h, err := c.Head(ctxT(t), "file:///x"); h != nil || err != nil {
		t.Fatalf("head = %v, %v", h, err)
	}
	// A 404 with no problem and no code is not a DPE answer: no code guessed.
	c = hostile(t, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	_, err := c.Head(ctxT(t), "file:///x")
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 404 || errors.Is(err, wire.CodeNotFound) {
		t.Fatalf("gateway 404 = %v", err)
	}
	// A body's code wins over its status; retryable comes from the code.
	c = hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", wire.MediaProblem)
		w.Header().Set(wire.HeaderErrorCode, "DPE_PRECONDITION_FAILED")
		w.WriteHeader(http.StatusConflict)
		w.Write([]byte(`{"code":"DPE_PRECONDITION_FAILED","retryable":true,"detail":"x\u001b]0;pwned\u0007"}`))
	})
	_, err = c.Move(ctxT(t), "file:///a", "file:///b", "dpe1:"+strings.Repeat("0", 64))
	var p *wire.Problem
	if !errors.As(err, &p) || p.Code != wire.CodePreconditionFailed || p.Retryable || strings.ContainsRune(err.Error(), 0x1b) {
		t.Fatalf("problem = %+v, %q", p, err)
	}
	// A code that is not one of core §6 is refused, not guessed at.
	c = hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(wire.HeaderErrorCode, "DPE_SOMETHING")
		w.WriteHeader(400)
	})
	if _, err := c.BatchHead(ctxT(t), []string{"file:///x"}); err == nil || errors.As(err, &p) {
		t.Fatalf("unknown code = %v", err)
	}
}

// TestRetryAfter_BoundedAndHonoured: a 503 whose Retry-After is over the
// bound is returned at once; one within it is waited for.
func TestRetryAfter_BoundedAndHonoured(t *testing.T) {
	calls := 0
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set(wire.HeaderErrorCode, "DPE_UNAVAILABLE")
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(503)
	})
	if _, err := c.Head(ctxT(t), "file:///x"); !errors.Is(err, wire.CodeUnavailable) || calls != 1 {
		t.Fatalf("over the bound: %v after %d calls", err, calls)
	}
	calls = 0
	c = hostile(t, func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			w.Header().Set(wire.HeaderErrorCode, "DPE_RATE_LIMITED")
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(429)
			return
		}
		w.Header().Set(wire.HeaderDocHash, "dpe1:"+strings.Repeat("a", 64))
	})
	if h, err := c.Head(ctxT(t), "file:///x"); err != nil || h == nil || calls != 2 {
		t.Fatalf("within the bound: %v, %v after %d calls", h, err, calls)
	}
}

// TestResponses_Bounded: an answer over the bound is refused, not read whole.
func TestResponses_Bounded(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"documents":[` + strings.Repeat(`{"file_uri":"a:b","doc_hash":"x"},`, 1000)))
	}))
	defer hs.Close()
	c, _ := New(hs.URL, Options{MaxResponseBytes: 4096})
	for _, err := range c.List(ctxT(t), "", ListOptions{}) {
		if err == nil || !strings.Contains(err.Error(), "over 4096 bytes") {
			t.Fatalf("list = %v", err)
		}
		break
	}
}

func FuzzDecodeSkeleton(f *testing.F) {
	f.Add([]byte(`{"file_uri":"a:b","doc_hash":"dpe1:x","document":{"file_type":"md","pages":[]},"pages":[]}`))
	f.Add([]byte(`{"document":{"file_type":"md","pages":["dpe1:` + strings.Repeat("a", 64) + `"]},"pages":[{"elements":[]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sk, err := DecodeSkeleton(b)
		if err != nil {
			return
		}
		// Accepted means verified: the stated hash is the recomputed one
		// and every page is the one the document lists.
		if !wire.ValidHash(sk.DocHash) || len(sk.Pages) != len(sk.Document.Pages) {
			t.Fatalf("accepted %+v", sk)
		}
	})
}
