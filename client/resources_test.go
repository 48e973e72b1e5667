package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func TestParseResourceMeta_Lenient(t *testing.T) {
	tests := []struct {
		name        string
		meta, annot string
		want        ResourceMeta
	}{
		{name: "all fields", meta: `{"keywords":["a","b"],"file_type":"xlsx","page_count":12,"file_uri":"file:///x","last_modified":"2025-01-01T00:00:00Z"}`,
			annot: `{"audience":["user"],"lastModified":"2026-01-15T08:30:00Z"}`,
			want:  ResourceMeta{Keywords: []string{"a", "b"}, FileType: "xlsx", PageCount: 12, FileURI: "file:///x", LastModified: "2026-01-15T08:30:00Z", Audience: []string{"user"}}},
		{name: "keywords must be an array", meta: `{"keywords":"a,b"}`,
			want: ResourceMeta{Problems: []string{"_meta.keywords is a string, not an array of strings"}}},
		{name: "non-string keywords are reported", meta: `{"keywords":["a",1,null]}`, want: ResourceMeta{Keywords: []string{"a"},
			Problems: []string{"_meta.keywords: entry 2 is a number, not a string", "_meta.keywords: entry 3 is null, not a string"}}},
		{name: "lastModified not ISO 8601", annot: `{"lastModified":"yesterday"}`, want: ResourceMeta{LastModified: "yesterday",
			LastModifiedInvalid: true, Problems: []string{`lastModified "yesterday" is not an ISO 8601 date-time`}}},
		{name: "page_count zero is invalid", meta: `{"page_count":0}`, want: ResourceMeta{}},
		{name: "page_count negative is invalid", meta: `{"page_count":-3}`, want: ResourceMeta{}},
		{name: "page_count fraction is invalid", meta: `{"page_count":2.5}`, want: ResourceMeta{}},
		{name: "page_count string is invalid", meta: `{"page_count":"3"}`, want: ResourceMeta{}},
		{name: "page_count one is valid", meta: `{"page_count":1}`, want: ResourceMeta{PageCount: 1}},
		{name: "last_modified fallback from _meta", meta: `{"last_modified":"2025-01-01"}`, want: ResourceMeta{LastModified: "2025-01-01"}},
		{name: "meta not an object", meta: `[1,2]`, annot: `"x"`, want: ResourceMeta{}},
		{name: "absent", want: ResourceMeta{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseResourceMeta(json.RawMessage(tt.meta), json.RawMessage(tt.annot))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestResource_IsDPEBySchemeOnly(t *testing.T) {
	for uri, want := range map[string]bool{
		"dpe://h/d": true, "DPE://h/d": true, "window://x": false, "file:///dpe://": false, "dpe:/x": false, "": false,
	} {
		if got := (Resource{Resource: protocol.Resource{URI: uri}}).IsDPE(); got != want {
			t.Errorf("IsDPE(%q) = %v, want %v", uri, got, want)
		}
	}
}

func TestResources_DecodesPageLenientlyAndSendsCursor(t *testing.T) {
	var gotCursor any
	c := fakeClient(t, func(ev string, p map[string]any) []any {
		gotCursor = p["cursor"]
		if ev != protocol.EventGetResources || p["mcp_server"] != "lib" || p["computer"] != "box" || p["req_id"] == "" || p["timeout"] != float64(30) {
			t.Errorf("request %s %v", ev, p)
		}
		return jsonArgs(t, `{"resources":[
			{"uri":"dpe://h/a","name":"A","size":10,"_meta":{"page_count":3}},
			{"uri":"dpe://h/b","size":"big","annotations":{"audience":["user"]}},
			{"name":"no uri"},
			"junk"
		],"next_cursor":"c2"}`)
	})
	page, err := c.Resources(context.Background(), "box", "lib", "c1")
	if err != nil {
		t.Fatal(err)
	}
	if gotCursor != "c1" {
		t.Errorf("cursor sent = %v", gotCursor)
	}
	if page.NextCursor != "c2" || len(page.Resources) != 2 || len(page.Raw) == 0 {
		t.Fatalf("page = %+v", page)
	}
	a, b := page.Resources[0], page.Resources[1]
	if a.Name != "A" || a.Size == nil || *a.Size != 10 || a.Meta.PageCount != 3 || a.Computer != "box" || a.Server != "lib" {
		t.Errorf("a = %+v", a)
	}
	if b.Size != nil || len(b.Meta.Audience) != 1 {
		t.Errorf("b = %+v (a size of the wrong type is dropped, the entry kept)", b)
	}
	// First page: no cursor on the wire at all.
	if _, err := c.Resources(context.Background(), "box", "lib", ""); err != nil {
		t.Fatal(err)
	}
	if gotCursor != nil {
		t.Errorf("first page sent cursor %v, want none", gotCursor)
	}
}

// pages serves a scripted sequence of next cursors: cursor "" → next[""], …
func scriptedPager(max int, next map[string]string, perPage int) (*Pager, *[]string) {
	var asked []string
	p := newPager("box", "lib", PagerOptions{MaxPages: max}, func(_ context.Context, cursor string) (*ResourcePage, error) {
		asked = append(asked, cursor)
		page := &ResourcePage{NextCursor: next[cursor]}
		for i := range perPage {
			page.Resources = append(page.Resources, Resource{Resource: protocol.Resource{URI: fmt.Sprintf("dpe://h/%s-%d", cursor, i)}})
		}
		return page, nil
	})
	return p, &asked
}

func TestPager_StopsWhenNextCursorAbsent(t *testing.T) {
	p, asked := scriptedPager(0, map[string]string{"": "a", "a": "b"}, 2)
	var pageNos []int
	for {
		page, err := p.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		pageNos = append(pageNos, page.Resources[0].PageNo)
	}
	if !reflect.DeepEqual(*asked, []string{"", "a", "b"}) || !reflect.DeepEqual(pageNos, []int{1, 2, 3}) {
		t.Errorf("asked %q, page numbers %v", *asked, pageNos)
	}
	if !p.Done() || p.Pages() != 3 || p.Loaded() != 6 || p.Err() != nil {
		t.Errorf("done=%v pages=%d loaded=%d err=%v", p.Done(), p.Pages(), p.Loaded(), p.Err())
	}
}

func TestPager_RepeatedCursorStopsWithTypedError(t *testing.T) {
	tests := []struct {
		name string
		next map[string]string
		want string
	}{
		{name: "same cursor again", next: map[string]string{"": "a", "a": "a"}, want: "a"},
		{name: "cycle back to an earlier cursor", next: map[string]string{"": "a", "a": "b", "b": "a"}, want: "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := scriptedPager(0, tt.next, 1)
			var err error
			for range 10 {
				if _, err = p.Next(context.Background()); err != nil {
					break
				}
			}
			var ce *CursorError
			if !errors.Is(err, ErrRepeatedCursor) || !errors.As(err, &ce) || ce.Cursor != tt.want {
				t.Fatalf("err = %v, want ErrRepeatedCursor with cursor %q", err, tt.want)
			}
			if !p.Done() {
				t.Error("pager not done after a repeated cursor")
			}
			if _, again := p.Next(context.Background()); !errors.Is(again, ErrRepeatedCursor) {
				t.Errorf("error not sticky: %v", again)
			}
		})
	}
}

func TestPager_PageCapStopsWithTypedError(t *testing.T) {
	next := map[string]string{}
	for i := range 10 {
		next[fmt.Sprint(i)] = fmt.Sprint(i + 1)
	}
	next[""] = "0"
	p, _ := scriptedPager(3, next, 5)
	var err error
	n := 0
	for ; n < 10; n++ {
		if _, err = p.Next(context.Background()); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrPageCap) || n != 3 || p.Loaded() != 15 {
		t.Fatalf("err = %v after %d pages, loaded %d; want ErrPageCap after 3 pages", err, n, p.Loaded())
	}
	if msg := err.Error(); msg != "resources of lib on box: stopped at the cap of 3 pages (15 resources loaded, more remain)" {
		t.Errorf("message = %q", msg)
	}
}

func TestPager_NetworkErrorIsNotStickyAndRetriesSameCursor(t *testing.T) {
	fail := true
	var asked []string
	p := newPager("box", "lib", PagerOptions{}, func(_ context.Context, cursor string) (*ResourcePage, error) {
		asked = append(asked, cursor)
		if cursor == "a" && fail {
			fail = false
			return nil, ErrConnectionLost
		}
		if cursor == "" {
			return &ResourcePage{NextCursor: "a"}, nil
		}
		return &ResourcePage{}, nil
	})
	ctx := context.Background()
	_, _ = p.Next(ctx)
	if _, err := p.Next(ctx); !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("err = %v", err)
	}
	if _, err := p.Next(ctx); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if !reflect.DeepEqual(asked, []string{"", "a", "a"}) || !p.Done() || p.Pages() != 2 {
		t.Errorf("asked %q pages %d", asked, p.Pages())
	}
}

// TestParseResourceMeta_TypedSameAsLoose: the typed fast path of
// ParseResourceMeta, whenever it accepts metadata, reads exactly what the
// loose path reads, over every combination of value kinds per key (absent,
// right and wrong types, nulls, mixed arrays, case-folded and repeated
// keys); and it does accept the usual, well-typed metadata.
func TestParseResourceMeta_TypedSameAsLoose(t *testing.T) {
	values := []string{"", `"s"`, `""`, `1`, `2.5`, `-3`, `0`, `1e3`, `true`, `null`, `{}`, `{"a":1}`,
		`[]`, `["a","b"]`, `["a",1]`, `["a",null]`, `[null]`, `"2024-01-02T03:04:05Z"`, `"yesterday"`, `"\u00e9\n"`}
	obj := func(kv ...string) string {
		var b strings.Builder
		b.WriteByte('{')
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				continue // absent
			}
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s", kv[i], kv[i+1])
		}
		b.WriteByte('}')
		return b.String()
	}
	accepted, tried := 0, 0
	check := func(meta, annot string) {
		t.Helper()
		tried++
		typed, ok := parseResourceMetaTyped(json.RawMessage(meta), json.RawMessage(annot))
		if !ok {
			return
		}
		accepted++
		if loose := parseResourceMetaLoose(json.RawMessage(meta), json.RawMessage(annot)); !reflect.DeepEqual(typed, loose) {
			t.Fatalf("meta %s annotations %s:\ntyped %#v\nloose %#v", meta, annot, typed, loose)
		}
	}
	metaKeys := []string{"keywords", "file_type", "page_count", "file_uri", "last_modified"}
	for i, k := range metaKeys {
		for _, v := range values {
			for _, w := range values {
				other := metaKeys[(i+1)%len(metaKeys)]
				check(obj(k, v, other, w), "")
				check(obj(k, v, strings.ToUpper(k), w), "") // case-folded duplicate: the last wins
				check(obj(k, v), obj("lastModified", w, "audience", v))
			}
		}
	}
	check("", "")
	check(`{"keywords":["a","b"],"file_type":"pdf","page_count":3,"file_uri":"file:///x","last_modified":"2024-01-02"}`,
		`{"lastModified":"2024-01-02T03:04:05Z","audience":["user"],"priority":0.5}`)
	if accepted < 300 { // of some 6,000, most of them ill-typed
		t.Fatalf("the typed path accepted %d of %d", accepted, tried)
	}
	if _, ok := parseResourceMetaTyped(json.RawMessage(`{"keywords":["note","generated"],"page_count":1,"file_type":"md"}`),
		json.RawMessage(`{"lastModified":"2024-05-01T10:00:00Z","audience":["user"]}`)); !ok {
		t.Fatal("the typed path refused well-typed metadata")
	}
}

