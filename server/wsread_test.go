package server

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/zishang520/socket.io/parsers/engine/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"
)

// textPacket must decode what the library's v4 parser decodes, the same
// way, and leave to it everything else.
func TestTextPacket_IsTheParsersDecoding(t *testing.T) {
	page := `42/smcp,7["` + strings.Repeat("é<x>", 3000) + `"]`
	for _, in := range []string{"0", "1", "2", "3", "2probe", "3probe", "4hello", "5", "6", page, "4" + page, "4", "4\u2028"} {
		got, ok := textPacket([]byte(in), 4)
		if !ok {
			t.Fatalf("%.20q: declined", in)
		}
		want, err := parser.Parserv4().DecodePacket(types.NewStringBuffer([]byte(in)))
		if err != nil {
			t.Fatalf("%.20q: parser: %v", in, err)
		}
		if got.Type != want.Type || !bytes.Equal(got.Data.(*types.StringBuffer).Bytes(), want.Data.(*types.StringBuffer).Bytes()) {
			t.Fatalf("%.20q: got %v %.20q, the parser %v %.20q", in, got.Type, got.Data, want.Type, want.Data)
		}
	}
	for _, in := range []string{"", "bAAEC", "7", "x4", "\x00"} {
		if _, ok := textPacket([]byte(in), 4); ok {
			t.Fatalf("%q: decoded, want it left to the parser", in)
		}
	}
	if _, ok := textPacket([]byte("4hello"), 3); ok {
		t.Fatal("protocol 3 decoded, want it left to the parser")
	}
}

// readMessage returns exactly the message's bytes however the reader cuts
// them, never aliasing the scratch buffer it keeps, which it drops when
// it grew past keepScratch.
func TestReadMessage_ExactCopies(t *testing.T) {
	w := &wsTransport{}
	a := bytes.Repeat([]byte("abcdefgh"), 5000)
	got, err := w.readMessage(iotest.OneByteReader(bytes.NewReader(a)))
	if err != nil || !bytes.Equal(got, a) {
		t.Fatalf("one byte at a time: %v, %d bytes", err, len(got))
	}
	if cap(got) > len(a)+len(a)/8 { // a size class, not a doubled buffer
		t.Fatalf("the copy has capacity %d for %d bytes", cap(got), len(a))
	}
	b := []byte("short")
	got2, err := w.readMessage(bytes.NewReader(b))
	if err != nil || !bytes.Equal(got2, b) || !bytes.Equal(got, a) {
		t.Fatal("a second message changed the first or came back wrong")
	}
	if cap(w.scratch) < len(a) {
		t.Fatalf("scratch %d bytes, want it kept (%d)", cap(w.scratch), len(a))
	}
	big := bytes.Repeat([]byte{'z'}, keepScratch+1)
	if got, err := w.readMessage(bytes.NewReader(big)); err != nil || len(got) != len(big) {
		t.Fatalf("big: %v, %d bytes", err, len(got))
	}
	if w.scratch != nil {
		t.Fatalf("scratch of %d bytes kept, want it dropped", cap(w.scratch))
	}
	if _, err := w.readMessage(iotest.ErrReader(io.ErrUnexpectedEOF)); err == nil {
		t.Fatal("a read error was not returned")
	}
}

// BenchmarkWSRead_40KBPage is one 40 KB text message (a resource page ack)
// from the websocket reader to a decoded engine.io packet: the library's
// way (a buffer grown from empty, then the parser's copy into another)
// against wsTransport's (scratch, one copy at size). Compare B/op and
// allocs/op of the two sub-benchmarks.
func BenchmarkWSRead_40KBPage(b *testing.B) {
	msg := []byte(`442/smcp,7[{"resources":[` + strings.Repeat(`{"uri":"dpe://h/x","name":"n"},`, 1300) + `{}]}]`)
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			read := types.NewStringBuffer(nil)
			if _, err := read.ReadFrom(bytes.NewReader(msg)); err != nil {
				b.Fatal(err)
			}
			if _, err := parser.Parserv4().DecodePacket(read); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("wsTransport", func(b *testing.B) {
		b.ReportAllocs()
		w := &wsTransport{}
		for b.Loop() {
			data, err := w.readMessage(bytes.NewReader(msg))
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := textPacket(data, 4); !ok {
				b.Fatal("declined")
			}
		}
	})
}
