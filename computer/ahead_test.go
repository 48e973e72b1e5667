package computer

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// listCalls records the resources/list calls an MCP server receives, by
// cursor; with block, the first call for a page after the first waits
// until it is cancelled, and says so on cancelled.
type listCalls struct {
	mu        sync.Mutex
	byCursor  map[string]int
	block     bool
	blocked   bool
	cancelled chan string
}

func (l *listCalls) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "resources/list" {
			return next(ctx, method, req)
		}
		cursor := ""
		if p, ok := req.GetParams().(*mcp.ListResourcesParams); ok && p != nil {
			cursor = p.Cursor
		}
		l.mu.Lock()
		l.byCursor[cursor]++
		block := l.block && !l.blocked && cursor != ""
		l.blocked = l.blocked || block
		l.mu.Unlock()
		if block {
			<-ctx.Done()
			l.cancelled <- cursor
			return nil, ctx.Err()
		}
		return next(ctx, method, req)
	}
}

func (l *listCalls) count(cursor string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byCursor[cursor]
}

// getPage asks the computer for one get_resources page as an agent does.
func getPage(t *testing.T, o *office, cursor string) resourcesRet {
	t.Helper()
	payload := map[string]any{"mcp_server": "lib"}
	if cursor != "" {
		payload["cursor"] = cursor
	}
	var ret resourcesRet
	if perr := o.agent.call(protocol.EventGetResources, o.name, payload, &ret); perr != nil {
		t.Fatalf("get_resources at %q: %v", cursor, perr)
	}
	return ret
}

func uriOf(t *testing.T, r map[string]json.RawMessage) string {
	t.Helper()
	var uri string
	if err := json.Unmarshal(r["uri"], &uri); err != nil {
		t.Fatalf("uri %s: %v", r["uri"], err)
	}
	return uri
}

// While the agent reads a get_resources page, the computer already asks
// its MCP server for the next one (one page ahead), and answers the
// agent's next request with it: the MCP server sees each cursor once, and
// the pages are the listing's own, in order, none twice.
func TestGetResources_FetchesTheNextPageAhead(t *testing.T) {
	srv := newDocServer(docServerOptions{Host: "com.example.docs", Docs: 60, PageSize: 25})
	calls := &listCalls{byCursor: map[string]int{}, cancelled: make(chan string, 4)}
	o := startOffice(t, Options{}, func(c *Computer) { inProc(t, c, "lib", srv) })
	// Registration walked the list once; count from here.
	srv.AddReceivingMiddleware(calls.middleware)

	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		ret := getPage(t, o, cursor)
		for _, r := range ret.Resources {
			if uri := uriOf(t, r); seen[uri] {
				t.Fatalf("page %d lists %s again", page, uri)
			} else {
				seen[uri] = true
			}
		}
		if ret.NextCursor == nil {
			break
		}
		next := *ret.NextCursor
		eventually(t, fmt.Sprintf("the MCP server asked for page %d before the agent did", page+1), func() bool { return calls.count(next) == 1 })
		cursor = next
	}
	if want := 60 + 8; len(seen) != want {
		t.Fatalf("listed %d resources, want %d", len(seen), want)
	}
	calls.mu.Lock()
	defer calls.mu.Unlock()
	for c, n := range calls.byCursor {
		if n != 1 {
			t.Errorf("cursor %q asked of the MCP server %d times, want once", c, n)
		}
	}
}

// A page fetched ahead that its listing never asks for (the agent stopped)
// is cancelled at the MCP server after the idle wait, and a request that
// comes later still gets the page, fetched anew.
func TestGetResources_PageAheadOfAnAbandonedListingIsCancelled(t *testing.T) {
	srv := newDocServer(docServerOptions{Host: "com.example.docs", Docs: 60, PageSize: 25})
	// The fetch ahead of page 2 hangs at the server until it is
	// cancelled: only the idle wait can end it.
	calls := &listCalls{byCursor: map[string]int{}, block: true, cancelled: make(chan string, 4)}
	o := startOffice(t, Options{}, func(c *Computer) {
		c.aheadIdle = 100 * time.Millisecond
		inProc(t, c, "lib", srv)
	})
	srv.AddReceivingMiddleware(calls.middleware)
	first := getPage(t, o, "")
	if first.NextCursor == nil {
		t.Fatal("one page only")
	}
	next := *first.NextCursor
	select {
	case c := <-calls.cancelled:
		if c != next {
			t.Fatalf("cancelled the fetch of %q, want %q", c, next)
		}
	case <-time.After(wait):
		t.Fatal("the page ahead of an abandoned listing was not cancelled")
	}
	second := getPage(t, o, next)
	if len(second.Resources) == 0 {
		t.Fatal("page 2 is empty")
	}
	if n := calls.count(next); n != 2 {
		t.Fatalf("page 2 asked of the MCP server %d times, want 2 (the cancelled fetch ahead, then the request's own)", n)
	}
}
