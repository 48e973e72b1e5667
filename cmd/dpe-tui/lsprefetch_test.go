package main

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/hostilepeer"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// threePages answers get_resources with three pages of two resources,
// cursors "" → c2 → c3 → end, and reports each cursor asked for on asked.
func threePages(asked chan<- string, hold func(cursor string)) func(string, string) hostilepeer.Reply {
	return func(_, cursor string) hostilepeer.Reply {
		select {
		case asked <- cursor:
		default:
		}
		if hold != nil {
			hold(cursor)
		}
		n, next := 1, "c2"
		switch cursor {
		case "c2":
			n, next = 2, "c3"
		case "c3":
			n, next = 3, ""
		}
		return hostilepeer.Page(next,
			hostilepeer.Resource(fmt.Sprintf("dpe://org.x/p%d-a", n), "a"),
			hostilepeer.Resource(fmt.Sprintf("dpe://org.x/p%d-b", n), "b"))
	}
}

// blockingWriter holds its first Write until released, and says when that
// Write began.
type blockingWriter struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	first    bool
	writing  chan struct{}
	released chan struct{}
}

func newBlockingWriter() *blockingWriter {
	return &blockingWriter{writing: make(chan struct{}), released: make(chan struct{})}
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	first := !w.first
	w.first = true
	w.mu.Unlock()
	if first {
		close(w.writing)
		<-w.released
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *blockingWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestLs_NextPageAskedWhilePrinting: ls asks for page 2 while page 1 is
// still being written out (the writer is blocked), so the server's work
// on the next page overlaps the agent's printing; the output and its
// order are those of a sequential listing.
func TestLs_NextPageAskedWhilePrinting(t *testing.T) {
	asked := make(chan string, 8)
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "box", Servers: []string{"lib"}, Resources: threePages(asked, nil),
	}}})
	w := newBlockingWriter()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runContext(context.Background(), []string{"ls", "resources", "--url=" + srv.URL, "--json"}, w, &errb)
	}()
	released := false
	release := func() {
		if !released {
			released = true
			close(w.released)
		}
	}
	defer release()

	waitCursor := func(want string) {
		t.Helper()
		select {
		case c := <-asked:
			if c != want {
				t.Fatalf("asked for cursor %q, want %q", c, want)
			}
		case <-time.After(testbudget.Left(t, 20*time.Second)):
			t.Fatalf("cursor %q never asked for", want)
		}
	}
	waitCursor("")
	select {
	case <-w.writing:
	case <-time.After(testbudget.Left(t, 20*time.Second)):
		t.Fatal("page 1 never written")
	}
	// Page 1 is stuck in Write; page 2 must be asked for regardless.
	waitCursor("c2")
	release()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	case <-time.After(testbudget.Left(t, 30*time.Second)):
		t.Fatal("ls did not finish")
	}
	var uris []string
	for _, l := range strings.Split(strings.TrimSpace(w.String()), "\n") {
		if i := strings.Index(l, `"uri":"`); i >= 0 {
			uris = append(uris, strings.SplitN(l[i+7:], `"`, 2)[0])
		}
	}
	want := "dpe://org.x/p1-a dpe://org.x/p1-b dpe://org.x/p2-a dpe://org.x/p2-b dpe://org.x/p3-a dpe://org.x/p3-b"
	if got := strings.Join(uris, " "); got != want {
		t.Errorf("printed %s\nwant    %s", got, want)
	}
	if n := srv.CallsTo("box", protocol.EventGetResources); n != 3 {
		t.Errorf("%d get_resources calls, want 3", n)
	}
}

