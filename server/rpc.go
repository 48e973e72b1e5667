package server

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/zishang520/socket.io/servers/socket/v3"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// A routed request for a computer on another node, and its ack, travel as a
// request/reply over Redis pub/sub rather than as the adapter's server-side
// emit with ack. Measured with adapter v3.0.0: BroadcastWithAck publishes the
// request before it records it, so a remote computer that answers quickly has
// its ack dropped as "unknown request" (one routed request in about six was
// lost in the two-node test), and the asking node can receive its own request
// and count itself twice. Here the asking node records the request before it
// publishes, and the computer's node answers on the asking node's own
// channel, so no answer can arrive before it is expected. Notifications stay
// on the adapter: they need no answer.
//
// Each node subscribes to one channel, prefix:rpc:NODE, for both kinds of
// message; the asking node's request timer bounds the whole exchange, and the
// computer's node bounds its own wait by the same timeout.
//
// Office notifications cross nodes on one more channel, prefix:rpc:notes,
// which every node hears and delivers to its own members of the office.
// The Socket.IO Redis adapter carried them before; its messages (msgpack
// packets the library publishes and obeys, among them "disconnect every
// socket") cannot be authenticated, so it is not used. Every message on
// both channels is sealed (clusterseal.go).

// rpcMessage is a request (Event set) or a reply (Event empty).
type rpcMessage struct {
	ID     string `json:"id"`
	From   string `json:"from,omitempty"` // node to reply to (requests)
	SID    string `json:"sid,omitempty"`
	Name   string `json:"name,omitempty"`
	Office string `json:"office,omitempty"`
	Event  string `json:"event,omitempty"`
	WaitMS int64  `json:"wait_ms,omitempty"`
	// At (unix ms) and ID let a node refuse a replayed message.
	At int64 `json:"at"`
	// NoAck: a request whose sender asked for no answer.
	NoAck bool `json:"no_ack,omitempty"`
	// Note: an office notification (Office, Except, Event, Args).
	Note   bool   `json:"note,omitempty"`
	Except string `json:"except,omitempty"`
	// Args stay raw both ways: an ack crosses the cluster as the bytes the
	// computer sent, and reaches the agent so (rawack.go).
	Args []json.RawMessage `json:"args"`
}

