package library

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// goSDKJSON is how go-sdk's JSON-RPC layer writes a result: encoding/json
// without HTML escaping, no trailing newline.
func goSDKJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// listResults returns the raw result of every resources/list answer the
// client read, in order, from a LoggingTransport's log.
func listResults(t *testing.T, log string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if !ok {
			continue
		}
		var msg struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &msg) != nil || !bytes.Contains(msg.Result, []byte(`"resources":[`)) {
			continue
		}
		out = append(out, msg.Result)
	}
	return out
}

// The library writes each resources/list page from its sources' JSON, made
// once per source, not by go-sdk's encoder: the bytes must be go-sdk's
// exactly (HTML characters unescaped, fields in go-sdk's order, the
// cursor and the result type in the envelope), on every page, and a
// source refined by its first read is listed as refined.
func TestList_PagesAreTheBytesGoSDKWrites(t *testing.T) {
	fsys := fstest.MapFS{
		"tom & jerry.md":  {Data: []byte("# Tom & Jerry <3 \"quoted\"\n\nText.\n")},
		"été/naïve.md":    {Data: []byte("# Ünïcödé ☃ \u2028 line\n\nMore.\n")},
		"notes/plain.txt": {Data: []byte("plain text\n")},
	}
	l, err := Open(Options{FS: fsys, Generated: 20, PageSize: 6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := l.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "library-test", Version: "0"}, nil).Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: &log}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })

	first, pages := listAll(t, cs)
	if pages < 4 {
		t.Fatalf("%d pages, want several", pages)
	}
	for _, r := range first {
		if strings.HasSuffix(r.URI, "/gen-0003") || strings.Contains(r.URI, "tom") {
			read(t, cs, r.URI)
		}
	}
	second, pages2 := listAll(t, cs)
	if len(second) != len(first) {
		t.Fatalf("the second listing has %d resources, the first %d", len(second), len(first))
	}

	raws := listResults(t, log.String())
	if len(raws) != pages+pages2 {
		t.Fatalf("%d resources/list answers logged, want %d", len(raws), pages+pages2)
	}
	sawAmp := false
	for i, raw := range raws {
		var res mcp.ListResourcesResult
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("page %d: %v\n%s", i+1, err, raw)
		}
		if want := goSDKJSON(t, &res); !bytes.Equal(raw, want) {
			t.Fatalf("page %d is not go-sdk's bytes:\n got %s\nwant %s", i+1, raw, want)
		}
		sawAmp = sawAmp || bytes.Contains(raw, []byte("Tom & Jerry <3"))
	}
	if !sawAmp {
		t.Fatal("no listing shows the title 'Tom & Jerry <3' as written")
	}
}

// listingCase is a source with every listed field set from the strings.
func listingCase(uri, name, title, summary, fileType, modified, fileURI, errText, kw string, pages int, size int64) *source {
	info := docInfo{Title: title, Summary: summary, FileType: fileType, LastModified: modified, PageCount: pages, Err: errText}
	if kw != "" {
		info.Keywords = strings.Split(kw, ",")
	}
	return newSource(uri, name, info, fileURI, size, nil)
}

// appendListing writes, byte for byte, what go-sdk's encoder writes for
// the resource the source lists.
func TestAppendListing_IsGoSDKsEncoding(t *testing.T) {
	odd := "Tom & Jerry <3> \"q\" \\ \u2028\u2029 \x01\x1f\x7f \t\n\r\b\f é\u00e9 \xff\xfe ☃ </script>"
	cases := []*source{
		listingCase("dpe://h.example.x/a", "a", "A", "Sum.", "md", "2026-01-05T09:00:00Z", "file:///a.md", "", "x,y", 3, 0),
		listingCase("dpe://h.example.x/b", "b", "", "", "pdf", "", "file:///b.pdf", "", "", 0, 0),
		listingCase("dpe://h.example.x/c", "c", "", "", "docx", "", "", "", "", 2, 17),
		listingCase("dpe://h.example.x/d", "d", "D", "", "xlsx", "x", "file:///d", "bad zip: "+odd, "k", 1, -1),
		listingCase("dpe://h.example.x/"+odd, odd, odd, odd, odd, odd, odd, odd, odd+","+odd, 1<<40, 1<<50),
	}
	for _, s := range cases {
		got := s.appendListing(nil)
		if want := goSDKJSON(t, s.resource()); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s.res.URI, got, want)
		}
	}
}

func FuzzAppendListing(f *testing.F) {
	f.Add("dpe://h.example.x/a", "a", "T", "S", "md", "2026-01-05T09:00:00Z", "file:///a", "", "k,l", 1, int64(0))
	f.Add("u", "<&>", "\u2028", "", "", "", "", "e\x00", "", 0, int64(-3))
	f.Fuzz(func(t *testing.T, uri, name, title, summary, fileType, modified, fileURI, errText, kw string, pages int, size int64) {
		s := listingCase(uri, name, title, summary, fileType, modified, fileURI, errText, kw, pages, size)
		got := s.appendListing(nil)
		if want := goSDKJSON(t, s.resource()); !bytes.Equal(got, want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}
