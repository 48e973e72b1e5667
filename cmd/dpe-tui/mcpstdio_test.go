package main

import (
	"strings"
	"testing"
)

// TestMCP_StdioAnswersWhatWasPipedBeforeEOF: requests piped into `mcp`
// with stdin closed right after (printf … | dpe-tui mcp) are all
// answered before it exits; the go-sdk ended the session at EOF and the
// tools/call sent last got no answer at all.
func TestMCP_StdioAnswersWhatWasPipedBeforeEOF(t *testing.T) {
	cleanEnv(t)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"find","arguments":{"query":"harbour"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	}, "\n") + "\n"
	code, out, errOut := runStdin(t, in, "mcp")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, id := range []string{`"id":1,`, `"id":"two",`, `"id":3,`} {
		if !strings.Contains(out, id) {
			t.Errorf("no answer with %s:\n%.2000s", id, out)
		}
	}
}

// The pending set follows lines written in pieces and ignores
// notifications and garbage.
func TestStdioPending_LinesInPieces(t *testing.T) {
	p := newStdioPending()
	var s lineSplitter
	for _, piece := range []string{`{"jsonrpc":"2.0","id":7,"me`, `thod":"ping"}` + "\n" + `{"method":"n"}` + "\n" + "garbage\n"} {
		s.feed([]byte(piece), p.request)
	}
	if len(p.open) != 1 || !p.open["7"] {
		t.Fatalf("open %v, want only 7", p.open)
	}
	p.answer([]byte(`{"jsonrpc":"2.0","id":7,"result":{}}`))
	if len(p.open) != 0 {
		t.Fatalf("open after the answer: %v", p.open)
	}
	p.drain(0) // returns at once with nothing open
}
