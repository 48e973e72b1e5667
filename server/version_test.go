package server

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// get sends one engine.io request with the given a2c_version ("-" = absent).
func get(t *testing.T, base, version string, upgrade bool) (*http.Response, string) {
	t.Helper()
	q := url.Values{"EIO": {"4"}, "transport": {"polling"}}
	if upgrade {
		q.Set("transport", "websocket")
	}
	if version != "-" {
		q.Set(protocol.QueryVersion, version)
	}
	req, err := http.NewRequest(http.MethodGet, base+protocol.DefaultPath+"?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if upgrade {
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	}
	client := &http.Client{Timeout: wait}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp, string(body)
}

func TestVersionCheck_RejectsBeforeSocketIO(t *testing.T) {
	_, base := startServer(t, Options{})
	mismatch := func(client string) string {
		return `{"code":4008,"message":"Protocol version mismatch","server_version":"0.2.0","client_version":"` +
			client + `","min_supported":"0.2.0","max_supported":"0.2.999"}`
	}
	tests := []struct {
		name, version, body, header string
	}{
		{"missing", "-", `{"code":400,"message":"Missing a2c_version query parameter"}`, ""},
		{"empty counts as missing", "", `{"code":400,"message":"Missing a2c_version query parameter"}`, ""},
		{"malformed word", "abc", `{"code":400,"message":"Invalid a2c_version: \"abc\": want MAJOR.MINOR.PATCH"}`, ""},
		{"malformed two parts", "0.2", `{"code":400,"message":"Invalid a2c_version: \"0.2\": want MAJOR.MINOR.PATCH"}`, ""},
		{"malformed part", "0.x.1", `{"code":400,"message":"Invalid a2c_version: \"0.x.1\": part \"x\" is not a number"}`, ""},
		{"too long", strings.Repeat("9", 100), `{"code":400,"message":"Invalid a2c_version: 100 bytes long, want MAJOR.MINOR.PATCH"}`, ""},
		{"older minor", "0.1.5", mismatch("0.1.5"), "4008"},
		{"newer minor", "0.3.0", mismatch("0.3.0"), "4008"},
		{"other major", "1.0.0", mismatch("1.0.0"), "4008"},
	}
	for _, tc := range tests {
		for _, upgrade := range []bool{false, true} {
			name := tc.name + "/polling"
			if upgrade {
				name = tc.name + "/websocket"
			}
			t.Run(name, func(t *testing.T) {
				resp, body := get(t, base, tc.version, upgrade)
				if resp.StatusCode != http.StatusBadRequest {
					t.Errorf("status %d, want 400", resp.StatusCode)
				}
				if body != tc.body {
					t.Errorf("body\n got %s\nwant %s", body, tc.body)
				}
				if got := resp.Header.Get("Content-Type"); got != "application/json" {
					t.Errorf("Content-Type %q", got)
				}
				if got := resp.Header.Get(protocol.HeaderErrorCode); got != tc.header {
					t.Errorf("%s %q, want %q", protocol.HeaderErrorCode, got, tc.header)
				}
			})
		}
	}
}

func TestVersionCheck_CompatiblePatchReachesEngine(t *testing.T) {
	_, base := startServer(t, Options{})
	for _, v := range []string{"0.2.0", "0.2.7"} {
		resp, body := get(t, base, v, false)
		// An engine.io open packet: "0" followed by the handshake JSON.
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(body, `0{`) || !strings.Contains(body, `"sid":`) {
			t.Errorf("a2c_version=%s: status %d body %q, want engine.io open packet", v, resp.StatusCode, body)
		}
	}
}

func TestVersionCheck_OnlyEnginePathIsServed(t *testing.T) {
	_, base := startServer(t, Options{})
	resp, err := http.Get(base + "/other?a2c_version=0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status %d, want 404", resp.StatusCode)
	}
}

func TestVersionCheck_CustomPath(t *testing.T) {
	_, base := startServer(t, Options{Path: "/smcp"})
	resp, err := http.Get(base + "/smcp/?EIO=4&transport=polling")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "Missing a2c_version") {
		t.Errorf("custom path without version: %d %s", resp.StatusCode, body)
	}
	p := mustDial(t, base, peerConfig{Role: protocol.RoleAgent, Path: "/smcp/"})
	p.join(protocol.RoleAgent, "a", "o")
}

