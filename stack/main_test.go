package stack

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when any test leaves a goroutine behind
// (no goroutine may outlive a test). Every stack, agent, extra
// computer and httptest server a test starts is closed by its cleanup, so
// what is left after the last test must be nothing but the process-wide
// goroutines of zishang520 v3.0.6, the same two client/main_test.go ignores:
//   - utils.SetInterval: the engine.io client package starts a network
//     monitor in its init that lives as long as the process;
//   - utils.SetTimeout: each library timer (connect timeout, reconnect
//     backoff, ping timeout) is a goroutine waiting for its timer or stop
//     channel; one armed by a reconnect that races Close ends when it fires.
//
// teatest's SIGINT watcher, which every teatest.NewTestModel starts and
// nothing stops (TestFinder_TUIAcrossTheDemo drives the browser here),
// and bleve's four analysis workers, which its package init starts for the
// process-wide default configuration (bleve.Config); the library's search
// index links bleve into every binary that serves the corpus.
//
// A failure naming server.(*gatedDecoder).Destroy is not a test bug: it is
// the server's self-deadlock on a packet for a namespace the peer is not
// connected to, which a peer racing a disconnect can send at teardown.
// TestFault_EventWithoutConnect_ServerDropsTheClient reproduces it
// deterministically. It is deliberately not ignored here.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("github.com/zishang520/socket.io/v3/pkg/utils.SetInterval.func1"),
		goleak.IgnoreTopFunction("github.com/zishang520/socket.io/v3/pkg/utils.SetTimeout.func1"),
		goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"),
		goleak.IgnoreTopFunction("github.com/charmbracelet/x/exp/teatest/v2.NewTestModel.func2"),
	)
}