// TestLs_CancelStopsThePrefetch: cancelling ls while the next page is in
// flight ends the command promptly with the pages already received printed,
// and leaves no goroutine behind (hostile checks with goleak).
func TestLs_CancelStopsThePrefetch(t *testing.T) {
	asked := make(chan string, 8)
	unblock := make(chan struct{})
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "box", Servers: []string{"lib"}, Resources: threePages(asked, func(cursor string) {
			if cursor == "c2" {
				<-unblock // page 2 never comes while the test runs
			}
		}),
	}}})
	t.Cleanup(func() { close(unblock) }) // before srv.Close, which waits for the handler
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"ls", "resources", "--url=" + srv.URL, "--json"}, &out, &errb)
	}()
	for _, want := range []string{"", "c2"} {
		select {
		case c := <-asked:
			if c != want {
				t.Fatalf("asked for cursor %q, want %q", c, want)
			}
		case <-time.After(testbudget.Left(t, 20*time.Second)):
			t.Fatalf("cursor %q never asked for", want)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != exitRuntime {
			t.Fatalf("a cancelled listing exited %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ls did not stop after cancel")
	}
	if n := strings.Count(out.String(), "\n"); n != 2 || !strings.Contains(out.String(), "dpe://org.x/p1-b") {
		t.Errorf("printed %q, want page 1's two rows", out.String())
	}
	if errb.String() != "dpe-tui: interrupted\n" {
		t.Errorf("stderr %q does not say it was cancelled", errb.String())
	}
}

// TestLs_LimitPagesFetchesNoMore: --limit-pages N asks for exactly N pages
// (the prefetch does not run past it) and says more are available.
func TestLs_LimitPagesFetchesNoMore(t *testing.T) {
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "box", Servers: []string{"lib"}, Resources: hostilepeer.EndlessCursors("org.x", 10),
	}}})
	code, out, errOut := runBounded(t, "ls", "resources", "--url="+srv.URL, "--limit-pages=3", "--json")
	if want := "dpe-tui: box/lib: stopped after 3 page(s), 30 resources; more available\n"; code != exitOK || errOut != want {
		t.Fatalf("exit %d, stderr %q\nwant %q", code, errOut, want)
	}
	if n := strings.Count(out, "\n"); n != 30 {
		t.Errorf("%d rows, want 30", n)
	}
	if n := srv.CallsTo("box", protocol.EventGetResources); n != 3 {
		t.Errorf("%d get_resources calls, want 3", n)
	}

	// A listing that ends exactly at the limit says nothing more.
	srv2 := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "box", Servers: []string{"lib"}, Resources: threePages(make(chan string, 8), nil),
	}}})
	code, out, errOut = runBounded(t, "ls", "resources", "--url="+srv2.URL, "--limit-pages=3", "--json")
	if code != exitOK || errOut != "" || strings.Count(out, "\n") != 6 {
		t.Fatalf("exit %d, stderr %q, %d rows", code, errOut, strings.Count(out, "\n"))
	}
}

// gcPercent reads the GC percent (SetGCPercent is the only reader).
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestLs_ResourcesRaiseTheGCTargetWhileListing: while ls resources lists,
// the GC target is 400% (collection was half the agent's CPU at 100%);
// after, the settings are back; a GOGC the user set is left alone.
func TestLs_ResourcesRaiseTheGCTargetWhileListing(t *testing.T) {
	var seen []int
	var mu sync.Mutex
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "box", Servers: []string{"lib"}, Resources: func(server, cursor string) hostilepeer.Reply {
			mu.Lock()
			seen = append(seen, gcPercent()) // the server runs in this process
			mu.Unlock()
			return threePages(make(chan string, 1), nil)(server, cursor)
		},
	}}})
	before, limit := gcPercent(), debug.SetMemoryLimit(-1)
	if code, _, errOut := runBounded(t, "ls", "resources", "--url="+srv.URL, "--json"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := func() string { mu.Lock(); defer mu.Unlock(); return fmt.Sprint(seen) }
	if got() != "[400 400 400]" {
		t.Errorf("GC percent while listing: %v, want 400 at each page", got())
	}
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != before || l != limit {
		t.Errorf("after: GC percent %d, memory limit %d; want %d, %d restored", p, l, before, limit)
	}

	mu.Lock()
	seen = nil
	mu.Unlock()
	t.Setenv("GOGC", strconv.Itoa(before))
	if code, _, errOut := runBounded(t, "ls", "resources", "--url="+srv.URL, "--json"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := fmt.Sprint([]int{before, before, before}); got() != want {
		t.Errorf("with GOGC set: %v, want %s", got(), want)
	}
}

// TestLs_ErrorOnALaterPageComesAfterThePagesBeforeIt: a server that fails
// on page 2 has page 1 printed, then its one skip line, in that order, and
// the next server is still listed.
func TestLs_ErrorOnALaterPageComesAfterThePagesBeforeIt(t *testing.T) {
	pages := threePages(make(chan string, 8), nil)
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "box", Servers: []string{"bad", "good"}, Resources: func(server, cursor string) hostilepeer.Reply {
			if server == "bad" && cursor == "c2" {
				return hostilepeer.Error(4001, "page two is gone")
			}
			return pages(server, cursor)
		},
	}}})
	var out, errb bytes.Buffer
	ordered := &orderWriter{}
	code := runContext(context.Background(), []string{"ls", "resources", "--url=" + srv.URL, "--json"},
		ordered.tag("out", &out), ordered.tag("err", &errb))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if want := "dpe-tui: skipped server bad on box: 4001 Error: page two is gone\n"; errb.String() != want {
		t.Errorf("stderr %q\nwant %q", errb.String(), want)
	}
	if n := strings.Count(out.String(), `"server":"bad"`); n != 2 {
		t.Errorf("%d rows of bad, want page 1's 2", n)
	}
	if n := strings.Count(out.String(), `"server":"good"`); n != 6 {
		t.Errorf("%d rows of good, want 6", n)
	}
	if got := ordered.String(); got != "out err out out out" {
		t.Errorf("writes in the order %q, want page 1 of bad, its skip line, then good's three pages", got)
	}
}

