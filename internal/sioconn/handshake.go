package sioconn

import (
	"context"
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
// not an A2C ErrorPayload (wrong path, a proxy, an auth gateway).
type HandshakeError struct {
	URL    string // handshake URL, without secrets
	Status int
	Body   string // first bytes of the body, one line
}

func (e *HandshakeError) Error() string {
	s := fmt.Sprintf("server refused the handshake at %s: HTTP %d", e.URL, e.Status)
	if e.Status == http.StatusNotFound {
		s += " (wrong engine.io path? set it with --path or in the URL)"
	}
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// Fatal reports whether reconnecting cannot help: the server refused us at
// the HTTP layer (4008, 400, 401, 403 or another 4xx). versioning.md §4:
// after 4008 the SDK MUST stop, not retry.
func Fatal(err error) bool {
	var perr *protocol.Error
	if errors.As(err, &perr) {
		return true
	}
	var herr *HandshakeError
	return errors.As(err, &herr) && herr.Status >= 400 && herr.Status < 500
}

// newHTTPClient is the one HTTP client of a Conn's probes: the TLS settings
// of the engine, proxies from the environment like the engine, and no
// redirects (a handshake never redirects; following one could hand the API
// key to another host).
func newHTTPClient(opt Options) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			TLSClientConfig:   opt.TLS,
			Proxy:             http.ProxyFromEnvironment,
			ForceAttemptHTTP2: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// handshakeURL is the engine.io polling handshake the probe GETs.
func (c *Conn) handshakeURL() *url.URL {
	t := c.target()
	u := *t.base
	u.Path = t.path
	q := c.opt.query()
	q.Set("EIO", "4")
	q.Set("transport", "polling")
	u.RawQuery = q.Encode()
	return &u
}

// probe reads what the server says at the HTTP layer, which the library
// hides: its websocket dial error carries no body, and a refusal would
// surface only as an attempt timeout (error-handling.md §4008: the body is
// the single source of truth, X-A2C-Error-Code a redundant hint). It
// returns nil when the server speaks engine.io there (the failure, if any,
// is elsewhere); a *protocol.Error for an A2C refusal (4008 with both
// versions, 400, 401); a *HandshakeError for another refusal; the
// transport error when nothing answers.
func (c *Conn) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, min(c.opt.ConnectTimeout, probeTimeout))
	defer cancel()
	u := c.handshakeURL()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header = c.headers()
	resp, err := c.http.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the caller names the URL; keep the cause
		}
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode == http.StatusOK {
		c.closeProbeSession(ctx, u, body)
		return nil
	}
	return handshakeRefusal(Redact(u), resp.StatusCode, resp.Header, body, c.opt.Version)
}

// probeTimeout caps one probe below a long connect timeout, so a server
// that accepts TCP but never answers HTTP leaves time for the engine.
const probeTimeout = 5 * time.Second

// closeProbeSession ends the engine.io session an accepted probe opened, so
// it does not linger on the server until its ping timeout: a polling POST
// of the close packet "1" (engine.io protocol v4). Best effort.
func (c *Conn) closeProbeSession(ctx context.Context, u *url.URL, body []byte) {
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
	req.Header = c.headers()
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	if resp, err := c.http.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
	}
}

// handshakeRefusal classifies a non-200 handshake answer.
func handshakeRefusal(where string, status int, h http.Header, body []byte, version string) error {
	if perr, ok := protocol.DecodeError(body); ok {
		// engine.io's own refusals use codes 0–5 ({"code":0,"message":
		// "Transport unknown"}): engine.io is there, e.g. websocket-only;
		// let the engine try. A2C codes are HTTP-like (400, 401) or 4xxx.
		if perr.Code < 400 {
			return nil
		}
		if perr.Code == protocol.CodeVersionMismatch && perr.ClientVersion == "" {
			perr.ClientVersion = version
		}
		return perr
	}
	if code, err := strconv.Atoi(strings.TrimSpace(h.Get(protocol.HeaderErrorCode))); err == nil && code == protocol.CodeVersionMismatch {
		// Header without a readable body: still a version mismatch.
		return &protocol.Error{Code: code, Message: "Protocol version mismatch", ClientVersion: version}
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return &protocol.Error{Code: status, Message: "the server refused the API key (check --api-key)"}
	}
	b := oneLine(string(body))
	if r := []rune(b); len(r) > 200 {
		b = string(r[:200]) + "…"
	}
	return &HandshakeError{URL: where, Status: status, Body: b}
}

// headers are a copy of Options.Headers, never nil.
func (c *Conn) headers() http.Header {
	if h := c.opt.Headers.Clone(); h != nil {
		return h
	}
	return http.Header{}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
