package server

import (
	"sync"
	"time"
)

// conn is what the server needs of a connected socket.
type conn interface {
	Emit(ev string, args ...any) error
}

// ackFunc is the Socket.IO ack callback shape (socket.Ack).
type ackFunc = func([]any, error)

// pendingRequest is one routed request awaiting the computer's ack. It is
// answered exactly once: by the ack, the timer or the computer leaving.
type pendingRequest struct {
	once  sync.Once
	reply ackFunc
	set   *pendingSet
	quota *quota // the asking agent's; released when answered

	mu    sync.Mutex // guards timer: its callback may run before start returns
	timer *time.Timer
}

// start arms the timeout; onTimeout runs once d has passed without answer.
func (p *pendingRequest) start(d time.Duration, onTimeout func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timer = time.AfterFunc(d, onTimeout)
}

// finish answers the agent with args unless already answered. It reports
// whether this call answered.
func (p *pendingRequest) finish(args []any) bool {
	done := false
	p.once.Do(func() {
		done = true
		p.mu.Lock()
		if p.timer != nil {
			p.timer.Stop()
		}
		p.mu.Unlock()
		p.set.remove(p)
		p.quota.release()
		p.reply(args, nil)
	})
	return done
}

// pendingSet holds a computer's outstanding requests so they can be
// answered when it disconnects, instead of waiting for their timers.
type pendingSet struct {
	mu     sync.Mutex
	reqs   map[*pendingRequest]struct{}
	closed bool
}

// add registers p; it reports false when the set is closed (computer gone).
func (s *pendingSet) add(p *pendingRequest) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.reqs == nil {
		s.reqs = map[*pendingRequest]struct{}{}
	}
	p.set = s
	s.reqs[p] = struct{}{}
	return true
}

func (s *pendingSet) remove(p *pendingRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.reqs, p)
}

// close refuses new requests and returns the outstanding ones.
func (s *pendingSet) close() []*pendingRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	out := make([]*pendingRequest, 0, len(s.reqs))
	for p := range s.reqs {
		out = append(out, p)
	}
	return out
}

// quota counts an agent's routed requests still waiting for an answer.
type quota struct {
	mu sync.Mutex
	n  int
}

// acquire takes one slot unless max are taken.
func (q *quota) acquire(max int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n >= max {
		return false
	}
	q.n++
	return true
}

func (q *quota) release() {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n > 0 {
		q.n--
	}
}
