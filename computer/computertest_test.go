package computer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sio "github.com/zishang520/socket.io/clients/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/server"
)

// wait bounds every network wait in these tests; it is a deadlock guard,
// not a timing assertion. TestMain sets it from the test binary's own
// timeout (go test -timeout): on a loaded machine a fixed 15 s was missed
// by a get_dpe whose first PDF conversion compiles PDFium under -race.
var wait = 15 * time.Second

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.timeout"); f != nil {
		if d, err := time.ParseDuration(f.Value.String()); err == nil && d > 0 {
			wait = max(wait, d/2)
		}
	}
	os.Exit(m.Run())
}

// logBuf collects log output; tests read it to check WARNs.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
	t  *testing.T
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if testing.Verbose() {
		// Not t.Log: servers log after the test returns.
		_, _ = os.Stderr.Write(p)
	}
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newLog(t *testing.T) (*slog.Logger, *logBuf) {
	lb := &logBuf{t: t}
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})), lb
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startSMCP runs the project's SMCP server (server.New / Serve) on
// 127.0.0.1:0 and returns its URL.
func startSMCP(t *testing.T, apiKey string) (string, net.Listener) {
	t.Helper()
	slog0, _ := newLog(t)
	// The server's bound on a routed request is this file's wait too: its
	// 30 s default was missed by a get_dpe of the generated manual (built
	// on first read) under -race on a loaded machine.
	s, err := server.New(server.Options{APIKey: apiKey, Logger: slog0.With("side", "server"), RequestTimeout: wait, MaxRequestTimeout: max(wait, 2*time.Minute)})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return "http://" + l.Addr().String(), l
}

// agent is a minimal raw Socket.IO agent: it joins an office and emits
// client:* events, returning the ack arguments exactly as received, so the
// tests see the wire and not a client library's interpretation of it.
type agent struct {
	t      *testing.T
	name   string
	office string
	sock   *sio.Socket

	mu      sync.Mutex
	notices []string // notify:* event names, with payload
}

