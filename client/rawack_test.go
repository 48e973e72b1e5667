package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// hostilePage has every lenient case of a listing: wrong types per field, an
// entry without uri, a non-object entry, an oversize field, a bad date.
const hostilePage = `{"resources":[
	{"uri":"dpe://h/a","name":"A","size":10,"_meta":{"page_count":3,"keywords":["k",1],"file_type":"pdf"},"annotations":{"lastModified":"2024-01-02T03:04:05Z","audience":["user",2]}},
	{"uri":"dpe://h/b","size":"big","name":7,"annotations":{"audience":["user"]},"_meta":{"keywords":"x","last_modified":"yesterday"}},
	{"uri":"dpe://h/c","size":-1,"title":"` + "\u202e" + `t","_meta":null},
	{"uri":"dpe://h/d","size":1.5,"description":"DESC"},
	{"name":"no uri"},
	{"uri":12},
	"junk",
	null
],"next_cursor":"c2","extra":{"ignored":true}}`

// The agent reads a page the same whether the Socket.IO parser decoded the
// ack into maps or left it as raw JSON: same resources, same problems, same
// bytes in Raw (up to the map encoder's key order), same cursor.
func TestResources_RawAndDecodedAcksReadTheSame(t *testing.T) {
	long := strings.Repeat("é", 300)
	page := strings.Replace(hostilePage, `"DESC"`, `"`+long+`"`, 1)
	read := func(args func() []any) *ResourcePage {
		t.Helper()
		c := fakeClient(t, func(string, map[string]any) []any { return args() })
		c.opt.Limits.MaxFieldBytes = 100
		p, err := c.Resources(context.Background(), "box", "lib", "")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	decoded := read(func() []any { return jsonArgs(t, page) })
	raw := read(func() []any { return []any{json.RawMessage(page)} })
	if len(raw.Resources) != 4 || raw.NextCursor != "c2" {
		t.Fatalf("raw page: %d resources, cursor %q", len(raw.Resources), raw.NextCursor)
	}
	if !reflect.DeepEqual(stripRaw(decoded), stripRaw(raw)) {
		t.Errorf("decoded\n%+v\nraw\n%+v", stripRaw(decoded), stripRaw(raw))
	}
	if string(raw.Raw) != page {
		t.Errorf("raw page Raw is not the bytes received")
	}
	d := raw.Resources[3]
	if !d.Truncated || !strings.HasSuffix(d.Description, truncMarker) || d.Size != nil {
		t.Errorf("d = %+v: description cut, fractional size dropped", d)
	}
	b := raw.Resources[1]
	if b.Size != nil || b.Name != "" || len(b.Meta.Problems) != 2 {
		t.Errorf("b = %+v: wrong-type size and name read as zero; keywords and date reported", b)
	}
}

// stripRaw leaves what a page means, not the bytes it came as.
func stripRaw(p *ResourcePage) []Resource {
	out := make([]Resource, len(p.Resources))
	for i, r := range p.Resources {
		var m, a any
		_ = json.Unmarshal(r.Resource.Meta, &m)
		_ = json.Unmarshal(r.Annotations, &a)
		r.Resource.Meta, r.Annotations = nil, nil
		r.Meta.Problems = append([]string{fmt.Sprint(m), fmt.Sprint(a)}, r.Meta.Problems...)
		out[i] = r
	}
	return out
}

func TestDecodeAck_RawArguments(t *testing.T) {
	type answer struct {
		A int `json:"a"`
	}
	for _, tc := range []struct {
		name    string
		args    []any
		want    int
		routed  bool
		code    int
		badKind string
	}{
		{name: "object", args: []any{json.RawMessage(` {"a":7} `)}, want: 7, routed: true},
		{name: "node style", args: []any{json.RawMessage(`null`), json.RawMessage(`{"a":8}`)}, want: 8, routed: true},
		{name: "wrapped", args: []any{json.RawMessage(`[{"a":9}]`)}, want: 9, routed: true},
		{name: "string", args: []any{json.RawMessage(`"{\"a\":10}"`)}, want: 10, routed: true},
		{name: "empty object", args: []any{json.RawMessage(`{ }`)}},
		{name: "null", args: []any{json.RawMessage(`null`)}},
		{name: "empty string", args: []any{json.RawMessage(`""`)}},
		{name: "error", args: []any{json.RawMessage(`{"code":4014,"message":"no such server"}`)}, routed: true, code: 4014},
		{name: "escaped error key", args: []any{json.RawMessage(`{"\u0063ode":404,"message":"gone"}`)}, routed: true, code: 404},
		{name: "not an object", args: []any{json.RawMessage(`[1,2]`)}, routed: true, badKind: "an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out answer
			_, err := decodeAck("client:x", "box", tc.args, &out)
			var nr *NotRoutedError
			var perr *protocol.Error
			var mal *MalformedAckError
			switch {
			case !tc.routed:
				if !errors.As(err, &nr) {
					t.Errorf("err %v, want not routed", err)
				}
			case tc.code != 0:
				if !errors.As(err, &perr) || perr.Code != tc.code {
					t.Errorf("err %v, want code %d", err, tc.code)
				}
			case tc.badKind != "":
				if !errors.As(err, &mal) || !strings.Contains(mal.Reason, tc.badKind) {
					t.Errorf("err %v, want malformed (%s)", err, tc.badKind)
				}
			default:
				if err != nil || out.A != tc.want {
					t.Errorf("got %+v, %v; want a=%d", out, err, tc.want)
				}
			}
		})
	}
}

