package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// peer03 runs interop/peers/smcp_peer_03.py: python-socketio speaking
// A2C-SMCP 0.3.0 (strict minor check, role only in join_office, servers
// keyed by bundle_id, no client:get_dpe, client:get_desktop).
func peer03(t *testing.T) string { return interoptest.StartScript(t, "smcp_peer_03.py") }

func peer03Stats(t *testing.T, url string) interoptest.ScriptStats { return interoptest.Stats(t, url) }

// Against a 0.3.0 server the agent is refused with 4008, reconnects once
// with 0.3.0, joins declaring its role in join_office only (the peer
// refuses a role in the connect auth), and says which version it speaks.
func TestInterop03_NegotiatesAndListsByBundleID(t *testing.T) {
	url := peer03(t)
	c := dialT(t, testOptions(url, "office-a", "agent-1"))
	if c.Version() != protocol.Version03 || !c.Renegotiated() || c.State().State != Connected {
		t.Fatalf("version %q renegotiated %v state %v, want 0.3.0 after a 4008", c.Version(), c.Renegotiated(), c.State())
	}
	if s := peer03Stats(t, url); s.Rejected != 1 {
		t.Errorf("peer rejected %d handshakes, want exactly one (one reconnect, no loop)", s.Rejected)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	comps, err := c.Computers(ctx)
	if err != nil || len(comps) != 1 || comps[0].Name != "box" || comps[0].A2CVersion != "0.3.0" {
		t.Fatalf("Computers = %+v, %v", comps, err)
	}
	cfg, err := c.Config(ctx, "box")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range cfg.Servers {
		got = append(got, s.Name+"="+string(s.Key))
	}
	if want := "browser=com.example.browser docs=com.example.docs.v1 docs=org.other.docs"; strings.Join(got, " ") != want {
		t.Fatalf("servers %q, want %q (name for display, bundle_id as key)", strings.Join(got, " "), want)
	}
	for _, s := range cfg.Servers {
		page, err := c.Resources(ctx, "box", s.Key, "")
		if err != nil || len(page.Resources) != 2 {
			t.Fatalf("resources of %s (%s): %+v %v", s.Name, s.Key, page, err)
		}
	}
	// The display name is not a key: the peer answers 4014.
	_, err = c.Resources(ctx, "box", "docs", "")
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeMCPServerNotFound {
		t.Fatalf("resources by display name: %v, want 4014", err)
	}
}

// client:get_dpe does not exist in 0.3: opening a dpe:// fails at once
// with one sentence, and nothing is sent.
func TestInterop03_GetDPESaysAtOnceThatTheServerHasNone(t *testing.T) {
	url := peer03(t)
	opt := testOptions(url, "office-a", "agent-1")
	opt.RequestTimeout = time.Hour // a request sent would hang the test, not pass it
	c := dialT(t, opt)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const want = "this server speaks A2C-SMCP 0.3, which has no client:get_dpe (DPE moved to dpe-protocol)"
	_, err := c.GetDPE(ctx, "box", "dpe://com.example.docs/report")
	var ue *UnsupportedError
	if !errors.As(err, &ue) || err.Error() != want {
		t.Fatalf("GetDPE = %v, want %q", err, want)
	}
	if _, _, err := c.ChooseComputer(ctx, "dpe://com.example.docs/report"); err == nil || err.Error() != want {
		t.Fatalf("ChooseComputer = %v, want %q", err, want)
	}
	if _, err := c.Resolver("").Resolve(ctx, "dpe://com.example.docs/report"); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Resolver = %v, want ErrUnsupported", err)
	}
	if n := peer03Stats(t, url).Events[protocol.EventGetDPE]; n != 0 {
		t.Errorf("the peer received client:get_dpe %d times", n)
	}
}

// client:get_desktop lists the window:// entries; an entry that is not a
// window is counted, not shown.
func TestInterop03_DesktopListsWindows(t *testing.T) {
	url := peer03(t)
	c := dialT(t, testOptions(url, "office-a", "agent-1"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := c.Desktop(ctx, "box")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Windows) != 2 || d.Skipped != 1 ||
		d.Windows[0] != (Window{URI: "window://com.example.browser/main", Body: "Hello from the browser"}) ||
		d.Windows[1] != (Window{URI: "window://com.example.term/1"}) {
		t.Fatalf("desktop = %+v", d)
	}
}

// A forced version is not renegotiated: --a2c-version 0.2.0 against a
// 0.3 server is the 4008; --a2c-version 0.3.0 connects without one.
func TestInterop03_ForcedVersion(t *testing.T) {
	url := peer03(t)
	opt := testOptions(url, "office-a", "agent-1")
	opt.Version = "0.2.0"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Dial(ctx, opt)
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeVersionMismatch || perr.ServerVersion != "0.3.0" {
		t.Fatalf("forced 0.2.0: %v, want 4008 naming 0.3.0", err)
	}
	before := peer03Stats(t, url).Rejected
	opt.Version = "0.3.0"
	c := dialT(t, opt)
	if c.Version() != "0.3.0" || c.Renegotiated() {
		t.Fatalf("forced 0.3.0: version %q renegotiated %v", c.Version(), c.Renegotiated())
	}
	if after := peer03Stats(t, url).Rejected; after != before {
		t.Errorf("forced 0.3.0 was rejected %d times", after-before)
	}
}
