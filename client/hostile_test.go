package client

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/hostilepeer"
	"github.com/dpe-tui/dpe-tui/protocol"
)

func dialHostile(t *testing.T, script hostilepeer.Script, opt Options) (*hostilepeer.Server, *Client) {
	t.Helper()
	srv, err := hostilepeer.Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	opt.URL, opt.Office, opt.Name = srv.URL, srv.Office, "dpe-tui"
	if opt.RequestTimeout == 0 {
		opt.RequestTimeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return srv, c
}

// A 300 MB ack is refused on its frame headers: the agent allocates a
// fraction of it and says which event hit which limit. The library reads a
// message into a doubling buffer (about 4× the bytes read, 8× under -race),
// so the bound is checked with an 8 MiB limit.
func TestAckLimit_RefusesBeforeBuffering(t *testing.T) {
	const ack = 300 << 20
	_, c := dialHostile(t, hostilepeer.Script{
		ListRoom: func() hostilepeer.Reply { return hostilepeer.Reply{Stream: hostilepeer.HugeStream(ack)} },
	}, Options{MaxAckBytes: 8 << 20})
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Computers(ctx)
	runtime.ReadMemStats(&after)
	var tl *AckTooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("Computers = %v, want *AckTooLargeError", err)
	}
	if want := "server:list_room: the answer is over the ack size limit of 8 MiB; dropped the connection instead of reading it"; err.Error() != want {
		t.Errorf("message %q\nwant    %q", err, want)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > ack/3 {
		t.Errorf("allocated %d MiB for a refused %d MiB ack", d>>20, ack>>20)
	}
}

// A smaller limit holds for routed calls too and names the computer.
func TestAckLimit_NamesComputer(t *testing.T) {
	_, c := dialHostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "evil", Servers: []string{"pit"},
		Resources: func(string, string) hostilepeer.Reply {
			return hostilepeer.Reply{Stream: hostilepeer.HugeStream(20 << 20)}
		},
	}}}, Options{MaxAckBytes: 1 << 20})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Resources(ctx, "evil", "pit", "")
	want := "resources of pit: client:get_resources to computer evil: the answer is over the ack size limit of 1 MiB; dropped the connection instead of reading it"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
}

// A computer that sorts first and answers get_dpe for every host does not
// get a typed URI whose host another computer lists.
func TestChooseComputer_RoutesToTheComputerListingTheHost(t *testing.T) {
	srv, c := dialHostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{
		{Name: "0evil", Servers: []string{"trap"},
			Resources: func(string, string) hostilepeer.Reply {
				return hostilepeer.Page("", hostilepeer.Resource("dpe://org.evil.trap/x", "x"))
			},
			GetDPE: func(string) hostilepeer.Reply { return hostilepeer.Access("file:///etc/shadow") }},
		{Name: "alpha", Servers: []string{"docs"},
			Resources: func(string, string) hostilepeer.Reply {
				return hostilepeer.Page("", hostilepeer.Resource("dpe://org.example.docs/report", "report"))
			},
			GetDPE: func(string) hostilepeer.Reply { return hostilepeer.Access("http://127.0.0.1:9/report.json") }},
	}}, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	comp, acc, err := c.ChooseComputer(ctx, "dpe://org.example.docs/report")
	if err != nil || comp != "alpha" || acc.Computer != "alpha" || acc.URI != "http://127.0.0.1:9/report.json" {
		t.Fatalf("chose %q %+v %v", comp, acc, err)
	}
	if n := srv.CallsTo("0evil", protocol.EventGetDPE); n != 0 {
		t.Errorf("0evil was asked get_dpe %d times", n)
	}
	if acc.OwnComputer {
		t.Error("an answer without a valid origin tag is marked as from an own computer")
	}
}

