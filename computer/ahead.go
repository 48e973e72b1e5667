package computer

import (
	"context"
	"errors"
	"time"
)

// A listing is a walk: an agent that asked for one resources/list page
// almost always asks for the next cursor as soon as it has read this one.
// Fetching that page from the MCP server while the answer travels to the
// agent, and the agent reads it and asks again, overlaps the MCP server's
// work with the rest of the round trip (docs/performance.md, P3).
//
// It is bounded: one page ahead per MCP server, fetched only for a cursor
// the computer has just answered, and cancelled when the listing is
// abandoned (its cursor not asked for within aheadIdle), when the
// server's list changes (notifications/resources/list_changed), or when a
// page of another listing of the same server takes its place.

// aheadIdle is how long a page fetched ahead waits for its request.
const aheadIdle = 10 * time.Second

// aheadPage is one resources/list page being fetched, or fetched, ahead of
// its request.
type aheadPage struct {
	cursor string
	done   chan struct{} // closed when page and err are set
	page   resourcePage
	err    error
	cancel context.CancelFunc
	idle   *time.Timer
}

// startAhead fetches the page at cursor in the background, in place of any
// page s already holds ahead for another cursor.
func (c *Computer) startAhead(s *mcpServer, cursor string, timeout time.Duration) {
	if cursor == "" {
		return
	}
	if timeout <= 0 {
		timeout = s.timeout
	}
	s.mu.Lock()
	if s.ahead != nil && s.ahead.cursor == cursor {
		s.mu.Unlock()
		return
	}
	old := s.ahead
	ctx, cancel := c.callContext(c.ctx, timeout)
	a := &aheadPage{cursor: cursor, done: make(chan struct{}), cancel: cancel}
	idle := c.aheadIdle
	if idle <= 0 {
		idle = aheadIdle
	}
	a.idle = time.AfterFunc(idle, func() { s.dropAhead(a) })
	s.ahead = a
	s.mu.Unlock()
	if old != nil {
		old.stop()
	}
	go func() {
		a.page, a.err = c.fetchResources(ctx, s, cursor, timeout)
		close(a.done)
	}()
}

// stop cancels the fetch (a no-op once it is done) and its idle timer.
func (a *aheadPage) stop() {
	a.idle.Stop()
	a.cancel()
}

// dropAhead forgets a (if it is still the page ahead) and cancels it.
func (s *mcpServer) dropAhead(a *aheadPage) {
	s.mu.Lock()
	if s.ahead == a {
		s.ahead = nil
	}
	s.mu.Unlock()
	a.stop()
}

// dropAnyAhead cancels the page ahead, whatever its cursor.
func (s *mcpServer) dropAnyAhead() {
	s.mu.Lock()
	a := s.ahead
	s.ahead = nil
	s.mu.Unlock()
	if a != nil {
		a.stop()
	}
}

// takeAhead hands over the page fetched ahead for cursor, if there is one.
func (s *mcpServer) takeAhead(cursor string) *aheadPage {
	if cursor == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.ahead
	if a == nil || a.cursor != cursor {
		return nil
	}
	s.ahead = nil
	a.idle.Stop()
	return a
}

// pageAt is one get_resources page: the one fetched ahead for cursor when
// there is one, else a resources/list call now. A page fetched ahead that
// failed is asked for again, so the answer's error is this request's own;
// waiting for it is bounded by this request's timeout.
func (c *Computer) pageAt(ctx context.Context, s *mcpServer, cursor string, timeout time.Duration) (resourcePage, error) {
	a := s.takeAhead(cursor)
	if a == nil {
		return c.listResources(ctx, s, cursor, timeout)
	}
	if timeout <= 0 {
		timeout = s.timeout
	}
	wctx, cancel := c.callContext(ctx, timeout)
	defer cancel()
	select {
	case <-a.done:
	case <-wctx.Done():
		a.cancel()
		return resourcePage{}, wctx.Err()
	}
	a.cancel()
	if a.err != nil {
		if errors.Is(a.err, context.Canceled) && c.ctx.Err() != nil {
			return resourcePage{}, a.err
		}
		return c.listResources(wctx, s, cursor, timeout)
	}
	c.recordResources(s, a.page)
	return a.page, nil
}
