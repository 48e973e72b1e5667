package server

import (
	"reflect"
	"testing"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// decoded feeds wire packets to a gated decoder and records what it forwards.
func gatedForTest(t *testing.T) (*gatedDecoder, *[]string, *gates) {
	t.Helper()
	g := newGates()
	d := gateParser{base: parser.NewParser(), gates: g}.NewDecoder().(*gatedDecoder)
	var got []string
	_ = d.On("decoded", func(args ...any) {
		p := args[0].(*parser.Packet)
		got = append(got, p.Type.String()+" "+p.Nsp)
	})
	return d, &got, g
}

func TestGate_HoldsNamespacePacketsUntilReleased(t *testing.T) {
	d, got, g := gatedForTest(t)
	var auth map[string]any
	_ = d.On("decoded", func(args ...any) {
		if p := args[0].(*parser.Packet); p.Type == parser.CONNECT {
			auth, _ = p.Data.(map[string]any)
		}
	})
	for _, frame := range []string{
		`0/smcp,{"role":"agent"}`,
		`2/smcp,["server:join_office",{}]`,
		`21["other-namespace-is-not-held"]`,
		`2/smcp,3["client:get_config",{}]`,
	} {
		if err := d.Add(frame); err != nil {
			t.Fatalf("Add(%s): %v", frame, err)
		}
	}
	if want := []string{"CONNECT /smcp", "EVENT /"}; !reflect.DeepEqual(*got, want) {
		t.Fatalf("before release: %v, want %v", *got, want)
	}
	if auth["role"] != "agent" {
		t.Errorf("auth lost its fields: %v", auth)
	}
	gd := g.takeGate(auth)
	if gd != d {
		t.Fatalf("token did not lead back to the decoder")
	}
	if _, ok := auth[gateAuthKey]; ok {
		t.Error("token left in auth")
	}
	gd.release(protocol.Namespace)
	want := []string{"CONNECT /smcp", "EVENT /", "EVENT /smcp", "EVENT /smcp"}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("after release: %v, want %v", *got, want)
	}
	// Once released, packets flow straight through; a token is single use.
	_ = d.Add(`2/smcp,["server:list_room",{}]`)
	if len(*got) != 5 {
		t.Errorf("after release packets are held: %v", *got)
	}
	if g.take("nope") != nil || g.takeGate(map[string]any{gateAuthKey: "x"}) != nil {
		t.Error("unknown token found a decoder")
	}
}

func TestGate_DestroyForgetsTokens(t *testing.T) {
	d, _, g := gatedForTest(t)
	_ = d.Add(`0/smcp,{"role":"agent"}`)
	d.Destroy()
	if len(g.m) != 0 {
		t.Errorf("tokens after Destroy: %v", g.m)
	}
}

// Whatever arrives, the gate forwards every decoded packet exactly once, in
// order, once released.
func FuzzGatedDecoder(f *testing.F) {
	for _, s := range []string{
		`0/smcp,{"role":"agent"}`, `0/smcp,`, `0/smcp,[1,2]`, `2/smcp,["x"]`, `21["y"]`, `3/smcp,4[true]`,
		`0/smcp,{"\u0000smcp-gate":"forged"}`, `51-/smcp,["b",{"_placeholder":true,"num":0}]`, `garbage`,
	} {
		f.Add(s, `2/smcp,["after"]`)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		d, got, g := gatedForTest(t)
		want := 0
		inner := parser.NewParser().NewDecoder()
		_ = inner.On("decoded", func(...any) { want++ })
		for _, frame := range []string{a, b} {
			_ = inner.Add(frame)
			_ = d.Add(frame)
		}
		for tok := range g.m {
			if gd := g.take(tok); gd != nil {
				gd.release(protocol.Namespace)
			}
		}
		if len(*got) != want {
			t.Fatalf("forwarded %d packets, the plain decoder decoded %d", len(*got), want)
		}
		d.Destroy()
	})
}
