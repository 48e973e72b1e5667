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

// rpcMessage is a request (Event set) or a reply (Event empty).
type rpcMessage struct {
	ID     string `json:"id"`
	From   string `json:"from,omitempty"` // node to reply to (requests)
	SID    string `json:"sid,omitempty"`
	Name   string `json:"name,omitempty"`
	Office string `json:"office,omitempty"`
	Event  string `json:"event,omitempty"`
	WaitMS int64  `json:"wait_ms,omitempty"`
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

// startRPC subscribes to this node's channel. go-redis re-subscribes on its
// own after a Redis outage; a request lost meanwhile is answered by the
// asking node's timer.
func (c *cluster) startRPC() {
	r := &rpc{c: c, waiting: map[string]*pendingRequest{}}
	r.sub = c.rdb.Subscribe(c.ctx, c.rpcChannel(c.node))
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
				r.receive(msg.Payload)
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

func (r *rpc) receive(payload string) {
	var m rpcMessage
	if len(payload) > int(r.c.s.opt.maxMessageBytes()) || json.Unmarshal([]byte(payload), &m) != nil || m.ID == "" {
		r.c.log.Debug("dropped a malformed cluster message", "bytes", len(payload))
		return
	}
	if m.Event != "" {
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

// expect records p under a new id before anything is published, so that no
// reply can arrive unexpected, and makes answering p forget it.
func (r *rpc) expect(p *pendingRequest) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
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
	var b []byte
	if err == nil {
		b, err = json.Marshal(rpcMessage{ID: id, From: r.c.node, SID: target.SID, Name: target.Name,
			Office: target.Office, Event: ev, WaitMS: wait.Milliseconds(), Args: args})
	}
	if err != nil {
		p.finish([]any{wire(&protocol.Error{Code: protocol.CodeBadRequest, Message: ev + ": payload cannot be forwarded: " + err.Error()})})
		return
	}
	ctx, cancel := r.c.opCtx()
	defer cancel()
	if err := r.c.rdb.Publish(ctx, r.c.rpcChannel(target.Node), b).Err(); err != nil {
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
		var b []byte
		if err == nil {
			b, err = json.Marshal(rpcMessage{ID: m.ID, Args: raw})
		}
		if err != nil {
			e, _ := json.Marshal(&protocol.Error{Code: protocol.CodeInternal,
				Message: "the computer's answer cannot be relayed: " + err.Error()})
			b, _ = json.Marshal(rpcMessage{ID: m.ID, Args: []json.RawMessage{e}})
		}
		ctx, cancel := r.c.opCtx()
		defer cancel()
		if err := r.c.rdb.Publish(ctx, r.c.rpcChannel(m.From), b).Err(); err != nil {
			r.c.fail(err)
		}
	}
	target, found := r.c.s.offices.computer(m.Office, m.Name)
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