// orderWriter records which of its tagged writers wrote, in order.
type orderWriter struct {
	mu   sync.Mutex
	tags []string
}

func (o *orderWriter) tag(name string, w *bytes.Buffer) *taggedWriter {
	return &taggedWriter{o: o, name: name, w: w}
}

func (o *orderWriter) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.tags, " ")
}

type taggedWriter struct {
	o    *orderWriter
	name string
	w    *bytes.Buffer
}

func (t *taggedWriter) Write(p []byte) (int, error) {
	t.o.mu.Lock()
	defer t.o.mu.Unlock()
	t.o.tags = append(t.o.tags, t.name)
	return t.w.Write(p)
}

// The table keeps its column widths from page to page: a later page with
// narrower cells lines up with the header and the rows before it.
func TestLs_TableColumnsLineUpAcrossPages(t *testing.T) {
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "box", Servers: []string{"lib"}, Resources: func(_, cursor string) hostilepeer.Reply {
			if cursor == "" {
				return hostilepeer.Page("c2", hostilepeer.Resource("dpe://org.x/a-rather-long-first-page-name", "a-rather-long-first-page-name"))
			}
			return hostilepeer.Page("", hostilepeer.Resource("dpe://org.x/b", "b"))
		},
	}}})
	code, out, errOut := runBounded(t, "ls", "resources", "--url="+srv.URL)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and two rows, got %q", out)
	}
	col := strings.Index(lines[0], "NAME")
	for _, l := range lines[1:] {
		if strings.Index(l, "dpe://")+len("dpe://org.x/a-rather-long-first-page-name")+2 != col {
			t.Errorf("row %q: URI column is not padded to the header's NAME at %d\n%s", l, col, out)
		}
	}
}

// A later page with a wider cell widens its column from there on, and the
// header is printed again above it, lined up with the rows below.
func TestLs_TableHeaderRepeatsWhenAColumnWidens(t *testing.T) {
	long := "dpe://org.x/a-much-longer-name-on-the-second-page"
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "box", Servers: []string{"lib"}, Resources: func(_, cursor string) hostilepeer.Reply {
			if cursor == "" {
				return hostilepeer.Page("c2", hostilepeer.Resource("dpe://org.x/b", "b"))
			}
			return hostilepeer.Page("", hostilepeer.Resource(long, "long"))
		},
	}}})
	code, out, errOut := runBounded(t, "ls", "resources", "--url="+srv.URL)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[2], "COMPUTER") {
		t.Fatalf("want header, row, header again, row; got\n%s", out)
	}
	if strings.Index(lines[2], "NAME") != strings.Index(lines[3], "  long")+2 || strings.Index(lines[0], "NAME") != strings.Index(lines[1], "  b  ")+2 {
		t.Errorf("columns do not line up with their header:\n%s", out)
	}
}
