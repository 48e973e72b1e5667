package client

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: a Client that is
// closed (or a Dial that fails) must stop everything it started, including
// the library's transport goroutines.
//
// One goroutine is ignored: the engine.io client package starts a
// process-wide network monitor (utils.SetInterval in its init) that lives
// for the whole process by design; it is not per-connection.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("github.com/zishang520/socket.io/v3/pkg/utils.SetInterval.func1"),
	)
}
