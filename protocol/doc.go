// Package protocol is the A2C-SMCP wire vocabulary at protocol version 0.2:
// event names, request and response payloads, the flat ErrorPayload and the
// version rules. It has no behaviour of its own; the agent (client), the
// server and the computer all speak in these types so that the two sides of
// the wire cannot drift apart.
//
// Spec: ../shared/spec/events.md, data-structures.md, error-handling.md,
// versioning.md and dpe.md.
package protocol
