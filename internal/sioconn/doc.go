// Package sioconn is the one Socket.IO connection core of dpe-tui: the
// agent (client) and the computer both use it. It owns the zishang520 v3
// client socket and works around that library's traps, each in one place:
//
//   - Missed open: the websocket transport dials inside the engine's
//     constructor, so its "open" could fire before the manager listened.
//     gatedCtor defers the dial until the manager has subscribed
//     (transport.go).
//   - CONNECT left in the write buffer: the websocket transport starts its
//     reader before it marks itself writable, so when the reader handles
//     the server's OPEN first, the engine flushes the namespace CONNECT
//     into a transport that is not writable and keeps it buffered until
//     the server's first ping (25 s on our server, minutes elsewhere).
//     gatedTransport.DoOpen flushes again once the transport is writable
//     (transport.go). This, not the server, was the "early CONNECT the
//     server drops": the zishang520 server (v3.0.6) does not read a
//     websocket before its "connection" handlers have run (engine
//     base-server.go, transport read permission), so it cannot miss an
//     early CONNECT; Connect's retry of an unanswered CONNECT on a fresh
//     engine stays as a guard and logs a WARN.
//   - Double CONNECT: Socket.Connect on an engine that opens meanwhile
//     sends CONNECT twice (python-socketio refuses the second). Connect
//     opens the engine first, then connects the socket once (openEngine).
//   - Stale Open error handler and connect timer: Manager.Open records
//     them for removal only after subscribing and arming them, so an open
//     in between leaves both alive. The handler then removes the manager's
//     listeners on the next engine error of the live connection (a message
//     over MaxMessage), and the timer would close it: either way the
//     socket is never told and nothing reconnects. The timer is out of
//     reach (managerTimeout); superviseAttempt times attempts out instead,
//     and onManagerError rebuilds the connection when a manager error is
//     not followed by the socket's disconnect.
//   - No read limit: the library reads each message whole. limitConn
//     counts websocket frame headers and refuses an oversized message
//     before its payload is read (framelimit.go).
//   - Ignored engine.io CLOSE packet: gatedTransport closes the transport
//     on it.
//   - Racy ack timeouts: the library's per-socket timeout flag races
//     between concurrent emits; EmitWithAck times out on its own.
//
// The server-side traps of the same library (a CONNECT reply written
// before the namespace socket is recorded) are the server package's
// (server/gate.go).
package sioconn