// The repeat detector keeps fingerprints: 2,000 fresh 4 KiB cursors cost
// the pager far less than the 8 MB they add up to.
func TestPager_KeepsCursorFingerprintsNotCursors(t *testing.T) {
	pad := strings.Repeat("c", 4<<10-8)
	n := 0
	p := newPager("evil", "pit", PagerOptions{MaxPages: 3000}, func(ctx context.Context, cursor string) (*ResourcePage, error) {
		n++
		return &ResourcePage{NextCursor: pad + string(rune('a'+n%26)) + strings.Repeat("x", n%7) + itoa(n)}, nil
	})
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 2000 {
		if _, err := p.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if d := int64(after.HeapAlloc) - int64(before.HeapAlloc); d > 1<<20 {
		t.Errorf("pager retains %d KiB after 2000 cursors of 4 KiB", d>>10)
	}
	runtime.KeepAlive(p)
}

func itoa(n int) string {
	var b []byte
	for n > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// A 1 MiB name is cut on receipt with a marker; a 1 MiB cursor is refused
// with the page kept.
func TestResources_MegabyteNameAndCursor(t *testing.T) {
	big := strings.Repeat("n", 1<<20)
	_, c := dialHostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "evil", Servers: []string{"pit"},
		Resources: func(string, string) hostilepeer.Reply {
			return hostilepeer.Page(big, hostilepeer.Resource("dpe://org.evil.pit/a", big))
		},
	}}}, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := c.Pager("evil", "pit", PagerOptions{})
	page, err := p.Next(ctx)
	if err != nil || len(page.Resources) != 1 {
		t.Fatalf("page %+v err %v", page, err)
	}
	r := page.Resources[0]
	if !r.Truncated || len(r.Name) != DefaultMaxFieldBytes+len(truncMarker) || !strings.HasSuffix(r.Name, truncMarker) {
		t.Errorf("name of %d bytes, truncated %v", len(r.Name), r.Truncated)
	}
	want := "resources of pit on evil: refused a next_cursor of 1048576 bytes (limit 4096); the listing stops here"
	if !p.Done() || p.Err() == nil || p.Err().Error() != want || !errors.Is(p.Err(), ErrCursorTooLong) {
		t.Errorf("pager err = %v\nwant %s", p.Err(), want)
	}
}

// An origin tag made with the agent's key marks the answer as from an own
// computer; the same tag for another computer, or no key, does not.
func TestGetDPE_OriginTag(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	tag := OriginTag(key, "alpha", "file:///cache/doc.json")
	for _, tc := range []struct {
		name, computer string
		key            []byte
		want           bool
	}{
		{"own computer", "alpha", key, true},
		{"tag of another computer", "0evil", key, false},
		{"no key", "alpha", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeClient(t, func(string, map[string]any) []any {
				return jsonArgs(t, `{"uri":"file:///cache/doc.json","annotations":{"`+OriginAnnotation+`":"`+tag+`"}}`)
			})
			c.opt.OwnComputerKey = tc.key
			acc, err := c.GetDPE(context.Background(), tc.computer, "dpe://h/d")
			if err != nil || acc.OwnComputer != tc.want {
				t.Fatalf("OwnComputer = %v (%v), want %v", acc.OwnComputer, err, tc.want)
			}
		})
	}
}

// Choosing a computer for a typed URI lists each server's first page; one
// over the ack size limit drops the connection, and that, not the lost
// connection every later call would report, is the answer.
func TestChooseComputer_AckLimitIsTheReason(t *testing.T) {
	huge := func(string, string) hostilepeer.Reply {
		return hostilepeer.Reply{Stream: hostilepeer.HugeStream(4 << 20)}
	}
	docs := func(string, string) hostilepeer.Reply {
		return hostilepeer.Page("", hostilepeer.Resource("dpe://org.example.docs/report", "report"))
	}
	for name, comps := range map[string][]hostilepeer.Computer{
		// The owner is found first, and the walk goes on to the next
		// computer, whose answer drops the connection.
		"after the owner":  {{Name: "alpha", Servers: []string{"docs"}, Resources: docs}, {Name: "beta", Servers: []string{"bench"}, Resources: huge}},
		"before the owner": {{Name: "alpha", Servers: []string{"bench"}, Resources: huge}, {Name: "beta", Servers: []string{"docs"}, Resources: docs}},
	} {
		t.Run(name, func(t *testing.T) {
			_, c := dialHostile(t, hostilepeer.Script{Computers: comps}, Options{MaxAckBytes: 1 << 20})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, _, err := c.ChooseComputer(ctx, "dpe://org.example.docs/report")
			var tl *AckTooLargeError
			if !errors.As(err, &tl) || !strings.Contains(err.Error(), "resources of bench") || strings.Contains(err.Error(), "connection lost") {
				t.Fatalf("err = %v, want the ack limit on bench", err)
			}
		})
	}
}
