package server

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// pollingSession speaks raw engine.io long-polling, the transport the spec
// recommends first (versioning.md: "transports=[polling, websocket]"). The
// Go client's polling POSTs stall against any server here, so raw HTTP is
// used to show every polling request passes the version check and works.
type pollingSession struct {
	t       *testing.T
	base    string
	version string
	sid     string
	http    *http.Client
}

func (p *pollingSession) url() string {
	q := url.Values{"EIO": {"4"}, "transport": {"polling"}, protocol.QueryVersion: {p.version}}
	if p.sid != "" {
		q.Set("sid", p.sid)
	}
	return p.base + protocol.DefaultPath + "?" + q.Encode()
}

func (p *pollingSession) do(method, body string) (int, string) {
	p.t.Helper()
	req, err := http.NewRequest(method, p.url(), strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	}
	resp, err := p.http.Do(req)
	if err != nil {
		p.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestPolling_EveryRequestIsCheckedAndSessionsWork(t *testing.T) {
	_, base := startServer(t, Options{})
	p := &pollingSession{t: t, base: base, version: "0.2.7", http: &http.Client{Timeout: wait}}

	code, body := p.do(http.MethodGet, "")
	if code != http.StatusOK || !strings.HasPrefix(body, "0{") {
		t.Fatalf("handshake: %d %q", code, body)
	}
	p.sid = body[strings.Index(body, `"sid":"`)+7:]
	p.sid = p.sid[:strings.Index(p.sid, `"`)]

	if code, body := p.do(http.MethodPost, `40/smcp,{"role":"agent"}`); code != http.StatusOK || body != "ok" {
		t.Fatalf("CONNECT post: %d %q", code, body)
	}
	if code, body := p.do(http.MethodGet, ""); code != http.StatusOK || !strings.HasPrefix(body, `40/smcp,{"sid":"`) {
		t.Fatalf("CONNECT reply: %d %q", code, body)
	}
	if code, _ := p.do(http.MethodPost, `42/smcp,1["server:join_office",{"role":"agent","name":"poller","office_id":"op"}]`); code != http.StatusOK {
		t.Fatalf("join post: %d", code)
	}
	if code, body := p.do(http.MethodGet, ""); code != http.StatusOK || body != `43/smcp,1[true,null]` {
		t.Fatalf("join ack: %d %q", code, body)
	}
	if code, _ := p.do(http.MethodPost, `42/smcp,2["server:list_room",{"req_id":"r"}]`); code != http.StatusOK {
		t.Fatalf("list post: %d", code)
	}
	if code, body := p.do(http.MethodGet, ""); code != http.StatusOK || !strings.Contains(body, `"a2c_version":"0.2.7"`) || !strings.Contains(body, `"name":"poller"`) {
		t.Fatalf("list ack: %d %q", code, body)
	}

	// The same session's requests without a compatible version are refused
	// before engine.io sees them.
	p.version = "0.3.0"
	if code, body := p.do(http.MethodPost, `42/smcp,3["server:list_room",{}]`); code != http.StatusBadRequest || !strings.Contains(body, `"code":4008`) {
		t.Fatalf("post with incompatible version: %d %q", code, body)
	}
}
