package client

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: a Client that is
// closed (or a Dial that fails) must stop everything it started, including
// the library's transport goroutines.
//
// Two library goroutines are ignored, both by design of zishang520 v3.0.6:
//   - utils.SetInterval: the engine.io client package starts a process-wide
//     network monitor in its init; it lives as long as the process.
//   - utils.SetTimeout: every library timer (connect timeout, reconnect
//     backoff, ping timeout) is a goroutine that waits for its timer or its
//     stop channel. A timer armed by a reconnect attempt that races Close
//     is not stopped, but its goroutine ends when it fires (≤ 45 s). The
//     client itself uses no library timers for requests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("github.com/zishang520/socket.io/v3/pkg/utils.SetInterval.func1"),
		goleak.IgnoreTopFunction("github.com/zishang520/socket.io/v3/pkg/utils.SetTimeout.func1"),
		// teatest's SIGINT watcher never returns (paging_test.go drives the
		// browser on this client through teatest).
		goleak.IgnoreTopFunction("github.com/charmbracelet/x/exp/teatest/v2.NewTestModel.func2"),
	)
}
