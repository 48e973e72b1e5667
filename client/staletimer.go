package client

import (
	"context"
	"errors"
	"time"
)

// The zishang520 manager arms its connect timer after subscribing to the
// engine's "open". An "open" in that gap runs the manager's cleanup before
// the timer is registered, so the timer survives: ConnectTimeout later it
// closes the live engine after removing the manager's own listeners. The
// socket never hears "disconnect" and the library never reconnects; every
// later call would time out. The timer announces itself as a manager
// "error" of "timeout" while the socket still believes it is connected
// (the same trap the computer package recovers from). Rebuild then.

// managerTimeout is the manager's connect timeout: far beyond any session,
// so a leaked timer never fires in practice; attempts are timed out by
// abandonAttempt instead. The recovery below stays for the case it does.
const managerTimeout = 30 * 24 * time.Hour

// onManagerError reacts to the stale timer's "timeout".
func (c *Client) onManagerError(err error) {
	if err == nil || err.Error() != "timeout" || !c.sock.Connected() {
		return
	}
	c.mu.Lock()
	skip := c.offline || c.left || c.recovering || c.ctx.Err() != nil
	if !skip {
		c.recovering = true
	}
	c.mu.Unlock()
	if skip {
		return
	}
	c.wg.Add(1)
	go c.recoverStaleTimer()
}

// recoverStaleTimer ends the dead session so calls in flight fail with
// ErrConnectionLost (the "disconnect" handler), then connects again; the
// "connect" handler re-joins the office as after any reconnect.
func (c *Client) recoverStaleTimer() {
	defer c.wg.Done()
	defer func() {
		c.mu.Lock()
		c.recovering = false
		c.mu.Unlock()
	}()
	c.log.Warn("smcp: connection closed by the socket library's stale connect timer; reconnecting")
	c.mu.Lock()
	c.lastErr = errors.New("connection closed by a stale connect timer")
	c.mu.Unlock()
	c.emitMu.Lock()
	c.sock.Disconnect()
	c.emitMu.Unlock()
	if c.ctx.Err() != nil {
		return
	}
	before := c.openSeq.Load()
	c.emitMu.Lock()
	c.sock.Connect()
	c.emitMu.Unlock()
	// The reconnect can miss "open" like any other (see watchOpen).
	ctx, cancel := context.WithTimeout(c.ctx, c.opt.ConnectTimeout)
	defer cancel()
	c.wg.Add(1)
	c.watchOpen(ctx, before)
}
