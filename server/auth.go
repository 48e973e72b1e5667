package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"

	"github.com/zishang520/socket.io/servers/socket/v3"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// headerAPIKey carries the optional API key (data-structures.md §ConnectAuth:
// api_key is this implementation's business-layer extension).
const headerAPIKey = "X-Api-Key"

// authenticate is the /smcp namespace middleware: auth.role must be agent
// or computer (or absent from 0.3, when join declares it), and the API key must match when one is configured. Refusals
// reach the client as connect_error with a one-line message and the flat
// ErrorPayload as data; the key itself is never logged or echoed.
func (s *Server) authenticate(sock *socket.Socket, next func(*socket.ExtendedError)) {
	auth := sock.Handshake().Auth
	gate := s.gates.takeGate(auth)
	role, _ := auth["role"].(string)
	var refuse *protocol.Error
	switch {
	case role == "" && !protocol.RoleInAuth(s.version.String()):
		// 0.3+: the role is declared in server:join_office only.
	case role != protocol.RoleAgent && role != protocol.RoleComputer:
		refuse = &protocol.Error{Code: protocol.CodeBadRequest,
			Message: `auth.role must be "agent" or "computer"`}
	case s.opt.APIKey != "":
		key := requestHeader(sock).Get(headerAPIKey)
		if key == "" {
			key, _ = auth["api_key"].(string)
		}
		switch {
		case key == "":
			refuse = &protocol.Error{Code: protocol.CodeUnauthorized,
				Message: "API key required: send header x-api-key or auth.api_key"}
		case !keysEqual(key, s.opt.APIKey):
			refuse = &protocol.Error{Code: protocol.CodeUnauthorized, Message: "invalid API key"}
		}
	}
	if refuse != nil {
		s.log.Warn("refused connection", "code", refuse.Code, "reason", refuse.Message,
			"role", truncate(role, 64), "remote", sock.Handshake().Address)
		next(socket.NewExtendedError(refuse.Message, wire(refuse)))
		if gate != nil {
			// Not on this goroutine: the gate is forwarding the CONNECT that
			// brought us here and holds its lock.
			go gate.release(protocol.Namespace)
		}
		return
	}
	m := s.attach(sock)
	m.gate = gate
	sock.SetData(m)
	next(nil)
}

func requestHeader(sock *socket.Socket) http.Header {
	if ctx := sock.Request(); ctx != nil && ctx.Request() != nil {
		return ctx.Request().Header
	}
	return http.Header{}
}

// keysEqual compares in constant time; hashing first hides the length too.
func keysEqual(got, want string) bool {
	g := sha256.Sum256([]byte(got))
	w := sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// truncate keeps untrusted strings in logs short.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
