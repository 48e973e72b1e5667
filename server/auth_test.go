package server

import (
	"errors"
	"testing"

	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func TestAuth_RoleAndAPIKey(t *testing.T) {
	const key = "s3cret-key"
	_, open := startServer(t, Options{})
	_, locked := startServer(t, Options{APIKey: key})
	tests := []struct {
		name    string
		base    string
		cfg     peerConfig
		wantMsg string // "" = accepted
		code    float64
	}{
		{"no role", open, peerConfig{}, `auth.role must be "agent" or "computer"`, 400},
		{"unknown role", open, peerConfig{Role: "admin"}, `auth.role must be "agent" or "computer"`, 400},
		{"agent without key when none is set", open, peerConfig{Role: protocol.RoleAgent}, "", 0},
		{"computer without key when none is set", open, peerConfig{Role: protocol.RoleComputer}, "", 0},
		{"missing key", locked, peerConfig{Role: protocol.RoleAgent}, "API key required: send header x-api-key or auth.api_key", 401},
		{"wrong key in auth", locked, peerConfig{Role: protocol.RoleAgent, APIKey: "nope"}, "invalid API key", 401},
		{"wrong key in header", locked, peerConfig{Role: protocol.RoleComputer, HeaderKey: "s3cret-kez"}, "invalid API key", 401},
		{"key prefix", locked, peerConfig{Role: protocol.RoleComputer, HeaderKey: "s3cret"}, "invalid API key", 401},
		{"right key in auth", locked, peerConfig{Role: protocol.RoleAgent, APIKey: key}, "", 0},
		{"right key in header", locked, peerConfig{Role: protocol.RoleComputer, HeaderKey: key}, "", 0},
		{"bad role checked before key", locked, peerConfig{Role: "root", APIKey: key}, `auth.role must be "agent" or "computer"`, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := dial(t, tc.base, tc.cfg)
			if tc.wantMsg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				p.join(tc.cfg.Role, "x", "auth-"+tc.name)
				return
			}
			if err == nil {
				t.Fatal("accepted, want refusal")
			}
			if err.Error() != tc.wantMsg {
				t.Errorf("connect_error %q, want %q", err.Error(), tc.wantMsg)
			}
			var ext *types.ExtendedError
			if !errors.As(err, &ext) {
				t.Fatalf("connect_error %T, want *ExtendedError", err)
			}
			data, _ := ext.Data.(map[string]any)
			if data["code"] != tc.code || data["message"] != tc.wantMsg {
				t.Errorf("connect_error data %v, want code %v", ext.Data, tc.code)
			}
		})
	}
}

func TestAuth_DefaultNamespaceRefused(t *testing.T) {
	_, base := startServer(t, Options{})
	_, err := dial(t, base, peerConfig{Role: protocol.RoleAgent, Namespace: "/"})
	if err == nil || err.Error() != "unknown namespace: SMCP speaks in /smcp" {
		t.Fatalf("connect to / = %v, want refusal naming /smcp", err)
	}
}