// A Socket.IO client with an incompatible version never gets a session.
func TestVersionCheck_IncompatibleClientCannotConnect(t *testing.T) {
	_, base := startServer(t, Options{})
	for _, polling := range []bool{false, true} {
		_, err := dial(t, base, peerConfig{Role: protocol.RoleAgent, Version: "0.3.0", Polling: polling, Timeout: time.Second})
		if err == nil {
			t.Fatalf("polling=%v: connected with a2c_version=0.3.0", polling)
		}
		t.Logf("polling=%v: %v", polling, err)
	}
}

func FuzzCheckVersion(f *testing.F) {
	for _, s := range []string{"", "0.2.0", "0.2.7", "0.3.0", "1.0.0", "abc", "0.2", "0.2.0.1", "-1.2.3", "00.02.01", "0.2.999999999"} {
		f.Add(s)
	}
	server, _ := protocol.ParseVersion(protocol.Version)
	f.Fuzz(func(t *testing.T, raw string) {
		e := checkVersion(raw, server)
		v, err := protocol.ParseVersion(raw)
		ok := raw != "" && err == nil && protocol.Compatible(server, v)
		if ok != (e == nil) {
			t.Fatalf("checkVersion(%q) = %v, want accepted=%v", raw, e, ok)
		}
		if e != nil && e.Code != protocol.CodeBadRequest && e.Code != protocol.CodeVersionMismatch {
			t.Fatalf("checkVersion(%q) code %d", raw, e.Code)
		}
	})
}

// A server run as 0.4 refuses other lines with a 4008 that says which line
// it speaks, and takes 0.4 sessions that declare their role only in
// server:join_office (0.3+: no role in the connect auth).
func TestServerVersion_04SpeaksItsLineAndTakesRoleFromJoin(t *testing.T) {
	_, base := startServer(t, Options{Version: "0.4.0"})
	resp, body := get(t, base, "0.2.0", false)
	resp.Body.Close()
	want := `{"code":4008,"message":"Protocol version mismatch","server_version":"0.4.0","client_version":"0.2.0","min_supported":"0.4.0","max_supported":"0.4.999"}`
	if resp.StatusCode != http.StatusBadRequest || body != want {
		t.Errorf("0.2 client: %d %s\nwant 400 %s", resp.StatusCode, body, want)
	}
	agent := mustDial(t, base, peerConfig{Version: "0.4.2"})
	comp := mustDial(t, base, peerConfig{Version: "0.4.0"})
	comp.answer(protocol.EventGetSkills, func(map[string]any) []any {
		return []any{map[string]any{"skills": []any{}, "req_id": "r"}}
	})
	agent.join(protocol.RoleAgent, "alice", "o")
	comp.join(protocol.RoleComputer, "c1", "o")
	got := agent.call(protocol.EventGetSkills, map[string]any{"agent": "alice", "req_id": "r", "computer": "c1"})
	if m, _ := first(got).(map[string]any); m == nil || m["req_id"] != "r" {
		t.Fatalf("get_skills routed on 0.4: ack %v", got)
	}
	// The first join fixed the role: the computer cannot join as an agent.
	args := comp.call(protocol.EventJoinOffice, map[string]any{"role": "agent", "name": "c1", "office_id": "o2"})
	if len(args) != 2 || args[0] != false || !strings.Contains(fmt.Sprint(args[1]), `does not match the connection's role "computer"`) {
		t.Errorf("re-join under another role: %v", args)
	}
	// A 0.2 server still needs the role in the auth.
	_, base02 := startServer(t, Options{})
	if _, err := dial(t, base02, peerConfig{}); err == nil || !strings.Contains(err.Error(), "auth.role") {
		t.Errorf("0.2 server, no role: %v", err)
	}
}

func TestServerVersion_RefusesLinesItDoesNotSpeak(t *testing.T) {
	for _, v := range []string{"0.5.0", "1.0.0", "0.1.0", "x"} {
		if _, err := New(Options{Version: v, Logger: testLogger(t)}); err == nil {
			t.Errorf("New(Version %q) = nil error", v)
		}
	}
}
