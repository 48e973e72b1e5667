package stack

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// The stack's computers tag their answers with the stack's key: an agent
// that holds it accepts their file:// access URIs with no --allow-file-uri;
// one that does not (any other process on the loopback server) is refused.
func TestStack_OriginKeyVouchesForOwnComputersOnly(t *testing.T) {
	st, c := startDemo(t, Options{Resolver: "file"})
	r := firstDPE(t, c, ComputerAlpha, ServerLibrary, "")
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, 60*time.Second))
	defer cancel()

	op := &dpe.Opener{Resolver: c.Resolver(""), Fetcher: &dpe.Fetcher{}}
	_, err := op.Open(ctx, r.URI)
	if !errors.Is(err, dpe.ErrFileRefused) || !strings.Contains(err.Error(), "from computer alpha: file:// access URIs are accepted only from computers dpe-tui started, or with --allow-file-uri") {
		t.Fatalf("without the key: %v", err)
	}
	c.Close() // one agent per office

	own, err := client.Dial(ctx, client.Options{URL: st.URL, Office: st.Office, Name: "own-agent", OwnComputerKey: st.OriginKey()})
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	op = &dpe.Opener{Resolver: own.Resolver(""), Fetcher: &dpe.Fetcher{}}
	opened, err := op.Open(ctx, r.URI)
	if err != nil {
		t.Fatalf("with the key: %v", err)
	}
	if !opened.Access.OwnComputer || opened.Access.Computer != ComputerAlpha || !strings.HasPrefix(opened.Access.URI, "file://") {
		t.Errorf("access %+v", opened.Access)
	}
	// A different key is no key.
	other := make([]byte, 32)
	acc, err := own.GetDPE(ctx, ComputerAlpha, r.URI)
	if err != nil || client.OriginTag(other, ComputerAlpha, acc.URI) == client.OriginTag(st.OriginKey(), ComputerAlpha, acc.URI) {
		t.Fatalf("tags must depend on the key (%v)", err)
	}
}
