package main

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// The first significant byte of stdin is told while it is copied, across
// the copy's chunks, past blanks and a byte order mark.
func TestLeadByte_FirstSignificantByteAcrossChunks(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want byte
	}{
		{"", 0},
		{" \n\t ", 0},
		{"{}", '{'},
		{"\xEF\xBB\xBF  {\"a\":1}", '{'},
		{"   \n# Title", '#'},
		{"%PDF-1.7", '%'},
	} {
		var l leadByte
		// OneByteReader makes every byte its own Write.
		if _, err := io.Copy(&l, iotest.OneByteReader(strings.NewReader(tc.in))); err != nil {
			t.Fatal(err)
		}
		var whole leadByte
		whole.Write([]byte(tc.in))
		if l.b != tc.want || whole.b != tc.want {
			t.Errorf("%q: lead byte %q byte by byte, %q whole, want %q", tc.in, l.b, whole.b, tc.want)
		}
	}
}
