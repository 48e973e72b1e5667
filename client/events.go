package client

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Event is delivered on Client.Events: a *StateEvent copy or a NotifyEvent.
type Event interface{ isEvent() }

// ConnState is the connection state shown to the user.
type ConnState int

const (
	Connecting   ConnState = iota // first connect in progress
	Connected                     // connected and joined to the office
	Reconnecting                  // connection lost; the library retries with backoff
	Offline                       // given up: closed, refused, or version mismatch
)

func (s ConnState) String() string {
	switch s {
	case Connecting:
		return "connecting"
	case Connected:
		return "connected"
	case Reconnecting:
		return "reconnecting"
	case Offline:
		return "offline"
	}
	return fmt.Sprintf("ConnState(%d)", int(s))
}

// StateEvent reports a change of connection state.
type StateEvent struct {
	State   ConnState
	Attempt int    // reconnect attempt number (Reconnecting)
	Err     error  // last error (Reconnecting, Offline)
	Reason  string // why (Reconnecting, Offline), one line
}

func (StateEvent) isEvent() {}

func (e StateEvent) String() string {
	s := e.State.String()
	if e.Attempt > 0 {
		s += fmt.Sprintf(" (attempt %d)", e.Attempt)
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// NotifyEvent is one notify:* broadcast (events.md §通知事件). Name is one of
// protocol.Notify*; Computer and Agent are empty when absent.
type NotifyEvent struct {
	Name     string
	Computer string
	Agent    string
	OfficeID string
}

func (NotifyEvent) isEvent() {}

// notifyNames are the notifications delivered to the caller.
var notifyNames = [...]string{
	protocol.NotifyEnterOffice,
	protocol.NotifyLeaveOffice,
	protocol.NotifyUpdateConfig,
	protocol.NotifyUpdateToolList,
	protocol.NotifyUpdateDesktop,
}

// decodeNotify reads a notification payload leniently: fields that are not
// strings are ignored.
func decodeNotify(name string, args []any) NotifyEvent {
	ev := NotifyEvent{Name: name}
	if len(args) == 0 {
		return ev
	}
	m, _ := args[0].(map[string]any)
	str := func(k string) string { s, _ := m[k].(string); return s }
	ev.Computer, ev.Agent, ev.OfficeID = str("computer"), str("agent"), str("office_id")
	return ev
}

// eventQueueSize bounds Events(). When the reader falls behind, the oldest
// event is dropped and counted: the socket goroutine must never block.
const eventQueueSize = 256

// eventQueue is a bounded, drop-oldest channel that can be closed safely
// while producers are still running.
type eventQueue struct {
	mu      sync.Mutex
	ch      chan Event
	closed  bool
	dropped atomic.Int64
}

func newEventQueue(n int) *eventQueue { return &eventQueue{ch: make(chan Event, n)} }

func (q *eventQueue) push(ev Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	for {
		select {
		case q.ch <- ev:
			return
		default:
		}
		select {
		case <-q.ch:
			q.dropped.Add(1)
		default:
		}
	}
}

func (q *eventQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.ch)
	}
}
