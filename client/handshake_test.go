package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// The HTTP-layer refusals (400, 401, 403, 404, 4008 by body or header) are
// classified by internal/sioconn and tested there, for both sides; these
// tests drive Dial.

// versionServer refuses every handshake with a 4008 naming serverVersion
// and records the a2c_version of each.
func versionServer(t *testing.T, serverVersion string) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Query().Get("a2c_version"))
		mu.Unlock()
		w.Header().Set("X-A2C-Error-Code", "4008")
		w.WriteHeader(400)
		_, _ = fmt.Fprintf(w, `{"code":4008,"message":"Protocol version mismatch","server_version":%q,"client_version":%q}`,
			serverVersion, r.URL.Query().Get("a2c_version"))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

// A 4008 naming a version this build does not speak is final: one
// request, a *protocol.Error with both versions, the API key never echoed.
func TestDial_VersionMismatchIsProtocolErrorWithoutRetry(t *testing.T) {
	srv, seen := versionServer(t, "0.6.0")
	_, err := Dial(context.Background(), Options{URL: srv.URL, Office: "o", Name: "n", APIKey: "secret-k"})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeVersionMismatch || perr.ServerVersion != "0.6.0" || perr.ClientVersion != "0.2.0" {
		t.Fatalf("err = %v, want 4008 naming 0.6.0 and 0.2.0", err)
	}
	if got := seen(); len(got) != 1 {
		t.Errorf("server saw a2c_version %v, want one request (no retry)", got)
	}
	if strings.Contains(err.Error(), "secret-k") {
		t.Errorf("API key in %q", err)
	}
}

// A 4008 naming 0.3.x is retried once with 0.3.0, and only once; a
// forced version is never renegotiated.
func TestDial_VersionMismatchNamingA03ServerRetriesOnceWith03(t *testing.T) {
	srv, seen := versionServer(t, "0.3.2")
	_, err := Dial(context.Background(), Options{URL: srv.URL, Office: "o", Name: "n"})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeVersionMismatch {
		t.Fatalf("err = %v, want the second 4008", err)
	}
	if got := seen(); strings.Join(got, ",") != "0.2.0,0.3.0" {
		t.Errorf("server saw a2c_version %v, want 0.2.0 then 0.3.0", got)
	}

	srv, seen = versionServer(t, "0.3.0")
	_, err = Dial(context.Background(), Options{URL: srv.URL, Office: "o", Name: "n", Version: "0.2.0"})
	if !errors.As(err, &perr) || perr.Code != protocol.CodeVersionMismatch {
		t.Fatalf("forced: err = %v, want 4008", err)
	}
	if got := seen(); strings.Join(got, ",") != "0.2.0" {
		t.Errorf("forced 0.2.0: server saw a2c_version %v, want only 0.2.0", got)
	}
}

func TestDial_UnreachableServerFailsFast(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = Dial(ctx, Options{URL: "http://" + addr, Office: "o", Name: "n", ConnectTimeout: 20 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "connection refused") || ctx.Err() != nil {
		t.Fatalf("err = %v, want connection refused before any timeout", err)
	}
}

func TestDial_CancelledContextReturnsPromptly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Dial(ctx, Options{URL: "http://127.0.0.1:9", Office: "o", Name: "n"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestOptions_Validation(t *testing.T) {
	// name → options and the text the error must contain.
	for name, tt := range map[string]struct {
		opt  Options
		want string
	}{
		"empty URL":                     {opt: Options{Office: "o", Name: "n"}, want: "server URL is empty"},
		"bad scheme":                    {opt: Options{URL: "ftp://h", Office: "o", Name: "n"}, want: "scheme must be"},
		"no host":                       {opt: Options{URL: "http://", Office: "o", Name: "n"}, want: "has no host"},
		"password in URL is not echoed": {opt: Options{URL: "ftp://u:pw-999@h", Office: "o", Name: "n"}, want: "scheme must be"},
		"no office":                     {opt: Options{URL: "http://h", Name: "n"}, want: "office is empty"},
		"no name":                       {opt: Options{URL: "http://h", Office: "o"}, want: "agent name is empty"},
		"version not spoken":            {opt: Options{URL: "http://h", Office: "o", Name: "n", Version: "0.6.0"}, want: "not one this build speaks"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tt.opt.normalized()
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "pw-999") {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	opt, err := Options{URL: "wss://h:8443/smcp", Office: "o", Name: "n"}.normalized()
	if err != nil {
		t.Fatal(err)
	}
	if opt.Path != "" || opt.ConnectTimeout != DefaultConnectTimeout || opt.RequestTimeout != DefaultRequestTimeout {
		t.Errorf("defaults: %+v (Path stays empty so the URL's path is the engine.io path)", opt)
	}
}

func TestDial_WebSocketRefusedAfterGoodProbeFailsWithoutWaitingForTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("transport") == "websocket" {
			http.Error(w, "no websockets here", http.StatusBadGateway)
			return
		}
		if r.Method == http.MethodPost {
			_, _ = w.Write([]byte("ok"))
			return
		}
		_, _ = w.Write([]byte(`0{"sid":"abc","upgrades":[],"pingInterval":25000,"pingTimeout":20000}`))
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := Dial(ctx, Options{URL: srv.URL, Office: "o", Name: "n", ConnectTimeout: 30 * time.Second})
	if err == nil {
		t.Fatal("Dial succeeded without a websocket")
	}
	// The swallowed dial error is reported by the connect supervision, so
	// Dial fails on the error, not on its 30 s connect timeout.
	if strings.Contains(err.Error(), "no answer within") || ctx.Err() != nil {
		t.Fatalf("err = %v: Dial waited for its timeout", err)
	}
	if !strings.Contains(err.Error(), "websocket") {
		t.Errorf("err = %v, want it to name the websocket failure", err)
	}
}
