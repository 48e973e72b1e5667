package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Interop: against test peers written on other Socket.IO
// implementations.

func TestInterop_ConnectsOverWebSocketJoinsAndListsRoom(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--computer", "box")
		c := dialT(t, testOptions(p.URL, "office-a", "agent-1"))
		if st := c.State(); st.State != Connected {
			t.Fatalf("state after Dial = %v, want connected", st)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		comps, err := c.Computers(ctx)
		if err != nil {
			t.Fatalf("Computers: %v", err)
		}
		if len(comps) != 1 || comps[0].Name != "box" || comps[0].SID == "" || comps[0].A2CVersion != "0.2.0" {
			t.Fatalf("Computers = %+v, want only computer box with sid and a2c_version 0.2.0 (the agent itself is not a computer)", comps)
		}
	})
}

func TestInterop_SecondAgentInOfficeIsRefusedWithReason(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k)
		dialT(t, testOptions(p.URL, "demo", "agent-1"))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c2, err := Dial(ctx, testOptions(p.URL, "demo", "agent-2"))
		if err == nil {
			_ = c2.Close()
			t.Fatal("second agent joined the same office; want a refusal")
		}
		var je *JoinError
		if !errors.As(err, &je) {
			t.Fatalf("err = %v (%T), want *JoinError", err, err)
		}
		if je.Reason != "office demo already has an agent" {
			t.Errorf("Reason = %q, want the server's message", je.Reason)
		}
		if !strings.Contains(err.Error(), "office demo already has an agent") {
			t.Errorf("error %q does not carry the reason", err)
		}
		// A different office is fine: the refusal was about this office only.
		dialT(t, testOptions(p.URL, "other", "agent-2"))
	})
}

func TestInterop_RoutedEventDecodesTypedConfig(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--computer", "box")
		c := dialT(t, testOptions(p.URL, "office-a", "agent-1"))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cfg, err := c.Config(ctx, "box")
		if err != nil {
			t.Fatalf("Config: %v", err)
		}
		if len(cfg.Servers) != 2 || cfg.Servers[0].Name != "library" || cfg.Servers[1].Name != "old" {
			t.Fatalf("Servers = %+v, want library and old sorted by name", cfg.Servers)
		}
		if s := cfg.Servers[0]; s.Type != "stdio" || s.Disabled || len(s.Parameters) == 0 {
			t.Errorf("library = %+v, want enabled stdio with parameters", s)
		}
		if s := cfg.Servers[1]; s.Type != "sse" || !s.Disabled {
			t.Errorf("old = %+v, want disabled sse", s)
		}
		if len(cfg.Inputs) != 1 || cfg.Inputs[0].ID != "token" {
			t.Errorf("Inputs = %+v, want the token input", cfg.Inputs)
		}
	})
}

func TestInterop_UnroutedEventEmptyAckIsClearError(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--computer", "box")
		c := dialT(t, testOptions(p.URL, "office-a", "agent-1"))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := c.Resources(ctx, "box", "library", "")
		if !errors.Is(err, ErrNotRouted) {
			t.Fatalf("err = %v, want ErrNotRouted", err)
		}
		if !strings.Contains(err.Error(), "the server did not route client:get_resources (it may not support it)") {
			t.Errorf("message %q does not say what was not routed", err)
		}
	})
}

func TestInterop_DroppedRequestIsTimeoutErrorNamingEventAndComputer(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--computer", "box")
		opt := testOptions(p.URL, "office-a", "agent-1")
		opt.RequestTimeout = time.Second
		c := dialT(t, opt)
		// The outer bound is far above RequestTimeout: a TimeoutError (not
		// a context error) proves the request gave up on its own.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := c.GetDPE(ctx, "box", "dpe://io.example/doc")
		var te *TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("err = %v (%T), want *TimeoutError", err, err)
		}
		if te.Event != protocol.EventGetDPE || te.Computer != "box" || te.After != time.Second {
			t.Errorf("TimeoutError = %+v", te)
		}
		if want := "client:get_dpe to computer box: no answer within 1s"; err.Error() != want {
			t.Errorf("message = %q, want %q", err.Error(), want)
		}
		if ctx.Err() != nil {
			t.Error("the outer context expired: the request did not time out on its own")
		}
		// The connection is still usable afterwards.
		if _, err := c.Config(ctx, "box"); err != nil {
			t.Errorf("Config after a timeout: %v", err)
		}
	})
}

// A server of a line this build does not speak (0.6) is final.
func TestInterop_VersionMismatchReportsVersionsAndDoesNotRetry(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--server-version", "0.6.0")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		opt := testOptions(p.URL, "office-a", "agent-1")
		opt.ConnectTimeout = 15 * time.Second
		c, err := Dial(ctx, opt)
		if err == nil {
			_ = c.Close()
			t.Fatal("Dial succeeded against a 0.6 server")
		}
		var perr *protocol.Error
		if !errors.As(err, &perr) || perr.Code != protocol.CodeVersionMismatch {
			t.Fatalf("err = %v (%T), want *protocol.Error 4008", err, err)
		}
		if perr.ServerVersion != "0.6.0" || perr.ClientVersion != "0.2.0" || perr.MinSupported != "0.6.0" || perr.MaxSupported != "0.6.999" {
			t.Errorf("4008 fields = %+v", perr)
		}
		for _, want := range []string{"4008", "client=0.2.0", "server=0.6.0", "supported=0.6.0..0.6.999"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("message %q lacks %q", err, want)
			}
		}
		// One rejected connect plus one probe: no retry loop.
		if hs, _ := p.stats(t); hs > 2 {
			t.Errorf("peer saw %d handshakes, want ≤ 2 (no retry after 4008)", hs)
		}
	})
}