func newAgent(t *testing.T, baseURL, office, apiKey string) *agent {
	t.Helper()
	u, _ := url.Parse(baseURL)
	a := &agent{t: t, name: "agent-" + t.Name(), office: office}
	// A fresh manager per attempt, with a connect timer far beyond the
	// test: the library can miss "open" (then the attempt is abandoned after
	// 2s), and a timer armed at the wrong moment would close the live
	// connection later (conn.listen describes both races).
	var connected chan error
	deadline := time.Now().Add(wait)
	for {
		opts := sio.DefaultOptions()
		opts.SetTransports(types.NewSet(sio.WebSocket))
		opts.SetPerMessageDeflate(nil)
		opts.SetAutoConnect(false)
		opts.SetReconnection(false)
		opts.SetTimeout(time.Hour)
		opts.SetUpgrade(false)
		opts.SetPath(protocol.DefaultPath)
		opts.SetQuery(url.Values{protocol.QueryVersion: {protocol.Version}})
		opts.SetAuth(map[string]any{"role": protocol.RoleAgent, "api_key": apiKey})
		mgr := sio.NewManager(u.Scheme+"://"+u.Host, opts)
		sock := mgr.Socket(protocol.Namespace, opts)
		connected = make(chan error, 1)
		ch := connected
		sock.On("connect", func(...any) {
			select {
			case ch <- nil:
			default:
			}
		})
		sock.On("connect_error", func(args ...any) {
			select {
			case ch <- fmt.Errorf("connect_error: %v", firstArg(args)):
			default:
			}
		})
		for _, ev := range []string{protocol.NotifyEnterOffice, protocol.NotifyLeaveOffice, protocol.NotifyUpdateConfig} {
			sock.On(types.EventName(ev), func(args ...any) {
				b, _ := json.Marshal(firstArg(args))
				a.mu.Lock()
				a.notices = append(a.notices, ev+" "+string(b))
				a.mu.Unlock()
			})
		}
		opened := make(chan error, 1)
		mgr.Open(func(err error) {
			select {
			case opened <- err:
			default:
			}
		})
		var err error
		select {
		case err = <-opened:
		case <-time.After(2 * time.Second):
			err = errors.New("open not seen")
		}
		if err == nil {
			a.sock = sock
			break
		}
		if e := mgr.Engine(); e != nil {
			e.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent open: %v", err)
		}
	}
	a.sock.Connect()
	select {
	case err := <-connected:
		if err != nil {
			t.Fatalf("agent: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("agent connect: timeout")
	}
	t.Cleanup(func() { a.sock.Disconnect() })
	args := a.emit(protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: protocol.RoleAgent, Name: a.name, OfficeID: office})
	if err := protocol.DecodeJoinAck(office, args); err != nil {
		t.Fatalf("agent join: %v", err)
	}
	return a
}

func (a *agent) emit(ev string, payload any) []any {
	a.t.Helper()
	ch := make(chan []any, 1)
	if err := a.sock.Emit(ev, payload, func(args []any, err error) {
		if err != nil {
			args = []any{map[string]any{"ack_error": err.Error()}}
		}
		ch <- args
	}); err != nil {
		a.t.Fatalf("emit %s: %v", ev, err)
	}
	select {
	case args := <-ch:
		return args
	case <-time.After(wait):
		a.t.Fatalf("emit %s: no ack", ev)
		return nil
	}
}

// call emits a client:* event at computer and decodes the single ack
// argument into out (a result struct) or returns it as a *protocol.Error.
func (a *agent) call(ev, computer string, payload map[string]any, out any) *protocol.Error {
	a.t.Helper()
	if payload == nil {
		payload = map[string]any{}
	}
	payload["agent"] = a.name
	payload["req_id"] = fmt.Sprintf("req-%d", time.Now().UnixNano())
	payload["computer"] = computer
	args := a.emit(ev, payload)
	if len(args) != 1 {
		a.t.Fatalf("%s: ack has %d arguments, want exactly 1: %v", ev, len(args), args)
	}
	if perr, ok := protocol.DecodeError(args[0]); ok {
		return perr
	}
	b, err := json.Marshal(args[0])
	if err != nil {
		a.t.Fatalf("%s: re-marshal ack: %v", ev, err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			a.t.Fatalf("%s: decode ack %s: %v", ev, b, err)
		}
	}
	if m, ok := out.(*map[string]any); ok && (*m)["req_id"] != nil && (*m)["req_id"] != payload["req_id"] {
		a.t.Fatalf("%s: req_id %v, want %v", ev, (*m)["req_id"], payload["req_id"])
	}
	return nil
}

func (a *agent) noticesMatching(prefix string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, n := range a.notices {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// eventually polls cond; the deadline is a deadlock guard only.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ---- MCP test servers ----

// docJSON is a small Document JSON with n pages of two elements each.
func docJSON(host, ref string, pages int, pad int) string {
	type el struct {
		ID        string `json:"element_id"`
		Category  string `json:"category"`
		Text      string `json:"text"`
		PageIndex int    `json:"page_index"`
	}
	type page struct {
		PageIndex int    `json:"page_index"`
		Title     string `json:"title"`
		DocRef    string `json:"doc_ref"`
		Elements  []el   `json:"elements"`
	}
	doc := map[string]any{"doc_ref": ref, "uri": "dpe://" + host + "/" + ref, "title": "Doc " + ref, "page_count": pages}
	ps := make([]page, pages)
	for i := range ps {
		ps[i] = page{PageIndex: i, Title: fmt.Sprintf("Page %d", i), DocRef: ref, Elements: []el{
			{ID: fmt.Sprintf("p%d-t", i), Category: "Title", Text: fmt.Sprintf("%s page %d", ref, i), PageIndex: i},
			{ID: fmt.Sprintf("p%d-n", i), Category: "NarrativeText", Text: strings.Repeat("x", pad), PageIndex: i},
		}}
	}
	doc["pages"] = ps
	b, _ := json.Marshal(doc)
	return string(b)
}

// docServerOptions shape a test library.
type docServerOptions struct {
	Host     string
	Docs     int // plain documents dpe://host/doc-NNN
	PageSize int
	Pad      int    // bytes of text per page, to push documents over a threshold
	Tag      string // put into every document title, to tell servers apart
}

// newDocServer builds an in-memory MCP server listing Docs documents plus
// the special resources the 4013 tests need.
func newDocServer(o docServerOptions) *mcp.Server {
	if o.PageSize == 0 {
		o.PageSize = 25
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test-docs", Version: "1"}, &mcp.ServerOptions{PageSize: o.PageSize})
	inline := func(uri, text string) *mcp.ReadResourceResult {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: protocol.MimeDPEInline, Text: text}}}
	}
	for i := range o.Docs {
		ref := fmt.Sprintf("doc-%03d", i)
		uri := "dpe://" + o.Host + "/" + ref
		srv.AddResource(&mcp.Resource{
			URI: uri, Name: ref, Title: "Title " + ref, Description: "desc " + ref, MIMEType: "application/json",
			Size:        int64(100 + i),
			Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, LastModified: "2026-01-15T08:30:00Z"},
			Meta:        mcp.Meta{"keywords": []string{"k" + ref}, "file_type": "md", "page_count": 3},
		}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return inline(req.Params.URI, strings.Replace(docJSON(o.Host, ref, 3, o.Pad), `"title":"Doc `, `"title":"`+o.Tag+`Doc `, 1)), nil
		})
	}
	special := map[string]mcp.ResourceHandler{
		"bad-mime": func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: docJSON(o.Host, "bad-mime", 1, 0)}}}, nil
		},
		"bad-body": func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return inline(req.Params.URI, "this is not json"), nil
		},
		"no-pages": func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return inline(req.Params.URI, `{"doc_ref":"no-pages"}`), nil
		},
		"bad-ref": func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: protocol.MimeDPEURI, Text: `{"mime_type":"application/pdf"}`}}}, nil
		},
		"external": func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: protocol.MimeDPEURI,
				Text: `{"uri":"https://oss.example.com/doc-1.pdf","mime_type":"application/pdf","size":12345678,"expires_at":"2026-04-27T12:00:00Z"}`}}}, nil
		},
		"failing": func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, errors.New("disk on fire")
		},
		"slow": func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
		"big": func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return inline(req.Params.URI, docJSON(o.Host, "big", 8, 4000)), nil
		},
	}
	for name, h := range special {
		srv.AddResource(&mcp.Resource{URI: "dpe://" + o.Host + "/" + name, Name: name, MIMEType: "application/json"}, h)
	}
	return srv
}