// TestPager_DeferMetaLeavesMetaToTheCaller: with DeferMeta a Pager's pages
// have Meta unset, and ParseResourceMeta on each resource's raw _meta and
// annotations gives back exactly the page a Pager without it returns; the
// walk (count, cursor, stop) is the same.
func TestPager_DeferMetaLeavesMetaToTheCaller(t *testing.T) {
	walk := func(deferMeta bool) ([]*ResourcePage, error) {
		// Every page hands out cursor c2: the second one repeats it.
		c := fakeClient(t, func(string, map[string]any) []any { return []any{json.RawMessage(hostilePage)} })
		c.opt.Limits.MaxFieldBytes = 100
		p := c.Pager("box", "lib", PagerOptions{DeferMeta: deferMeta})
		var pages []*ResourcePage
		for {
			page, err := p.Next(context.Background())
			if err != nil {
				return pages, err
			}
			pages = append(pages, page)
		}
	}
	want, wantErr := walk(false)
	got, gotErr := walk(true)
	if !errors.Is(wantErr, ErrRepeatedCursor) || gotErr == nil || gotErr.Error() != wantErr.Error() {
		t.Fatalf("walks stopped with %v and %v", wantErr, gotErr)
	}
	if len(got) != 2 || len(got) != len(want) {
		t.Fatalf("%d and %d pages", len(want), len(got))
	}
	problems := 0
	for i := range got {
		for j := range got[i].Resources {
			r := &got[i].Resources[j]
			if !reflect.DeepEqual(r.Meta, ResourceMeta{}) {
				t.Fatalf("deferred page %d resource %d has Meta %+v", i, j, r.Meta)
			}
			r.Meta = ParseResourceMeta(r.Resource.Meta, r.Annotations)
			problems += len(r.Meta.Problems)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("deferred and parsed\n%+v\nwant\n%+v", got, want)
	}
	if problems == 0 {
		t.Errorf("the hostile page's metadata problems were lost")
	}
}
