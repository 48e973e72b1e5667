package library

import (
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/version"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// TestOpen_ServerImplementationIsTheBuildVersion: initialize answers with
// the app's version (what --version says), not a protocol version.
func TestOpen_ServerImplementationIsTheBuildVersion(t *testing.T) {
	lib, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lib.Close() })
	info := connect(t, lib.Server()).InitializeResult().ServerInfo
	if info.Version != version.Read().Short() || info.Version == protocol.Version || info.Version == "0.2.0" {
		t.Errorf("serverInfo = %+v, want the build version %q", *info, version.Read().Short())
	}
}