func TestInterop_InFlightRequestFailsWithConnectionLostThenRejoins(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--computer", "box")
		c := dialT(t, testOptions(p.URL, "office-a", "agent-1"))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := c.Resources(ctx, "box", "drop-connection", "")
		if !errors.Is(err, ErrConnectionLost) {
			t.Fatalf("err = %v, want ErrConnectionLost", err)
		}
		var te *TimeoutError
		if errors.As(err, &te) {
			t.Fatalf("err = %v: the request waited for its timeout instead of failing at once", err)
		}
		waitEvent(t, c, "reconnecting", func(ev Event) bool { s, ok := ev.(StateEvent); return ok && s.State == Reconnecting })
		waitEvent(t, c, "connected again", func(ev Event) bool { s, ok := ev.(StateEvent); return ok && s.State == Connected })
		// Re-joined: room calls work and the agent is listed in the office.
		comps, err := c.Computers(ctx)
		if err != nil || len(comps) != 1 {
			t.Fatalf("Computers after reconnect = %+v, %v", comps, err)
		}
	})
}

func TestInterop_NotificationsAreTypedEvents(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--computer", "box", "--notify-on-join")
		c := dialT(t, testOptions(p.URL, "office-a", "agent-1"))
		ev := waitEvent(t, c, "notify:enter_office", func(ev Event) bool { _, ok := ev.(NotifyEvent); return ok })
		n := ev.(NotifyEvent)
		if n.Name != protocol.NotifyEnterOffice || n.Computer != "box" || n.OfficeID != "office-a" {
			t.Errorf("notification = %+v", n)
		}
	})
}

func TestInterop_APIKeyHeaderRefusalIsClearAndNeverEchoed(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--api-key", "s3cret-key")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		opt := testOptions(p.URL, "office-a", "agent-1")
		opt.APIKey = "wrong-key-4242"
		c, err := Dial(ctx, opt)
		if err == nil {
			_ = c.Close()
			t.Fatal("Dial succeeded with a wrong API key")
		}
		var perr *protocol.Error
		if !errors.As(err, &perr) || perr.Code != 401 {
			t.Fatalf("err = %v, want *protocol.Error 401", err)
		}
		if strings.Contains(err.Error(), "wrong-key-4242") {
			t.Errorf("error %q contains the API key", err)
		}
		opt.APIKey = "s3cret-key"
		dialT(t, opt)
	})
}

func TestInterop_NamespaceRefusalIsProtocolError(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--refuse-connect")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := Dial(ctx, testOptions(p.URL, "office-a", "agent-1"))
		if err == nil {
			_ = c.Close()
			t.Fatal("Dial succeeded although the namespace refuses connects")
		}
		var perr *protocol.Error
		if !errors.As(err, &perr) || perr.Code != 403 || !strings.Contains(err.Error(), "agents are not allowed here") {
			t.Fatalf("err = %v (%T), want *protocol.Error 403 with the server's message", err, err)
		}
	})
}

func TestInterop_CancelCloseAndLeaveEndCallsPromptly(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--computer", "box")
		opt := testOptions(p.URL, "office-a", "agent-1")
		opt.RequestTimeout = time.Minute // far beyond the test's bounds
		c := dialT(t, opt)

		// A cancelled context ends a call whose ack never comes.
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		if _, err := c.GetDPE(ctx, "box", "dpe://h/d"); !errors.Is(err, context.Canceled) {
			t.Fatalf("after cancel: err = %v, want context.Canceled", err)
		}

		// Leave: later calls say so instead of going out.
		lctx, lcancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer lcancel()
		if err := c.Leave(lctx); err != nil {
			t.Fatalf("Leave: %v", err)
		}
		if _, err := c.Computers(lctx); !errors.Is(err, ErrLeft) {
			t.Errorf("after Leave: err = %v, want ErrLeft", err)
		}

		// Close fails a call in flight at once and closes Events.
		c2 := dialT(t, testOptions(p.URL, "office-b", "agent-2"))
		errc := make(chan error, 1)
		go func() {
			_, err := c2.GetDPE(context.Background(), "box", "dpe://h/d")
			errc <- err
		}()
		time.Sleep(100 * time.Millisecond) // let the request go out; correctness does not depend on it
		_ = c2.Close()
		select {
		case err := <-errc:
			if !errors.Is(err, ErrConnectionLost) && !errors.Is(err, ErrClosed) {
				t.Errorf("in-flight call after Close: err = %v, want connection lost or closed", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("in-flight call did not end after Close")
		}
		if st := c2.State(); st.State != Offline {
			t.Errorf("state after Close = %v", st)
		}
		for range c2.Events() { // must terminate: Close closes the channel
		}
	})
}

func TestInterop_ServerGoneReportsReconnectAttemptsAndFailsCalls(t *testing.T) {
	forEachPeer(t, func(t *testing.T, k peerKind) {
		p := startPeer(t, k, "--computer", "box")
		c := dialT(t, testOptions(p.URL, "office-a", "agent-1"))
		p.stop()
		stopped := time.Now()
		ev := waitEvent(t, c, "a second reconnect attempt", func(ev Event) bool {
			s, ok := ev.(StateEvent)
			t.Logf("%v after the server stopped: %v", time.Since(stopped).Round(100*time.Millisecond), ev)
			return ok && s.State == Reconnecting && s.Attempt >= 2
		}).(StateEvent)
		if ev.Err == nil || ev.Reason == "" {
			t.Errorf("reconnecting event without the last error: %+v", ev)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := c.Computers(ctx); !errors.Is(err, ErrConnectionLost) {
			t.Errorf("call while the server is gone: err = %v, want ErrConnectionLost at once", err)
		}
	})
}
