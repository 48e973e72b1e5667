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

// TestDecodeSkeleton_StepZeroOnEveryByte: the one-pass decode refuses
// what a whole-body I-JSON check refuses, wherever in the body it is:
// the envelope, the document, a page, a member nobody reads.
func TestDecodeSkeleton_StepZeroOnEveryByte(t *testing.T) {
	page := `{"title":"P","elements":[]}`
	_, ph, v := wire.ParsePage([]byte(page))
	if v != nil {
		t.Fatal(v)
	}
	doc := `{"file_type":"md","pages":["` + ph + `","` + ph + `"]}`
	_, dh, v := wire.ParseDocument([]byte(doc))
	if v != nil {
		t.Fatal(v)
	}
	good := `{"file_uri":"file:///a.md","doc_hash":"` + dh + `","document":` + doc + `,"pages":[` + page + `,` + page + `],"x":{"y":1}}`
	sk, err := DecodeSkeleton([]byte(good))
	if err != nil || sk.DocHash != dh || len(sk.Pages) != 2 || sk.Pages[0].Title == nil || *sk.Pages[0].Title != "P" {
		t.Fatalf("good skeleton: %+v, %v", sk, err)
	}
	bad := map[string]string{
		"duplicate envelope key":    strings.Replace(good, `"x":`, `"doc_hash":"`+dh+`","x":`, 1),
		"duplicate key in a page":   strings.Replace(good, `,`+page+`]`, `,{"title":"P","title":"P","elements":[]}]`, 1),
		"duplicate key in document": strings.Replace(good, `"document":{"file_type":"md",`, `"document":{"file_type":"md","file_type":"md",`, 1),
		"duplicate key in a member": strings.Replace(good, `{"y":1}`, `{"y":1,"y":1}`, 1),
		"lone surrogate in a key":   strings.Replace(good, `"x":`, `"\ud800":`, 1),
		"invalid UTF-8 in a member": strings.Replace(good, `{"y":1}`, "\"\xff\"", 1),
		"two values":                good + ` {}`,
		"pages not an array":        strings.Replace(good, `"pages":[`+page+`,`+page+`]`, `"pages":{}`, 1),
		"a page changed":            strings.Replace(good, `,`+page+`]`, `,{"title":"Q","elements":[]}]`, 1),
	}
	for name, b := range bad {
		if b == good {
			t.Fatalf("%s: the mutation did not apply", name)
		}
		if sk, err := DecodeSkeleton([]byte(b)); err == nil {
			t.Errorf("%s: accepted %+v", name, sk)
		}
	}
}
