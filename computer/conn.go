package computer

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/sioconn"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// conn is the Socket.IO side of a Computer: what a Computer does on the
// connection (join the office on every connect, retry a refused re-join,
// answer client:* events, announce config changes). The connection itself
// — transports, supervision, reconnects and the library's traps — is
// internal/sioconn, shared with the agent.
type conn struct {
	c  *Computer
	sc *sioconn.Conn

	mu         sync.Mutex
	joined     bool
	everJoined bool          // Start succeeded; later join failures are retried
	retry      time.Duration // next re-join backoff
	dirty      bool          // config changed while not joined
	closed     bool
}

// JoinError is a refused server:join_office; the agent gets the same type.
type JoinError = protocol.JoinError

func newConn(c *Computer) (*conn, error) {
	cn := &conn{c: c}
	path := c.opt.Path
	if path == protocol.DefaultPath {
		// Options fills in the default; left to sioconn, a path in the URL
		// (http://h:7800/smcp) is honoured, else the same default applies.
		path = ""
	}
	version := cmp.Or(c.opt.Version, protocol.Version)
	auth := map[string]any{}
	if protocol.RoleInAuth(version) {
		auth["role"] = protocol.RoleComputer
	}
	opt := sioconn.Options{
		URL:                         c.opt.URL,
		URLs:                        c.opt.URLs,
		Version:                     version,
		Path:                        path,
		Auth:                        auth,
		ConnectTimeout:              c.opt.ConnectTimeout,
		ReconnectOnServerDisconnect: true,
		Logger:                      c.log,
		OnConnect:                   cn.join,
		OnDisconnect: func(reason string, _ error) {
			cn.mu.Lock()
			cn.joined = false
			cn.mu.Unlock()
			c.log.Warn("disconnected", "reason", reason)
		},
	}
	if c.opt.APIKey != "" {
		opt.Auth["api_key"] = c.opt.APIKey
		opt.Headers = http.Header{"X-Api-Key": {c.opt.APIKey}}
	}
	sc, err := sioconn.New(opt)
	if err != nil {
		return nil, fmt.Errorf("computer %s: %w", c.opt.Name, err)
	}
	cn.sc = sc
	cn.listen()
	return cn, nil
}

// start connects and joins the office within ConnectTimeout.
func (cn *conn) start(ctx context.Context) error {
	if err := cn.sc.Connect(ctx); err != nil {
		return fmt.Errorf("computer %s: connect to %s: %w", cn.c.opt.Name, cn.sc.URL(), err)
	}
	return nil
}

func (cn *conn) listen() {
	handled := map[string]bool{}
	for ev, h := range cn.c.handlers() {
		handled[ev] = true
		cn.sc.On(ev, cn.wrap(ev, h))
	}
	// The server routes every client:* event here; answer the ones this
	// Computer does not implement instead of letting the agent time out.
	cn.sc.OnAny(func(args ...any) {
		ev, _ := sioconn.ArgAt[string](args, 0)
		if !strings.HasPrefix(ev, protocol.ClientPrefix) || handled[ev] {
			return
		}
		if ack := sioconn.AckFunc(args); ack != nil {
			ack([]any{&protocol.Error{Code: protocol.CodeNotFound,
				Message: fmt.Sprintf("computer %s does not implement %s", cn.c.opt.Name, ev)}}, nil)
		}
	})
}

type handlerFunc func(ctx context.Context, req json.RawMessage) any

// wrap runs a client:* handler off the event loop and acks exactly one
// argument: the result object or a flat protocol.Error.
func (cn *conn) wrap(ev string, h handlerFunc) func(...any) {
	return func(args ...any) {
		ack := sioconn.AckFunc(args)
		if ack != nil {
			args = args[:len(args)-1]
		}
		var raw json.RawMessage
		if len(args) > 0 {
			if b, err := json.Marshal(args[0]); err == nil {
				raw = b
			}
		}
		go func() {
			var res any
			func() {
				defer func() {
					if r := recover(); r != nil {
						cn.c.log.Error("handler panic", "event", ev, "panic", fmt.Sprint(r))
						res = &protocol.Error{Code: protocol.CodeInternal, Message: ev + ": internal error"}
					}
				}()
				res = h(cn.c.ctx, raw)
			}()
			if ack != nil {
				ack([]any{res}, nil)
			}
		}()
	}
}

// join sends server:join_office; sioconn runs it on every connect, so a
// reconnect re-joins. After the first success a refused or unanswered
// re-join is retried with backoff while connected: the server may still
// hold our previous session (name taken) until its ping timeout notices
// the old connection is gone.
func (cn *conn) join(ctx context.Context) error {
	c := cn.c
	args, err := cn.sc.EmitWithAck(ctx, c.opt.ConnectTimeout, protocol.EventJoinOffice, protocol.EnterOfficeReq{
		Role: protocol.RoleComputer, Name: c.opt.Name, OfficeID: c.opt.Office,
	})
	if err == nil {
		err = protocol.DecodeJoinAck(c.opt.Office, args)
	}
	cn.mu.Lock()
	if err != nil {
		ever := cn.everJoined
		delay := cn.retry
		cn.retry = min(max(2*cn.retry, time.Second), 30*time.Second)
		cn.mu.Unlock()
		c.log.Error("join office failed", "office", c.opt.Office, "err", err)
		if ever {
			time.AfterFunc(max(delay, time.Second), cn.rejoin)
		}
		return err
	}
	cn.joined, cn.everJoined = true, true
	cn.retry = 0
	dirty := cn.dirty
	cn.dirty = false
	cn.mu.Unlock()
	c.log.Info("joined office", "office", c.opt.Office, "url", cn.sc.URL())
	if dirty {
		cn.notifyConfig()
	}
	return nil
}

// rejoin retries a refused re-join while still connected and not joined.
func (cn *conn) rejoin() {
	cn.mu.Lock()
	again := !cn.closed && !cn.joined
	cn.mu.Unlock()
	if !again || !cn.sc.Connected() {
		return
	}
	ctx, cancel := context.WithTimeout(cn.c.ctx, cn.c.opt.ConnectTimeout)
	defer cancel()
	_ = cn.join(ctx)
}

// notifyConfig emits server:update_config now if joined, else after the
// next join.
func (cn *conn) notifyConfig() {
	cn.mu.Lock()
	if !cn.joined {
		cn.dirty = true
		cn.mu.Unlock()
		return
	}
	cn.mu.Unlock()
	if err := cn.sc.Emit(protocol.EventUpdateConfig, protocol.ComputerNotification{Computer: cn.c.opt.Name}); err != nil {
		cn.c.log.Warn("emit update_config failed", "err", err)
	}
}

func (cn *conn) close() {
	cn.mu.Lock()
	cn.closed = true
	cn.joined = false
	cn.mu.Unlock()
	cn.sc.Close()
}
