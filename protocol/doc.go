// Package protocol is the A2C-SMCP wire vocabulary of the 0.2, 0.3 and 0.4
// lines, and of 0.5.0 (in development) when asked for: event names, request and response payloads, the flat ErrorPayload and the
// version rules. It has no behaviour of its own; the agent (client), the
// server and the computer all speak in these types so that the two sides of
// the wire cannot drift apart.
//
// Identities have their own types: ServerKey (the servers-map key, the
// bundle_id from 0.3) is not a display name. Skills and blobs (skill.go),
// their errors as sentences (skillerror.go), and 0.5's flat join refusals
// (JoinError) are here so that both sides build on one definition.
//
// Spec: ../shared/spec/ (0.2 with DPE) and upstream A2C-SMCP/a2c-smcp-protocol
// docs/specification/ for 0.3–0.5; SPEC_COVERAGE.md names the file and
// commit each rule came from.
package protocol
