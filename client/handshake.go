package client

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// HandshakeError is an HTTP-layer refusal of the engine.io handshake that is
// not an A2C ErrorPayload (wrong path, a proxy, engine.io's own errors).
type HandshakeError struct {
	URL    string // handshake URL, without secrets
	Status int
	Body   string // first bytes of the body, one line
}

func (e *HandshakeError) Error() string {
	s := fmt.Sprintf("server refused the handshake at %s: HTTP %d", e.URL, e.Status)
	if e.Status == http.StatusNotFound {
		s += " (wrong path? the engine.io path is set with Options.Path)"
	}
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// handshakeURL is the engine.io polling handshake the probe GETs:
// <base><path>?EIO=4&transport=polling&a2c_version=0.2.0.
func handshakeURL(opt Options) *url.URL {
	u := opt.baseURL()
	u.Path = opt.Path
	q := url.Values{}
	q.Set("EIO", "4")
	q.Set("transport", "polling")
	q.Set(protocol.QueryVersion, protocol.Version)
	u.RawQuery = q.Encode()
	return u
}

func tlsConfig(opt Options) *tls.Config {
	if !opt.InsecureTLS {
		return nil
	}
	return &tls.Config{InsecureSkipVerify: true} //nolint:gosec // explicit --insecure flag for development
}

// probeHandshake reads what the server says at the HTTP layer, which a
// websocket dial error hides (error-handling.md §4008: the body is the single
// source of truth, X-A2C-Error-Code a redundant hint). It returns:
//   - nil when the handshake is accepted (the failure was elsewhere);
//   - *protocol.Error for an A2C ErrorPayload (4008 versions, 400, 401);
//   - *HandshakeError for any other refusal;
//   - the transport error when the server cannot be reached.
//
// Dial probes before connecting: the zishang520 websocket transport dials
// synchronously inside the engine constructor and emits its error before the
// manager listens, so a refused websocket handshake would otherwise surface
// only as the manager's connect timeout.
func probeHandshake(ctx context.Context, opt Options) error {
	ctx, cancel := context.WithTimeout(ctx, min(opt.ConnectTimeout, 5*time.Second))
	defer cancel()
	u := handshakeURL(opt)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header = opt.headers()
	hc := &http.Client{
		Transport: &http.Transport{TLSClientConfig: tlsConfig(opt), Proxy: http.ProxyFromEnvironment},
		// A handshake never redirects; following one could leak x-api-key.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is named by the caller; keep the cause
		}
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode == http.StatusOK {
		closeProbeSession(ctx, hc, u, opt, body)
		return nil
	}
	return handshakeRefusal(redactURL(u), resp.StatusCode, resp.Header, body)
}

// closeProbeSession ends the engine.io session an accepted probe opened, so
// it does not linger on the server until its ping timeout: a polling POST of
// the close packet "1" (engine.io protocol v4). Best effort.
func closeProbeSession(ctx context.Context, hc *http.Client, u *url.URL, opt Options, body []byte) {
	var open struct {
		SID string `json:"sid"`
	}
	if len(body) < 2 || body[0] != '0' || json.Unmarshal(body[1:], &open) != nil || open.SID == "" {
		return
	}
	cu := *u
	q := cu.Query()
	q.Set("sid", open.SID)
	cu.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cu.String(), strings.NewReader("1"))
	if err != nil {
		return
	}
	req.Header = opt.headers()
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	if resp, err := hc.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
	}
}

// handshakeRefusal classifies a non-200 handshake answer.
func handshakeRefusal(where string, status int, h http.Header, body []byte) error {
	// engine.io's own refusals use codes 0–5 ({"code":0,"message":"Transport
	// unknown"}); A2C codes are HTTP-like (400, 401) or 4xxx.
	if perr, ok := protocol.DecodeError(body); ok && perr.Code >= 400 {
		if perr.Code == protocol.CodeVersionMismatch && perr.ClientVersion == "" {
			perr.ClientVersion = protocol.Version
		}
		return perr
	}
	if code, err := strconv.Atoi(strings.TrimSpace(h.Get(protocol.HeaderErrorCode))); err == nil && code == protocol.CodeVersionMismatch {
		// Header without a readable body: still a version mismatch.
		return &protocol.Error{Code: code, Message: "Protocol version mismatch", ClientVersion: protocol.Version}
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return &protocol.Error{Code: status, Message: "the server refused the API key (check --api-key)"}
	}
	b := oneLine(string(body))
	if len(b) > 200 {
		b = b[:200] + "…"
	}
	return &HandshakeError{URL: where, Status: status, Body: b}
}

// fatalConnectError reports whether reconnecting cannot help: the server
// refused us at the HTTP layer with an A2C error (4008, 400, 401, 403).
// versioning.md §4: after 4008 the SDK MUST stop, not retry.
func fatalConnectError(err error) bool {
	var perr *protocol.Error
	if errors.As(err, &perr) {
		return true
	}
	var herr *HandshakeError
	return errors.As(err, &herr) && herr.Status >= 400 && herr.Status < 500
}
