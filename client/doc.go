// Package client is the A2C-SMCP Agent: it connects to an SMCP server over
// Socket.IO (namespace /smcp), joins an office, lists the computers in it and
// calls them: client:get_config, client:get_resources (paged with cursors)
// and client:get_dpe.
//
// The client is written to work against any SMCP server, not only ours:
// python-socketio and Node socket.io servers are tested as peers. That is why
// ack payloads are decoded leniently (events.md leaves the exact ack shape to
// the implementation) and why the 4008 version rejection is read with a plain
// HTTP GET of the engine.io handshake URL (error-handling.md §4008: the body is
// only visible at the HTTP layer, which a websocket dial error hides).
//
// Every wait is bounded: Dial by Options.ConnectTimeout, every call by
// Options.RequestTimeout (and the caller's context), and a call that is in
// flight when the connection drops fails at once with ErrConnectionLost.
package client
