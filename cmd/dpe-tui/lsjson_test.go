package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/internal/hostilepeer"
)

// lsResourceSamples are strings meant to hit every branch of encoding/json's
// string encoder: every ASCII byte, HTML characters, invalid UTF-8, U+2028
// and U+2029, wide and combining characters, empty.
func lsResourceSamples() []string {
	var ascii strings.Builder
	for b := range 0x80 {
		ascii.WriteByte(byte(b))
	}
	return []string{
		"", "plain", ascii.String(), `<script>&"quote"\back</script>`,
		"\xff\xfe bad \xc3", "a\u2028b\u2029c", "漢字 e\u0301 🙂", "\x00\x1f\x7f",
		"\ufffd literal", strings.Repeat("é", 50) + "\xe2\x80", "tab\there\r\n",
	}
}

// TestLsResourceJSON_SameAsEncodingJSON: the hand-written encoder of ls
// --json rows writes exactly what json.Marshal writes, for crafted and
// random field values (nil and empty slices, nil and set sizes included).
func TestLsResourceJSON_SameAsEncodingJSON(t *testing.T) {
	samples := lsResourceSamples()
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string {
		if rng.IntN(3) == 0 { // random bytes, often invalid UTF-8
			b := make([]byte, rng.IntN(12))
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			return string(b)
		}
		return samples[rng.IntN(len(samples))]
	}
	list := func() []string {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		out := make([]string, 1+rng.IntN(3))
		for i := range out {
			out[i] = pick()
		}
		return out
	}
	check := func(r lsResource) {
		t.Helper()
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.appendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("appendJSON\n%s\njson.Marshal\n%s", got, want)
		}
	}
	for _, s := range samples {
		check(lsResource{Computer: s, Server: s, URI: s, Name: s, MimeType: s, FileType: &s, Description: s, LastModified: &s,
			Keywords: []string{s, s}, Problems: []string{s}})
	}
	for i := range 5000 {
		r := lsResource{Computer: pick(), Server: pick(), URI: pick(), Name: pick(), MimeType: pick(),
			Keywords: list(), Description: pick(), Problems: list()}
		if i%2 == 0 {
			n := rng.Int64() - rng.Int64()
			r.Size = &n
		}
		if i%3 != 0 {
			pc, lm, ft := rng.IntN(5)-1, pick(), pick()
			r.PageCount, r.LastModified, r.FileType = &pc, &lm, &ft
		}
		check(r)
	}
	// Every rune boundary case of a short string.
	for r := range rune(0x3000) {
		if utf8.ValidRune(r) {
			check(lsResource{Name: "x" + string(r) + "y"})
		}
	}
}

// TestLs_JSONRowsMatchTheEncoder: the rows ls --json prints for a listing
// whose names hold HTML, separators, invalid UTF-8 and control bytes are
// json.Marshal's bytes of the same typed rows (the shipped path, not only
// the encoder).
func TestLs_JSONRowsMatchTheEncoder(t *testing.T) {
	var res []map[string]any
	for i, s := range lsResourceSamples() {
		r := hostilepeer.Resource(fmt.Sprintf("dpe://org.x/%d?q=<&>", i), s)
		r["description"] = s
		r["_meta"] = map[string]any{"keywords": []any{s, 1}, "page_count": 2}
		res = append(res, r)
	}
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "box", Servers: []string{"lib"}, Resources: func(string, string) hostilepeer.Reply { return hostilepeer.Page("", res...) },
	}}})
	code, out, errOut := runBounded(t, "ls", "resources", "--url="+srv.URL, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(res) {
		t.Fatalf("%d rows, want %d", len(lines), len(res))
	}
	for _, l := range lines {
		var r lsResource
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if len(r.Problems) == 0 {
			t.Errorf("no problem for the number keyword: %s", l)
		}
		want, _ := json.Marshal(r)
		if string(want) != l {
			t.Fatalf("row\n%s\nre-encoded\n%s", l, want)
		}
	}
}

// What the server did not say is null in ls --json: page_count,
// file_type, lastModified and size alike.
func TestLs_JSONUnknownsAreNull(t *testing.T) {
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "box", Servers: []string{"lib"}, Resources: func(string, string) hostilepeer.Reply {
			return hostilepeer.Page("", hostilepeer.Resource("dpe://org.x/bare", "bare"))
		},
	}}})
	code, out, errOut := runBounded(t, "ls", "resources", "--url="+srv.URL, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{`"page_count":null`, `"file_type":null`, `"lastModified":null`, `"size":null`} {
		if !strings.Contains(out, want) {
			t.Errorf("row %s has no %s", out, want)
		}
	}
}