// A type error in a strict answer still makes it malformed; only lenient
// answer types read past it.
func TestDecodeAck_TypeErrorsAreMalformedUnlessLenient(t *testing.T) {
	var strict struct {
		A int `json:"a"`
	}
	_, err := decodeAck("client:x", "box", []any{json.RawMessage(`{"a":"x"}`)}, &strict)
	var mal *MalformedAckError
	if !errors.As(err, &mal) {
		t.Errorf("strict: err %v, want malformed", err)
	}
	var page resourcesAck
	if _, err := decodeAck("client:x", "box", []any{json.RawMessage(`{"resources":[{"uri":5},{"uri":"dpe://h/x"}],"next_cursor":3}`)}, &page); err != nil {
		t.Errorf("lenient: %v", err)
	}
	if len(page.Resources) != 2 || page.Resources[1].URI != "dpe://h/x" {
		t.Errorf("lenient page %+v", page)
	}
}

// BenchmarkResourcesDecode measures the agent's decoding of one 100-resource
// page, from an ack the parser decoded into maps and from a raw one, also
// per resource (ns/resource, allocs/resource).
func BenchmarkResourcesDecode(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"resources":[`)
	for i := range 100 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"uri":"dpe://bench/generated/note-%05d","name":"note-%05d","title":"Note %d","description":"Generated note %d of 100000.","mimeType":"application/vnd.dpe+json","size":%d,"annotations":{"audience":["user","assistant"],"priority":0.5,"lastModified":"2024-05-01T10:00:00Z"},"_meta":{"file_type":"md","page_count":1,"keywords":["note","generated","bench"],"file_uri":"file:///tmp/x/%d.md"}}`, i, i, i, i, 100+i, i)
	}
	sb.WriteString(`],"next_cursor":"abc"}`)
	page := sb.String()
	var decoded any
	_ = json.Unmarshal([]byte(page), &decoded)
	for _, bc := range []struct {
		name string
		args func() []any
	}{
		{"maps", func() []any { return []any{decoded} }},
		{"raw", func() []any { return []any{json.RawMessage(page)} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := fakeClientB(b, bc.args)
			b.ReportAllocs()
			b.SetBytes(int64(len(page)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			n := 0
			for b.Loop() {
				p, err := c.Resources(context.Background(), "box", "lib", "")
				if err != nil || len(p.Resources) != 100 {
					b.Fatal(err)
				}
				n += len(p.Resources)
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/resource")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/resource")
		})
	}
}

func fakeClientB(b *testing.B, args func() []any) *Client {
	opt, err := Options{URL: "http://127.0.0.1:1", Office: "office-a", Name: "agent"}.normalized()
	if err != nil {
		b.Fatal(err)
	}
	c := newClient(opt)
	b.Cleanup(c.cancel)
	c.call = func(context.Context, request) ([]any, error) { return args(), nil }
	return c
}
