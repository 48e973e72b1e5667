package server

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// versionCheck rejects every engine.io request (polling and websocket
// upgrade alike) whose a2c_version query parameter is missing, malformed or
// incompatible, before Socket.IO sees it (versioning.md §Server 在 HTTP
// 中间件层校验; events.md §Server 校验行为).
func versionCheck(next http.Handler, server protocol.SemVer, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e := checkVersion(r.URL.Query().Get(protocol.QueryVersion), server); e != nil {
			log.Warn("refused connection: a2c_version",
				"code", e.Code, "reason", e.Message, "client_version", e.ClientVersion,
				"remote", r.RemoteAddr, "path", r.URL.Path, "websocket", isUpgrade(r))
			writeHTTPError(w, e)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// maxVersionLen bounds what is echoed back of an invalid a2c_version.
const maxVersionLen = 64

// checkVersion returns nil when raw is a version compatible with server.
// An empty value counts as missing, as in the reference middleware.
func checkVersion(raw string, server protocol.SemVer) *protocol.Error {
	if raw == "" {
		return &protocol.Error{Code: protocol.CodeBadRequest, Message: "Missing a2c_version query parameter"}
	}
	if len(raw) > maxVersionLen {
		return &protocol.Error{Code: protocol.CodeBadRequest,
			Message: fmt.Sprintf("Invalid a2c_version: %d bytes long, want MAJOR.MINOR.PATCH", len(raw))}
	}
	client, err := protocol.ParseVersion(raw)
	if err != nil {
		// ParseVersion already names the parameter; keep only the cause.
		reason := strings.TrimPrefix(err.Error(), "invalid a2c_version ")
		return &protocol.Error{Code: protocol.CodeBadRequest, Message: "Invalid a2c_version: " + reason}
	}
	if !protocol.Compatible(server, client) {
		return &protocol.Error{
			Code:          protocol.CodeVersionMismatch,
			Message:       "Protocol version mismatch",
			ServerVersion: server.String(),
			ClientVersion: client.String(),
			MinSupported:  fmt.Sprintf("%d.%d.0", server.Major, server.Minor),
			MaxSupported:  fmt.Sprintf("%d.%d.999", server.Major, server.Minor),
		}
	}
	return nil
}

// writeHTTPError writes the flat ErrorPayload as a 400 (error-handling.md
// §HTTP 响应规范). Codes other than 400 are also announced in
// X-A2C-Error-Code, the redundant diagnostic header.
func writeHTTPError(w http.ResponseWriter, e *protocol.Error) {
	body, err := json.Marshal(e)
	if err != nil {
		body = []byte(`{"code":500,"message":"Internal Error"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	if e.Code != protocol.CodeBadRequest {
		h.Set(protocol.HeaderErrorCode, strconv.Itoa(e.Code))
	}
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}

func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}
