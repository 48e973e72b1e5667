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
