package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func TestProbeHandshake_ClassifiesRefusals(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		header   map[string]string
		body     string
		wantCode int    // *protocol.Error
		wantHTTP int    // *HandshakeError
		wantIn   string // message must contain
	}{
		{name: "4008 body and header", status: 400, header: map[string]string{"X-A2C-Error-Code": "4008"},
			body:     `{"code":4008,"message":"Protocol version mismatch","server_version":"0.3.0","client_version":"0.2.0","min_supported":"0.3.0","max_supported":"0.3.999"}`,
			wantCode: 4008, wantIn: "client=0.2.0, server=0.3.0, supported=0.3.0..0.3.999"},
		{name: "4008 header without a readable body", status: 400, header: map[string]string{"X-A2C-Error-Code": "4008"}, body: `<html>bad</html>`,
			wantCode: 4008, wantIn: "client=0.2.0"},
		{name: "missing version 400 body", status: 400, body: `{"code":400,"message":"Missing a2c_version query parameter"}`, wantCode: 400, wantIn: "Missing a2c_version"},
		{name: "401 with body", status: 401, body: `{"code":401,"message":"Invalid API key"}`, wantCode: 401, wantIn: "Invalid API key"},
		{name: "403 without body", status: 403, body: ``, wantCode: 403, wantIn: "check --api-key"},
		{name: "404 wrong path", status: 404, body: "Not Found\n\x1b[2J", wantHTTP: 404, wantIn: "wrong path?"},
		{name: "engine.io own 400", status: 400, body: `{"code":0,"message":"Transport unknown"}`, wantHTTP: 400, wantIn: "HTTP 400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotKey, gotVersion string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotKey, gotVersion = r.Header.Get("x-api-key"), r.URL.Query().Get("a2c_version")
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			opt, _ := Options{URL: srv.URL, Office: "o", Name: "n", APIKey: "k-123"}.normalized()
			err := probeHandshake(context.Background(), opt)
			if gotKey != "k-123" || gotVersion != protocol.Version {
				t.Errorf("probe sent x-api-key %q a2c_version %q", gotKey, gotVersion)
			}
			var perr *protocol.Error
			var herr *HandshakeError
			switch {
			case tt.wantCode != 0:
				if !errors.As(err, &perr) || perr.Code != tt.wantCode {
					t.Fatalf("err = %v (%T), want code %d", err, err, tt.wantCode)
				}
			default:
				if !errors.As(err, &herr) || herr.Status != tt.wantHTTP {
					t.Fatalf("err = %v (%T), want HTTP %d", err, err, tt.wantHTTP)
				}
			}
			if !strings.Contains(err.Error(), tt.wantIn) || strings.Contains(err.Error(), "k-123") || strings.Contains(err.Error(), "\n") {
				t.Errorf("message %q: want %q, one line, no API key", err, tt.wantIn)
			}
			if !fatalConnectError(err) {
				t.Errorf("%v should stop reconnection", err)
			}
		})
	}
}

func TestProbeHandshake_AcceptedClosesItsSession(t *testing.T) {
	var closed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Query().Get("sid") == "abc" {
			closed.Store(true)
			_, _ = w.Write([]byte("ok"))
			return
		}
		_, _ = w.Write([]byte(`0{"sid":"abc","upgrades":[],"pingInterval":25000,"pingTimeout":20000}`))
	}))
	defer srv.Close()
	opt, _ := Options{URL: srv.URL, Office: "o", Name: "n"}.normalized()
	if err := probeHandshake(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if !closed.Load() {
		t.Error("the probe left its engine.io session open")
	}
}

func TestDial_VersionMismatchIsProtocolErrorWithoutRetry(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("X-A2C-Error-Code", "4008")
		w.WriteHeader(400)
		_, _ = w.Write([]byte(`{"code":4008,"message":"Protocol version mismatch","server_version":"0.3.0","client_version":"0.2.0","min_supported":"0.3.0","max_supported":"0.3.999"}`))
	}))
	defer srv.Close()
	_, err := Dial(context.Background(), Options{URL: srv.URL, Office: "o", Name: "n", APIKey: "secret-k"})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeVersionMismatch {
		t.Fatalf("err = %v, want 4008", err)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("server saw %d requests, want 1 (no retry)", n)
	}
	if strings.Contains(err.Error(), "secret-k") {
		t.Errorf("API key in %q", err)
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
	tests := []struct {
		name string
		opt  Options
		want string
	}{
		{name: "empty URL", opt: Options{Office: "o", Name: "n"}, want: "server URL is empty"},
		{name: "bad scheme", opt: Options{URL: "ftp://h", Office: "o", Name: "n"}, want: "scheme must be"},
		{name: "no host", opt: Options{URL: "http://", Office: "o", Name: "n"}, want: "has no host"},
		{name: "password in URL is not echoed", opt: Options{URL: "ftp://u:pw-999@h", Office: "o", Name: "n"}, want: "scheme must be"},
		{name: "no office", opt: Options{URL: "http://h", Name: "n"}, want: "office is empty"},
		{name: "no name", opt: Options{URL: "http://h", Office: "o"}, want: "agent name is empty"},
		{name: "unknown transport", opt: Options{URL: "http://h", Office: "o", Name: "n", Transport: "webtransport"}, want: "unknown transport"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.opt.normalized()
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "pw-999") {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	opt, err := Options{URL: "wss://h:8443/ignored", Office: "o", Name: "n"}.normalized()
	if err != nil {
		t.Fatal(err)
	}
	if opt.Transport != TransportWebSocket || opt.Path != "/socket.io/" || opt.ConnectTimeout != DefaultConnectTimeout ||
		opt.RequestTimeout != DefaultRequestTimeout || handshakeURL(opt).String() != "https://h:8443/socket.io/?EIO=4&a2c_version=0.2.0&transport=polling" {
		t.Errorf("defaults: %+v %s", opt, handshakeURL(opt))
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
	// The swallowed dial error is reported by the open watcher, so Dial
	// fails on the error, not on its 30 s connect timeout.
	if strings.Contains(err.Error(), "no connection within") || ctx.Err() != nil {
		t.Fatalf("err = %v: Dial waited for its timeout", err)
	}
	if !strings.Contains(err.Error(), "websocket") {
		t.Errorf("err = %v, want it to name the websocket failure", err)
	}
}
