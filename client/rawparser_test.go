package client

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// A dialed agent reads acks on /smcp as raw JSON (sioconn.RawAckParser):
// the answer reaches decodeAck as the bytes the server sent, and the join
// and the listing work with every peer implementation as before.
func TestDial_AcksArriveAsRawJSON(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--computer", "box")
		c := dialT(t, testOptions(p.URL, "office-a", "agent-1"))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		args, err := c.sc.EmitWithAck(ctx, 5*time.Second, protocol.EventListRoom,
			protocol.ListRoomReq{AgentCallData: c.agentCall(), OfficeID: "office-a"})
		if err != nil {
			t.Fatal(err)
		}
		if len(args) == 0 {
			t.Fatal("empty ack")
		}
		raw, ok := args[0].(json.RawMessage)
		if !ok {
			t.Fatalf("ack argument is %T, want json.RawMessage", args[0])
		}
		var ret struct {
			Sessions []protocol.SessionInfo `json:"sessions"`
		}
		if err := json.Unmarshal(raw, &ret); err != nil || len(ret.Sessions) == 0 {
			t.Fatalf("ack %s: %v", raw, err)
		}
		if comps, err := c.Computers(ctx); err != nil || len(comps) != 1 || comps[0].Name != "box" {
			t.Fatalf("Computers = %+v, %v", comps, err)
		}
	})
}
