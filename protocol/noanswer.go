package protocol

import "encoding/json"

// An empty ack from a computer (no arguments, null, {}, [] or "") is how a
// peer without a handler for an event answers it (the python-sdk does so
// for every event it does not route). A server that routed the event to a
// computer and got such an ack back says so itself, as a 404 that names
// the computer and the event in two extra top-level fields, so that the
// agent can tell "computer C gave no answer to X" from "the server did not
// route X" (an empty ack from the server itself). The fields ride in
// Error.Extra: unknown fields of the flat ErrorPayload are allowed
// (error-handling.md §演进规则), so a peer that does not know them still
// reads a plain 404 with a message.
const (
	FieldNoAnswerComputer = "computer"
	FieldNoAnswerEvent    = "event"
)

// NoAnswer is the error a server answers when computer acked event with
// nothing.
func NoAnswer(computer, event string) *Error {
	c, _ := json.Marshal(computer)
	e, _ := json.Marshal(event)
	return &Error{
		Code:    CodeNotFound,
		Message: "computer " + computer + " gave no answer to " + event,
		Extra:   map[string]json.RawMessage{FieldNoAnswerComputer: c, FieldNoAnswerEvent: e},
	}
}
