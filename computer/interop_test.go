package computer

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// The interop peers (interop/peers) are SMCP servers on other Socket.IO
// implementations: python-socketio + aiohttp (which rejects permessage-
// deflate) and Node socket.io 4.8. Missing runtimes skip locally and fail
// under CI (team brief §Dependencies).

// startInteropPeer runs a peer and returns its URL; it ends with the test.
func startInteropPeer(t *testing.T, rt interoptest.Runtime, args ...string) string {
	t.Helper()
	return interoptest.Start(t, rt, args...).URL
}

func TestInterop_ComputerJoinsOtherSocketIOServers(t *testing.T) {
	for _, rt := range interoptest.Runtimes() {
		t.Run(rt.Name, func(t *testing.T) {
			url := startInteropPeer(t, rt)
			c, err := startComputer(t, Options{URL: url, Office: "o", Name: "pc"})
			if err != nil {
				t.Fatalf("Start against %s: %v", rt.Name, err)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestInterop_StartRefusals(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		apiKey string
		check  func(t *testing.T, err error)
	}{
		{"VersionMismatchIs4008", []string{"--server-version", "0.3.0"}, "", func(t *testing.T, err error) {
			var perr *protocol.Error
			if !errors.As(err, &perr) || perr.Code != protocol.CodeVersionMismatch || perr.ServerVersion != "0.3.0" {
				t.Fatalf("err %v, want a 4008 *protocol.Error naming server version 0.3.0", err)
			}
		}},
		{"WrongAPIKeyIs401", []string{"--api-key", "right"}, "wrong", func(t *testing.T, err error) {
			var perr *protocol.Error
			if !errors.As(err, &perr) || perr.Code != protocol.CodeUnauthorized {
				t.Fatalf("err %v, want a 401 *protocol.Error", err)
			}
			if strings.Contains(err.Error(), "wrong") {
				t.Fatal("the API key was echoed in the error")
			}
		}},
		{"NamespaceRefusalIsReported", []string{"--refuse-connect"}, "", func(t *testing.T, err error) {
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Fatalf("err %v, want a connect refusal", err)
			}
		}},
	}
	for _, rt := range interoptest.Runtimes() {
		for _, tc := range tests {
			t.Run(rt.Name+"/"+tc.name, func(t *testing.T) {
				url := startInteropPeer(t, rt, tc.args...)
				_, err := startComputer(t, Options{URL: url, Office: "o", Name: "pc", APIKey: tc.apiKey, ConnectTimeout: 5 * time.Second})
				if err == nil {
					t.Fatal("Start succeeded")
				}
				tc.check(t, err)
			})
		}
	}
}