// rawArgs turns event or ack arguments into JSON values; relayed acks are
// already raw and are not encoded again.
func rawArgs(args []any) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(args))
	for i, a := range args {
		if r, ok := a.(json.RawMessage); ok {
			out[i] = r
			continue
		}
		b, err := json.Marshal(a)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// anyArgs is the arguments as the library emits them: raw JSON values.
func anyArgs(raw []json.RawMessage) []any {
	out := make([]any, len(raw))
	for i, r := range raw {
		out[i] = r
	}
	return out
}

// rpc is a node's side of the exchange.
type rpc struct {
	c *cluster

	mu      sync.Mutex
	waiting map[string]*pendingRequest // requests this node sent, by id
	sub     *redis.PubSub
}

func (c *cluster) rpcChannel(node string) string { return c.prefix + ":rpc:" + node }
func (c *cluster) noteChannel() string           { return c.prefix + ":rpc:notes" }

// startRPC subscribes to this node's channel. go-redis re-subscribes on its
// own after a Redis outage; a request lost meanwhile is answered by the
// asking node's timer.
func (c *cluster) startRPC() {
	r := &rpc{c: c, waiting: map[string]*pendingRequest{}}
	r.sub = c.rdb.Subscribe(c.ctx, c.rpcChannel(c.node), c.noteChannel())
	c.rpc = r
	ch := r.sub.Channel(redis.WithChannelSize(1024))
	go func() {
		for {
			select {
			case <-c.ctx.Done():
				return
			case msg, ok := <-ch:
				if !ok {
					return
				}
				r.receive(msg.Channel, msg.Payload)
			}
		}
	}()
}

func (r *rpc) close() {
	if r == nil {
		return
	}
	_ = r.sub.Close()
	r.mu.Lock()
	clear(r.waiting)
	r.mu.Unlock()
}

func (r *rpc) receive(channel, payload string) {
	if len(payload) > int(r.c.s.opt.maxMessageBytes()) {
		r.c.dropped("larger than --max-message-bytes", channel, len(payload))
		return
	}
	plain, err := r.c.seal.open(channel, []byte(payload))
	if err != nil {
		r.c.dropped(err.Error(), channel, len(payload))
		return
	}
	var m rpcMessage
	if json.Unmarshal(plain, &m) != nil || m.ID == "" {
		r.c.dropped("malformed", channel, len(payload))
		return
	}
	if m.Note && m.From == r.c.node {
		return // our own broadcast, delivered here already
	}
	if err := r.c.seal.fresh(m.ID, m.At, time.Now()); err != nil {
		r.c.dropped(err.Error(), channel, len(payload))
		return
	}
	switch {
	case m.Note:
		if m.Event == protocol.NotifyEnterOffice || m.Event == protocol.NotifyLeaveOffice {
			r.c.rooms.changed(m.Office) // before the members hear of it
		}
		if m.Office != "" && m.Event != "" {
			_ = r.c.s.nsp.To(officeRoom(m.Office)).Except(socket.Room(m.Except)).Emit(m.Event, anyArgs(m.Args)...)
		}
		return
	case m.Event != "":
		r.serve(m)
		return
	}
	r.mu.Lock()
	p := r.waiting[m.ID]
	delete(r.waiting, m.ID)
	r.mu.Unlock()
	if p != nil {
		p.finish(anyArgs(m.Args))
	}
}

func newMessageID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// publish seals m for channel and publishes it.
func (r *rpc) publish(channel string, m rpcMessage) error {
	m.At = time.Now().UnixMilli()
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	ctx, cancel := r.c.opCtx()
	defer cancel()
	return r.c.rdb.Publish(ctx, channel, r.c.seal.seal(channel, b)).Err()
}

// note tells the other nodes' members of office about event (all but the
// session except).
func (r *rpc) note(office, except, event string, payload any) {
	args, err := rawArgs([]any{payload})
	if err == nil {
		err = r.publish(r.c.noteChannel(), rpcMessage{ID: newMessageID(), From: r.c.node, Note: true,
			Office: office, Except: except, Event: event, Args: args})
	}
	if err != nil {
		r.c.fail(err)
	}
}

// emit sends a request that wants no answer to a computer on another node.
func (r *rpc) emit(target entry, ev string, data []any) {
	args, err := rawArgs(data)
	if err == nil {
		err = r.publish(r.c.rpcChannel(target.Node), rpcMessage{ID: newMessageID(), From: r.c.node, SID: target.SID,
			Name: target.Name, Office: target.Office, Event: ev, NoAck: true, Args: args})
	}
	if err != nil {
		r.c.fail(err)
	}
}

// expect records p under a new id before anything is published, so that no
// reply can arrive unexpected, and makes answering p forget it.
func (r *rpc) expect(p *pendingRequest) string {
	id := newMessageID()
	answer := p.reply
	p.reply = func(args []any, err error) {
		r.forget(id)
		answer(args, err)
	}
	r.mu.Lock()
	r.waiting[id] = p
	r.mu.Unlock()
	return id
}

// send publishes request id to the computer's node; p (recorded by expect,
// its timer armed by the caller) is answered by the reply, the timer, or at
// once when Redis refuses the publish.
func (r *rpc) send(id string, p *pendingRequest, target entry, ev string, data []any, wait time.Duration) {
	args, err := rawArgs(data)
	if err != nil {
		p.finish([]any{wire(&protocol.Error{Code: protocol.CodeBadRequest, Message: ev + ": payload cannot be forwarded: " + err.Error()})})
		return
	}
	msg := rpcMessage{ID: id, From: r.c.node, SID: target.SID, Name: target.Name,
		Office: target.Office, Event: ev, WaitMS: wait.Milliseconds(), Args: args}
	if err := r.publish(r.c.rpcChannel(target.Node), msg); err != nil {
		r.c.fail(err)
		p.finish([]any{wire(&protocol.Error{Code: protocol.CodeInternal,
			Message: fmt.Sprintf("computer %s is on another server node, which cannot be reached now", truncate(target.Name, 64))})})
	}
}

func (r *rpc) forget(id string) {
	r.mu.Lock()
	delete(r.waiting, id)
	r.mu.Unlock()
}

// serve runs a request for one of this node's computers and publishes its
// ack, or a 500 when the computer is no longer here.
func (r *rpc) serve(m rpcMessage) {
	reply := func(args []any) {
		raw, err := rawArgs(args)
		if err != nil {
			e, _ := json.Marshal(&protocol.Error{Code: protocol.CodeInternal,
				Message: "the computer's answer cannot be relayed: " + err.Error()})
			raw = []json.RawMessage{e}
		}
		if err := r.publish(r.c.rpcChannel(m.From), rpcMessage{ID: m.ID, Args: raw}); err != nil {
			r.c.fail(err)
		}
	}
	target, found := r.c.s.offices.computer(m.Office, m.Name)
	if m.NoAck {
		if found == computerHere && target.sid == m.SID {
			_ = target.conn.Emit(m.Event, anyArgs(m.Args)...)
		}
		return
	}
	if found != computerHere || target.sid != m.SID {
		reply([]any{wire(&protocol.Error{Code: protocol.CodeInternal, Message: fmt.Sprintf("computer %s disconnected", truncate(m.Name, 64))})})
		return
	}
	var expired atomic.Bool
	p := &pendingRequest{reply: func(args []any, _ error) {
		if !expired.Load() {
			reply(args)
		}
	}}
	if !target.pending.add(p) {
		reply([]any{wire(&protocol.Error{Code: protocol.CodeInternal, Message: fmt.Sprintf("computer %s disconnected", truncate(m.Name, 64))})})
		return
	}
	wait := time.Duration(m.WaitMS) * time.Millisecond
	if wait <= 0 || wait > r.c.s.opt.maxRequestTimeout()+timeoutGrace {
		wait = r.c.s.opt.maxRequestTimeout() + timeoutGrace
	}
	// The asking node answers the agent on its own timer; this one only
	// keeps the request from outliving it here.
	p.start(wait, func() {
		expired.Store(true)
		p.finish(nil)
	})
	fwd := append(anyArgs(m.Args), func(args []any, _ error) { p.finish(answerOrNoAnswer(m.Name, m.Event, args)) })
	_ = target.conn.Emit(m.Event, fwd...)
}
