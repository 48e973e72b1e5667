package server

import (
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func TestSmoke(t *testing.T) {
	_, base := startServer(t, Options{})
	a := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	a.join(protocol.RoleAgent, "ag", "o1")
	got := a.call(protocol.EventListRoom, map[string]any{"agent": "ag", "req_id": "r1", "office_id": "o1"})
	t.Logf("%v", got)
}
