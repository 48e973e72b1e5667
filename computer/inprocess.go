package computer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/internal/jsonfast"
)

// inProcessTransports connect a go-sdk server and client in this process by
// passing JSON-RPC messages, not bytes: go-sdk's in-memory transport writes
// every message as a line of JSON and parses it again on the other side of
// a net.Pipe, which was a third of a listing's cost (docs/performance.md,
// P3), and its line limit bounded what one resources/read could carry. The
// client side also keeps each resources/list result raw (rawPages).
func inProcessTransports() (server mcp.Transport, client *inProcessClient) {
	p := &memPipe{done: make(chan struct{})}
	toServer := make(chan jsonrpc.Message, memQueue)
	toClient := make(chan jsonrpc.Message, memQueue)
	return &memTransport{conn: &memConn{pipe: p, in: toServer, out: toClient}},
		&inProcessClient{conn: &memConn{pipe: p, in: toClient, out: toServer, raw: &rawPages{want: map[jsonrpc.ID]*rawResult{}}}}
}

// inProcessSession pins in-process sessions to MCP 2025-11-25, the
// session protocol: with go-sdk's default (2026-07-28, stateless) every
// request repeats the client's info and capabilities in its _meta and the
// server decodes them again, which cost a listing more allocation than its
// page (docs/performance.md, P3). In process there is one session for the
// server's life, so saying it once at initialize is the same.
func inProcessSession() *mcp.ClientSessionOptions {
	return &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
}

// memQueue is how many messages may wait unread in each direction before a
// writer blocks (until the reader takes one, the pipe closes or the
// writer's context ends).
const memQueue = 16

var errMemClosed = errors.New("in-process MCP connection closed")

// memPipe is what both ends share: closing either end closes both.
type memPipe struct {
	once sync.Once
	done chan struct{}
}

func (p *memPipe) close() { p.once.Do(func() { close(p.done) }) }

type memTransport struct{ conn *memConn }

func (t *memTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// inProcessClient is the client end; raw is where listings find the
// results it kept.
type inProcessClient struct{ conn *memConn }

func (t *inProcessClient) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

func (t *inProcessClient) raw() *rawPages { return t.conn.raw }

type memConn struct {
	pipe *memPipe
	in   <-chan jsonrpc.Message
	out  chan<- jsonrpc.Message
	raw  *rawPages // client end only
}

func (c *memConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.in:
		if c.raw != nil {
			msg = c.raw.received(msg)
		}
		return msg, nil
	case <-c.pipe.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write hands the other end its own shallow copy: neither end's later use
// of a message it wrote can reach the other (the payloads are immutable
// JSON either way).
func (c *memConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		cp := *m
		msg = &cp
		if c.raw != nil {
			c.raw.sent(ctx, &cp)
		}
	case *jsonrpc.Response:
		cp := *m
		msg = &cp
	}
	err := c.send(ctx, msg)
	if req, ok := msg.(*jsonrpc.Request); ok && err != nil && c.raw != nil {
		c.raw.forget(req.ID)
	}
	return err
}

func (c *memConn) send(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.pipe.done:
		return errMemClosed
	default:
	}
	select {
	case c.out <- msg:
		return nil
	case <-c.pipe.done:
		return errMemClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *memConn) Close() error {
	c.pipe.close()
	return nil
}

func (c *memConn) SessionID() string { return "" }

// rawResultKey marks a resources/list call's context with the *rawResult
// that should receive its raw page.
type rawResultKey struct{}

// rawResult receives the raw page of one resources/list call; nil when
// the answer was not kept (see rawPages.received).
type rawResult struct {
	mu   sync.Mutex
	page *rawPage
}

func (r *rawResult) get() *rawPage {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.page
}

// rawPage is one resources/list result as the MCP server wrote it.
type rawPage struct {
	// resources is the "resources" array, byte for byte.
	resources json.RawMessage
	// entries are its elements (sub-slices of resources), each with its uri.
	entries []rawEntry
	next    string
}

type rawEntry struct {
	uri string
	raw json.RawMessage
}

var errNotObject = errors.New("resource is not a JSON object")

func (e *rawEntry) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return errNotObject
	}
	var u struct {
		URI string `json:"uri"`
	}
	if err := jsonfast.Unmarshal(b, &u); err != nil {
		return err
	}
	e.uri, e.raw = u.URI, b
	return nil
}

// parseRawPage reads a resources/list result: an object whose resources
// are an array of objects, each with a string uri (or none), and whose
// nextCursor, if any, is a string. Anything else is false, and go-sdk
// decodes that result as for any other transport. Results as go-sdk writes
// them are read in one pass (scanRawPage); the others by decodeRawPage.
func parseRawPage(result json.RawMessage) (*rawPage, bool) {
	if page, ok, decided := scanRawPage(result); decided {
		return page, ok
	}
	return decodeRawPage(result)
}

// decodeRawPage is parseRawPage by encoding/json's rules (through jsonfast).
func decodeRawPage(result json.RawMessage) (*rawPage, bool) {
	var top struct {
		Resources  json.RawMessage `json:"resources"`
		NextCursor string          `json:"nextCursor"`
	}
	if jsonfast.Unmarshal(result, &top) != nil {
		return nil, false
	}
	// The decoder gave resources its own copy: entries may point into it.
	arr := bytes.TrimSpace(top.Resources)
	if len(arr) == 0 || arr[0] != '[' {
		return nil, false
	}
	var entries []rawEntry
	if jsonfast.Unmarshal(arr, &entries) != nil {
		return nil, false
	}
	return &rawPage{resources: arr, entries: entries, next: top.NextCursor}, true
}

// maxPendingRaw bounds the resources/list calls waiting for a raw page at
// once; a call beyond it is answered by go-sdk as always, only not kept
// raw. A call whose answer never comes leaves its entry until the bound.
const maxPendingRaw = 64

// rawPages keeps the raw result of each resources/list call made with a
// rawResultKey context: go-sdk's ClientSession would decode every resource
// of the page (its _meta into maps) only for the listing to send the same
// JSON on (docs/performance.md, P3).
type rawPages struct {
	mu   sync.Mutex
	want map[jsonrpc.ID]*rawResult
}

func (p *rawPages) sent(ctx context.Context, req *jsonrpc.Request) {
	if !req.IsCall() || req.Method != "resources/list" {
		return
	}
	kept, _ := ctx.Value(rawResultKey{}).(*rawResult)
	if kept == nil {
		return
	}
	p.mu.Lock()
	if len(p.want) < maxPendingRaw {
		p.want[req.ID] = kept
	}
	p.mu.Unlock()
}

func (p *rawPages) forget(id jsonrpc.ID) {
	p.mu.Lock()
	delete(p.want, id)
	p.mu.Unlock()
}

// received takes the raw page of a kept call's answer and gives go-sdk an
// empty list to decode instead: the listing takes the page from its
// rawResult, and nothing else reads go-sdk's result (it has no ttl, so
// go-sdk does not cache it). An answer that is an error, or whose
// result parseRawPage does not accept, goes to go-sdk unchanged.
func (p *rawPages) received(msg jsonrpc.Message) jsonrpc.Message {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return msg
	}
	p.mu.Lock()
	kept := p.want[resp.ID]
	delete(p.want, resp.ID)
	p.mu.Unlock()
	if kept == nil || resp.Error != nil {
		return msg
	}
	page, ok := parseRawPage(resp.Result)
	if !ok {
		return msg
	}
	kept.mu.Lock()
	kept.page = page
	kept.mu.Unlock()
	resp.Result = json.RawMessage(`{"resources":[]}`)
	return resp
}
