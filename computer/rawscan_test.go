package computer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The one-pass scan decides only what it reads exactly as the decoder path
// does: same answer, same uris, cursor, entry bytes and resources bytes.
func FuzzScanRawPage_SameAsDecoder(f *testing.F) {
	for _, s := range []string{
		`{"resources":[{"uri":"a"},{"name":"no uri"}],"nextCursor":"x"}`,
		`{"resources":[]}`,
		`{"resources":[ {"uri":"dpe://h/caf\u00e9"} ] , "ttl":0}`,
		`{"resources":[{"_meta":{"uri":"inner","k":[1,{"uri":2}]},"uri":"dpe://h/a","size":12,"ok":true}],"nextCursor":null}`,
		`{"RESOURCES":[{"URI":"a","uri":null}],"nextcursor":"c","resources":[{"uri":"b","Uri":"c"}]}`,
		`{"resources":[{"uri":"a"}],"nextCursor":"x","nextCursor":7}`,
		`{"resources":[{"uri":"a"}],"resources":null}`,
		`{"resources":null}`,
		`{"resources":[null]}`,
		`{"resources":[1]}`,
		`{"resources":[{"uri":5}]}`,
		`{"resources":{"uri":"a"}}`,
		`{"resources":[],"nextCursor":7}`,
		`{"nextCursor":"x"}`,
		`{"re\u0073ources":[{"uri":"a"}]}`,
		`{"reſources":[{"uri":"a"}]}`,
		`{"resources":[{"uri":"\ud800"}]}`,
		"{\"resources\":[{\"uri\":\"\xff\"}]}",
		`[1]`,
		`{"resources":[{"uri":"a"}]`,
		` { "resources" : [ { "uri" : "a" , "x" : [ ] } , { } ] } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok, decided := scanRawPage(b)
		if !decided {
			return
		}
		want, wantOK := decodeRawPage(json.RawMessage(b))
		if ok != wantOK {
			t.Fatalf("%q: scan ok %v, decoder %v", b, ok, wantOK)
		}
		if !ok {
			return
		}
		if got.next != want.next || !bytes.Equal(got.resources, want.resources) || len(got.entries) != len(want.entries) {
			t.Fatalf("%q: scan %q %q %d entries, decoder %q %q %d", b, got.next, got.resources, len(got.entries), want.next, want.resources, len(want.entries))
		}
		for i := range got.entries {
			if got.entries[i].uri != want.entries[i].uri || !bytes.Equal(got.entries[i].raw, want.entries[i].raw) {
				t.Fatalf("%q: entry %d: scan %q %q, decoder %q %q", b, i, got.entries[i].uri, got.entries[i].raw, want.entries[i].uri, want.entries[i].raw)
			}
		}
	})
}

// What go-sdk writes is read by the scan, not left to the decoder.
func TestScanRawPage_DecidesGoSDKOutput(t *testing.T) {
	for _, s := range []string{
		`{"resources":[{"_meta":{"file_type":"docx","keywords":["a","b"],"page_count":3},"description":"x \"q\"","mimeType":"application/vnd.dpe+json","name":"n","uri":"dpe://h/doc"}],"nextCursor":"Q3Vyc29y"}`,
		`{"resources":[]}`,
	} {
		if _, ok, decided := scanRawPage([]byte(s)); !decided || !ok {
			t.Errorf("%s: ok %v decided %v, want both", s, ok, decided)
		}
	}
}

// A page's fresh dpe hosts are those not seen before, each once, however
// many uris share an authority; a uri that does not parse brings none.
func TestRemember_FreshHostsOncePerAuthority(t *testing.T) {
	var s mcpServer
	page := func(uris ...string) resourcePage {
		p := &rawPage{}
		for _, u := range uris {
			p.entries = append(p.entries, rawEntry{uri: u, raw: json.RawMessage(`{}`)})
		}
		return resourcePage{rawPage: p}
	}
	for _, tc := range []struct {
		uris  []string
		fresh []string
	}{
		{[]string{"dpe://com.a/x", "dpe://com.a/y", "dpe://com.b/z", "dpe://com.a/w"}, []string{"com.a", "com.b"}},
		{[]string{"dpe://com.a/again", "DPE://COM.A/upper", "dpe://com.c/%zz", "file:///x", "dpe://com.d"}, nil},
		{[]string{"dpe://com.e/1", "dpe://com.e/2"}, []string{"com.e"}},
	} {
		got := s.remember(page(tc.uris...))
		if strings.Join(got, ",") != strings.Join(tc.fresh, ",") {
			t.Errorf("%q: fresh %q, want %q", tc.uris, got, tc.fresh)
		}
	}
	if len(s.resources) != 11 {
		t.Errorf("%d resources remembered, want 11", len(s.resources))
	}
}
