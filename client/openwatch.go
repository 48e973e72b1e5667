package client

import (
	"context"
	"errors"
	"time"

	"github.com/zishang520/socket.io/clients/engine/v3"
	"github.com/zishang520/socket.io/parsers/engine/v3/packet"
)

// missedOpenGrace is how long an engine may sit open without the manager
// noticing before watchOpen re-announces it. The engine stores its open
// state and emits "open" back to back, so a real emission is never this late.
const missedOpenGrace = time.Second

// watchOpen rescues a missed "open" (a trap of the zishang520 client): the
// websocket transport dials synchronously inside the engine constructor, so
// the server's open packet can be handled and "open" emitted before
// Manager.Open subscribes to it. The manager then waits for its connect
// timeout although the engine is open. When the engine has been open for
// missedOpenGrace and the manager has still not opened (openSeq unchanged
// since before), watchOpen emits "open" on the engine again, which runs the
// manager's pending open handler. The same race hides a failed dial; an
// engine that stays closed gets its failure reported the same way.
func (c *Client) watchOpen(ctx context.Context, before uint64) {
	c.watchAttempt(ctx, before, c.attempts.Load())
}

// watchAttempt is watchOpen for one numbered reconnect attempt: on timeout
// it abandons the engine only if no newer attempt has started.
func (c *Client) watchAttempt(ctx context.Context, before, attempt uint64) {
	defer c.wg.Done()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var seen engine.Socket
	var since time.Time
	for {
		select {
		case <-ctx.Done():
			c.abandonAttempt(before, attempt)
			return
		case <-c.ctx.Done(): // shutdown waits for us
			return
		case <-tick.C:
		}
		if c.openSeq.Load() != before {
			return
		}
		e := c.mgr.Engine()
		var st engine.SocketState
		if e != nil {
			st = e.ReadyState()
		}
		if e == nil || (st != engine.SocketStateOpen && st != engine.SocketStateClosed) {
			seen = nil
			continue
		}
		if e != seen {
			seen, since = e, time.Now()
			continue
		}
		if time.Since(since) < missedOpenGrace {
			continue
		}
		if st == engine.SocketStateOpen {
			c.log.Debug("smcp: engine open but manager missed it; re-announcing")
			e.Emit("open")
		} else {
			// The websocket dial failed inside the engine constructor and
			// its error was emitted before the manager listened: report it
			// now so the next attempt starts after the backoff instead of
			// after the whole connect timeout. Harmless when the manager
			// already saw the error: its listener is gone by then.
			c.log.Debug("smcp: engine closed before the manager listened; reporting the failure")
			e.Emit("error", errors.New("websocket connection failed"))
		}
		return
	}
}

// watchClosePacket closes the transport when the server sends an engine.io
// CLOSE packet. The zishang520 engine ignores that packet, and
// python-engineio's disconnect() sends it but leaves the websocket open, so
// without this a server-side disconnect would be noticed only at the ping
// timeout (~45 s) and calls in flight would hang until then (issue 6).
func (c *Client) watchClosePacket(e engine.Socket) {
	if e == nil {
		return
	}
	_ = e.On("packet", func(args ...any) {
		p, ok := argAt[*packet.Packet](args, 0)
		if !ok || p == nil || p.Type != packet.CLOSE {
			return
		}
		c.log.Debug("smcp: server sent an engine.io close packet; closing the transport")
		// Not from inside the engine's own emit: Close takes its locks.
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			e.Close()
		}()
	})
}

// abandonAttempt is our own connect-attempt timeout. The manager's timer is
// set far out (see managerTimeout) because it leaks when "open" races its
// arming and then kills a live connection; so when an attempt has not
// opened by the end of its watch, fail it here the way the manager's timer
// would: report "timeout" on the engine, whose pending error handler moves
// the manager on to the next attempt, and close the engine.
func (c *Client) abandonAttempt(before, attempt uint64) {
	// A newer attempt (after a fast failure and the backoff) owns the
	// engine now, and its own watch times it out.
	if c.ctx.Err() != nil || c.openSeq.Load() != before || c.attempts.Load() != attempt {
		return
	}
	e := c.mgr.Engine()
	if e == nil || e.ReadyState() == engine.SocketStateOpen {
		return
	}
	c.log.Debug("smcp: connect attempt timed out", "after", c.opt.ConnectTimeout)
	e.Emit("error", errors.New("timeout"))
	e.Close()
}
