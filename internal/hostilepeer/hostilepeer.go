// Package hostilepeer is a scripted hostile SMCP server, with the computers
// behind it, for tests of the agent: an in-process Socket.IO (Engine.IO v4,
// websocket only) endpoint on 127.0.0.1 that answers the agent's events the
// way a script says, including answers no honest server would give: acks of
// hundreds of megabytes streamed without building them in memory, endless
// fresh cursors, megabyte cursors and names, a computer that claims every
// host, file:// access URIs for local secrets.
//
// It speaks just enough of the wire for the agent (client package): the
// polling handshake the client probes first, then one websocket per
// connection, the /smcp namespace, events with acks. Pings are set so far
// apart that none is sent during a test.
package hostilepeer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	ws "github.com/gorilla/websocket"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Reply is one ack. Value is marshalled as the ack's single argument;
// Stream, when set, writes that argument's JSON straight into the frame, so
// a huge answer costs the server no memory. Args, when set, are the whole
// ack argument list (e.g. [true, null] for a join).
type Reply struct {
	Value  any
	Stream func(w io.Writer) error
	Args   []any
}

// JSON is a Reply with one value.
func JSON(v any) Reply { return Reply{Value: v} }

// Error is an A2C ErrorPayload reply.
func Error(code int, msg string) Reply {
	return Reply{Value: map[string]any{"code": code, "message": msg}}
}

// Computer is one scripted computer of the office. Nil funcs answer as an
// empty but honest computer would.
type Computer struct {
	Name string
	// Servers are the MCP server names get_config lists (all enabled).
	Servers []string
	// Config, when set, replaces the get_config answer.
	Config func() Reply
	// Resources answers get_resources for server at cursor ("" first).
	Resources func(server, cursor string) Reply
	// GetDPE answers get_dpe for uri.
	GetDPE func(uri string) Reply
	// ListRoomEntry, when set, replaces this computer's list_room session.
	ListRoomEntry map[string]any
}

// Script is the whole hostile deployment.
type Script struct {
	Office    string // default "demo"
	Computers []Computer
	// ListRoom, when set, replaces the server:list_room answer.
	ListRoom func() Reply
}

// Server is a running scripted server.
type Server struct {
	URL    string
	Office string

	script Script
	ln     net.Listener
	http   *http.Server
	up     ws.Upgrader

	calls sync.Map // event → *atomic.Int64
	mu    sync.Mutex
	conns map[*ws.Conn]struct{}
	wg    sync.WaitGroup
}

// Start serves script on a free loopback port.
func Start(script Script) (*Server, error) {
	if script.Office == "" {
		script.Office = "demo"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), Office: script.Office, script: script, ln: ln, conns: map[*ws.Conn]struct{}{}}
	s.up = ws.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	s.http = &http.Server{Handler: http.HandlerFunc(s.serveHTTP)}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.http.Serve(ln)
	}()
	return s, nil
}

// Close stops the server and every connection, and waits for its goroutines.
func (s *Server) Close() {
	_ = s.http.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// Calls counts the events of one name received so far.
func (s *Server) Calls(event string) int64 {
	v, ok := s.calls.Load(event)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

// CallsTo counts the events of one name sent to one computer.
func (s *Server) CallsTo(computer, event string) int64 { return s.Calls(event + "@" + computer) }

func (s *Server) count(event string) {
	v, _ := s.calls.LoadOrStore(event, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

const openPacket = `0{"sid":"hostile","upgrades":[],"pingInterval":600000,"pingTimeout":600000,"maxPayload":100000000}`

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("transport") == "polling" {
		// The client's handshake probe: accept, then accept its close.
		if r.Method == http.MethodPost {
			_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 4<<10))
			_, _ = io.WriteString(w, "ok")
			return
		}
		_, _ = io.WriteString(w, openPacket)
		return
	}
	c, err := s.up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	s.wg.Add(1)
	go s.serveConn(c)
}

type conn struct {
	c   *ws.Conn
	wmu sync.Mutex
}

func (cn *conn) send(text string) error {
	cn.wmu.Lock()
	defer cn.wmu.Unlock()
	return cn.c.WriteMessage(ws.TextMessage, []byte(text))
}

func (s *Server) serveConn(c *ws.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	cn := &conn{c: c}
	if cn.send(openPacket) != nil {
		return
	}
	var handlers sync.WaitGroup
	defer handlers.Wait()
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			return
		}
		m := string(msg)
		switch {
		case m == "3" || m == "2": // pong, ping
			if m == "2" {
				_ = cn.send("3")
			}
		case strings.HasPrefix(m, "40"+protocol.Namespace):
			_ = cn.send("40" + protocol.Namespace + `,{"sid":"hostile-ns"}`)
		case strings.HasPrefix(m, "42"+protocol.Namespace+","):
			id, event, payload, ok := parseEvent(strings.TrimPrefix(m, "42"+protocol.Namespace+","))
			if !ok {
				continue
			}
			s.count(event)
			if comp, _ := payload["computer"].(string); comp != "" {
				s.count(event + "@" + comp)
			}
			handlers.Add(1)
			go func() {
				defer handlers.Done()
				rep := s.answer(event, payload)
				if id >= 0 {
					_ = cn.ack(id, rep)
				}
			}()
		case m == "1" || strings.HasPrefix(m, "41"):
			return
		}
	}
}

