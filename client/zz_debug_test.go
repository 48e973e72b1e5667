package client

import (
	"os"
	"testing"

	zlog "github.com/zishang520/socket.io/v3/pkg/log"
)

func TestZZDebug(t *testing.T) {
	if os.Getenv("ZZDEBUG") != "" {
		zlog.DEBUG.Store(true)
	}
	if os.Getenv("ZZDEBUG") == "" {
		t.Skip()
	}
	zlog.DEBUG.Store(true)
	k := peerKinds[0]
	if os.Getenv("ZZDEBUG") == "node" {
		k = peerKinds[1]
	}
	p := startPeer(t, k, "--computer", "box")
	opt := testOptions(p.URL, "office-a", "agent-1")
	if os.Getenv("ZZPOLL") != "" {
		opt.Transport = TransportPolling
	}
	dialT(t, opt)
}

func init() {
	if os.Getenv("ZZDEBUG") != "" {
		zlog.DEBUG.Store(true)
	}
}
