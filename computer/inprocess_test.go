package computer

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The in-process transport carries a real go-sdk session both ways, a
// resources/read far over go-sdk's 16 MiB line limit included, and closing
// the client ends the server's session.
func TestInProcessTransport_CarriesASessionAndClosesBothEnds(t *testing.T) {
	big := strings.Repeat("x", 20<<20)
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddResource(&mcp.Resource{URI: "test://big", Name: "big"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://big", Text: big}}}, nil
	})
	serverT, clientT := inProcessTransports()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ss, err := srv.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 1 || list.Resources[0].URI != "test://big" {
		t.Fatalf("list: %+v, %v", list, err)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://big"})
	if err != nil || len(res.Contents) != 1 || len(res.Contents[0].Text) != len(big) {
		t.Fatalf("read: %v", err)
	}
	_ = cs.Close()
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("server session still running after the client closed")
	}
}

// A reader blocked on an empty pipe returns io.EOF when either end closes;
// a writer blocked on a full one returns when its context ends, and a write
// after close fails at once.
func TestMemConn_CloseAndContextUnblock(t *testing.T) {
	serverT, clientT := inProcessTransports()
	ctx := context.Background()
	sc, _ := serverT.Connect(ctx)
	cc, _ := clientT.Connect(ctx)

	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	var werr error
	for range memQueue + 1 {
		if werr = cc.Write(wctx, &jsonrpc.Request{Method: "notifications/x"}); werr != nil {
			break
		}
	}
	if !errors.Is(werr, context.DeadlineExceeded) {
		t.Fatalf("write to a full pipe: %v, want the context's deadline", werr)
	}

	readErr := make(chan error, 1)
	go func() {
		for {
			if _, err := cc.Read(ctx); err != nil {
				readErr <- err
				return
			}
		}
	}()
	_ = sc.Close()
	select {
	case err := <-readErr:
		if !errors.Is(err, io.EOF) {
			t.Errorf("read after the other end closed: %v, want io.EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("read still blocked after the other end closed")
	}
	if err := cc.Write(ctx, &jsonrpc.Request{Method: "notifications/x"}); err == nil {
		t.Error("write after close succeeded")
	}
}

// An in-process server is spoken to in the session protocol, which states
// the client's info once instead of in every request.
func TestAddInProcess_UsesTheSessionProtocol(t *testing.T) {
	o := startOffice(t, Options{}, func(c *Computer) {
		inProc(t, c, "lib", newDocServer(docServerOptions{Host: "com.example.docs", Docs: 3, PageSize: 2}))
	})
	ir := o.comp.server("lib").session.InitializeResult()
	if ir == nil || ir.ProtocolVersion != inProcessSession().ProtocolVersion {
		t.Fatalf("initialize result %+v, want protocol %s", ir, inProcessSession().ProtocolVersion)
	}
}
