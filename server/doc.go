// Package server is the SMCP Socket.IO server: it checks the protocol version
// at the HTTP layer, authenticates connections, keeps offices (rooms) and
// routes every client:* event from an office's agent to one of its
// computers, always answering the agent.
//
// Spec: ../shared/spec/events.md, room-model.md, versioning.md and
// error-handling.md.
//
// Choices the spec leaves open, made here:
//   - Names are unique among all members of an office, whatever their role,
//     so that "computer" in a client:* payload can never be ambiguous.
//   - Any session (agent or computer) that joins another office leaves its
//     old one first (room-model.md §Computer 加入规则, applied to both roles
//     because a session holds one office_id).
//   - Notifications go to the other members of the office, not the sender.
//   - notify:update_* and notify:tool_call_cancel carry the sender's name as
//     the server knows it, not the name claimed in the payload.
//   - A computer that disconnects while a request is pending is answered
//     with {code:500}; a request the computer does not answer in time with
//     {code:408}.
//   - A computer that acks a routed request with nothing (no arguments,
//     null, {}, [] or "") is answered for: a 404 naming the computer and
//     the event (protocol.NoAnswer), never the empty ack an agent reads as
//     "the server did not route it".
package server