// parseEvent reads `<id>["event",payload]`; id is -1 without an ack.
func parseEvent(s string) (int, string, map[string]any, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	id := -1
	if i > 0 {
		id, _ = strconv.Atoi(s[:i])
	}
	var arr []json.RawMessage
	if json.Unmarshal([]byte(s[i:]), &arr) != nil || len(arr) == 0 {
		return 0, "", nil, false
	}
	var event string
	if json.Unmarshal(arr[0], &event) != nil {
		return 0, "", nil, false
	}
	var payload map[string]any
	if len(arr) > 1 {
		_ = json.Unmarshal(arr[1], &payload)
	}
	return id, event, payload, true
}

// ack writes `43/smcp,<id>[args…]`, streaming when the reply says so.
func (cn *conn) ack(id int, rep Reply) error {
	cn.wmu.Lock()
	defer cn.wmu.Unlock()
	w, err := cn.c.NextWriter(ws.TextMessage)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "43%s,%d[", protocol.Namespace, id)
	switch {
	case rep.Stream != nil:
		err = rep.Stream(bw)
	case rep.Args != nil:
		var b []byte
		b, err = json.Marshal(rep.Args)
		if err == nil {
			_, err = bw.Write(b[1 : len(b)-1])
		}
	default:
		var b []byte
		b, err = json.Marshal(rep.Value)
		if err == nil {
			_, err = bw.Write(b)
		}
	}
	if err == nil {
		_, err = bw.WriteString("]")
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *Server) computer(name string) *Computer {
	for i := range s.script.Computers {
		if s.script.Computers[i].Name == name {
			return &s.script.Computers[i]
		}
	}
	return nil
}

func (s *Server) answer(event string, p map[string]any) Reply {
	switch event {
	case protocol.EventJoinOffice, protocol.EventLeaveOffice:
		return Reply{Args: []any{true, nil}}
	case protocol.EventListRoom:
		if s.script.ListRoom != nil {
			return s.script.ListRoom()
		}
		var sessions []any
		for _, c := range s.script.Computers {
			e := c.ListRoomEntry
			if e == nil {
				e = map[string]any{"sid": "sid-" + c.Name, "name": c.Name, "role": "computer", "office_id": s.Office, "a2c_version": protocol.Version}
			}
			sessions = append(sessions, e)
		}
		sessions = append(sessions, map[string]any{"sid": "sid-agent", "name": "dpe-tui", "role": "agent", "office_id": s.Office})
		return JSON(map[string]any{"sessions": sessions})
	}
	name, _ := p["computer"].(string)
	c := s.computer(name)
	if c == nil {
		return Error(4104, "no such computer")
	}
	switch event {
	case protocol.EventGetConfig:
		if c.Config != nil {
			return c.Config()
		}
		servers := map[string]any{}
		for _, n := range c.Servers {
			servers[n] = map[string]any{"name": n, "type": "stdio", "disabled": false, "forbidden_tools": []any{}, "tool_meta": map[string]any{},
				"server_parameters": map[string]any{"command": "x", "args": []any{}}}
		}
		return JSON(map[string]any{"servers": servers, "inputs": []any{}})
	case protocol.EventGetResources:
		if c.Resources == nil {
			return JSON(map[string]any{"resources": []any{}})
		}
		server, _ := p["mcp_server"].(string)
		cursor, _ := p["cursor"].(string)
		return c.Resources(server, cursor)
	case protocol.EventGetDPE:
		if c.GetDPE == nil {
			return Error(protocol.CodeMCPServerNotFound, "MCP Server Not Found")
		}
		uri, _ := p["uri"].(string)
		return c.GetDPE(uri)
	}
	return Reply{}
}

// Resource is a dpe:// resource entry for a get_resources page.
func Resource(uri, name string) map[string]any {
	return map[string]any{"uri": uri, "name": name, "mimeType": "application/vnd.a2c.dpe+json"}
}

// Page is a get_resources answer.
func Page(next string, resources ...map[string]any) Reply {
	rs := make([]any, len(resources))
	for i, r := range resources {
		rs[i] = r
	}
	m := map[string]any{"resources": rs}
	if next != "" {
		m["next_cursor"] = next
	}
	return JSON(m)
}

// EndlessCursors answers every get_resources with perPage fresh dpe://
// resources on host and a cursor never seen before: a listing that never
// ends. For the agent's page caps and resource budgets (ls, the TUI's
// load-all).
func EndlessCursors(host string, perPage int) func(server, cursor string) Reply {
	var n atomic.Int64
	return func(server, cursor string) Reply {
		page := n.Add(1)
		rs := make([]map[string]any, perPage)
		for i := range rs {
			id := (page-1)*int64(perPage) + int64(i)
			rs[i] = Resource(fmt.Sprintf("dpe://%s/doc-%d", host, id), fmt.Sprintf("doc %d", id))
		}
		return Page(fmt.Sprintf("fresh-%d", page), rs...)
	}
}

// HugeStream streams a JSON object of about n bytes, {"sessions":[],"pad":"xxxx…"},
// from one reused buffer.
func HugeStream(n int64) func(w io.Writer) error {
	return func(w io.Writer) error {
		if _, err := io.WriteString(w, `{"sessions":[],"resources":[],"pad":"`); err != nil {
			return err
		}
		chunk := []byte(strings.Repeat("x", 64<<10))
		for left := n; left > 0; left -= int64(len(chunk)) {
			k := min(int64(len(chunk)), left)
			if _, err := w.Write(chunk[:k]); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, `"}`)
		return err
	}
}

// Access is a get_dpe answer pointing at uri.
func Access(uri string) Reply {
	return JSON(map[string]any{"uri": uri, "mime_type": "application/json", "req_id": "r"})
}

// Names lists the script's computer names in the order the agent sorts them.
func (s *Server) Names() []string {
	var out []string
	for _, c := range s.script.Computers {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}
