package client

import (
	"errors"
	"fmt"
	"time"
)

// ErrConnectionLost is wrapped by every call that was in flight, or was
// started, while the connection to the server was down (issue 6: no hangs).
var ErrConnectionLost = errors.New("connection lost")

// ErrNotRouted is wrapped by *NotRoutedError: the server answered with an
// empty ack, which is what the reference Python server does for events it
// does not route.
var ErrNotRouted = errors.New("event not routed")

// ErrLeft is returned by calls after Leave: the client is no longer in the office.
var ErrLeft = errors.New("left the office")

// ErrClosed is returned by calls on a closed Client.
var ErrClosed = errors.New("client closed")

// NotRoutedError is an empty ack for Event.
type NotRoutedError struct{ Event, Computer string }

func (e *NotRoutedError) Error() string {
	return fmt.Sprintf("the server did not route %s (it may not support it)", e.Event)
}

// Unwrap makes errors.Is(err, ErrNotRouted) true.
func (e *NotRoutedError) Unwrap() error { return ErrNotRouted }

// TimeoutError is a missing ack: nobody answered Event within After.
type TimeoutError struct {
	Event    string
	Computer string        // empty for server:* events
	After    time.Duration // the timeout that expired
}

func (e *TimeoutError) Error() string {
	if e.Computer == "" {
		return fmt.Sprintf("%s: no answer within %s", e.Event, e.After)
	}
	return fmt.Sprintf("%s to computer %s: no answer within %s", e.Event, e.Computer, e.After)
}

// Timeout lets net-style checks (interface{ Timeout() bool }) recognise it.
func (e *TimeoutError) Timeout() bool { return true }

// JoinError is a refused server:join_office, e.g. "office demo already has an agent".
type JoinError struct {
	Office string
	Reason string
}

func (e *JoinError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("join office %s: refused by the server", e.Office)
	}
	return fmt.Sprintf("join office %s: refused: %s", e.Office, oneLine(e.Reason))
}

// MalformedAckError is an ack that is neither an answer, an ErrorPayload nor empty.
type MalformedAckError struct {
	Event  string
	Reason string
}

func (e *MalformedAckError) Error() string {
	return fmt.Sprintf("%s: malformed answer: %s", e.Event, e.Reason)
}