// newToolsOnlyServer has tools and no resources capability.
func newToolsOnlyServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tools-only", Version: "1"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echo text"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo:" + in.Text}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "rm_rf", Description: "dangerous"}, func(_ context.Context, _ *mcp.CallToolRequest, _ echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted everything"}}}, nil, nil
	})
	return srv
}

// inProc registers srv under name on c.
func inProc(t *testing.T, c *Computer, name string, srv *mcp.Server, mutate ...func(*protocol.MCPServerConfig)) {
	t.Helper()
	cfg := protocol.MCPServerConfig{Name: name}
	for _, m := range mutate {
		m(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.AddInProcess(ctx, cfg, srv); err != nil {
		t.Fatalf("AddInProcess %s: %v", name, err)
	}
}

// office is one SMCP server, one started computer and one agent.
type office struct {
	url   string
	name  string
	comp  *Computer
	agent *agent
	logs  *logBuf
}

// startOffice starts a server and a computer named "pc" with setup applied
// before Start, then joins an agent.
func startOffice(t *testing.T, opt Options, setup func(*Computer)) *office {
	t.Helper()
	url, _ := startSMCP(t, opt.APIKey)
	log, lb := newLog(t)
	opt.URL, opt.Office, opt.Name, opt.Logger = url, "office-1", "pc", log
	c := New(opt)
	t.Cleanup(func() { _ = c.Close() })
	if setup != nil {
		setup(c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	a := newAgent(t, url, "office-1", opt.APIKey)
	return &office{url: url, name: "pc", comp: c, agent: a, logs: lb}
}

func firstArg(args []any) any {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}
