package client

import (
	"errors"
	"fmt"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/bytesize"
	"github.com/dpe-tui/dpe-tui/internal/sioconn"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// ErrConnectionLost is wrapped by every call that was in flight, or was
// started, while the connection to the server was down: no call hangs.
// It is sioconn's, so errors of either layer match it.
var ErrConnectionLost = sioconn.ErrConnectionLost

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

// NoAnswerError is the server saying it routed Event to Computer and the
// computer acked with nothing (protocol.NoAnswer): the computer, not the
// server, has no answer.
type NoAnswerError struct {
	Event, Computer string
	Err             *protocol.Error
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("computer %s gave no answer to %s", e.Computer, e.Event)
}

// Unwrap exposes the server's payload.
func (e *NoAnswerError) Unwrap() error { return e.Err }

// ofComputer is err of a request to computer, said as "what of computer C:
// err" unless err names the computer itself (the server's NoAnswer, a
// timeout, the computer's error payload through callError): then the
// computer is named once.
func ofComputer(what, computer string, err error) error {
	var na *NoAnswerError
	var te *TimeoutError
	var pe *protocol.Error
	if errors.As(err, &na) || (errors.As(err, &te) && te.Computer != "") || errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("%s of computer %s: %w", what, computer, err)
}

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

// JoinError is a refused server:join_office, e.g. "office demo already
// has an agent"; the computer side returns the same type.
type JoinError = protocol.JoinError

// MalformedAckError is an ack that is neither an answer, an ErrorPayload
// nor empty.
type MalformedAckError = protocol.MalformedAckError

// HandshakeError is an HTTP-layer refusal of the engine.io handshake that
// is not an A2C ErrorPayload (wrong path, a proxy, an auth gateway).
type HandshakeError = sioconn.HandshakeError

// AckTooLargeError is a message over Options.MaxAckBytes that arrived while
// Event was waiting for its answer. The connection was dropped to stop it,
// on the message's frame headers, before its payload was read.
type AckTooLargeError struct {
	Event, Computer string
	Limit           int64
	Announced       int64 // bytes the frames announced when the limit was hit (at least)
}

func (e *AckTooLargeError) Error() string {
	who := e.Event
	if e.Computer != "" {
		who += " to computer " + e.Computer
	}
	return fmt.Sprintf("%s: the answer is over the ack size limit of %s; dropped the connection instead of reading it",
		who, bytesize.Format(e.Limit))
}

// UnsupportedError is an event the server's protocol version does not
// have, refused before anything is sent.
type UnsupportedError struct {
	Event   string
	Version string // the version spoken, e.g. "0.3.0"
	Why     string // e.g. "DPE moved to dpe-protocol"
}

func (e *UnsupportedError) Error() string {
	s := fmt.Sprintf("this server speaks A2C-SMCP %s, which has no %s", shortVersion(e.Version), e.Event)
	if e.Why != "" {
		s += " (" + e.Why + ")"
	}
	return s
}

// Unwrap makes errors.Is(err, ErrUnsupported) true.
func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// ErrUnsupported is wrapped by *UnsupportedError.
var ErrUnsupported = errors.New("not in this protocol version")

// shortVersion is MAJOR.MINOR of a version: "0.3.0" → "0.3".
func shortVersion(v string) string {
	if sv, err := protocol.ParseVersion(v); err == nil {
		return fmt.Sprintf("%d.%d", sv.Major, sv.Minor)
	}
	return v
}
