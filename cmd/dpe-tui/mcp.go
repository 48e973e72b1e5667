package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/library"
)

type mcpFlags struct {
	docs, addr, host, indexDir string
}

func (a *app) mcpCmd() *cobra.Command {
	f := &mcpFlags{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the library with Finder as a standalone MCP server (stdio or HTTP)",
		Long: "mcp serves a folder (default: the embedded corpus) with its Finder as an MCP server: on stdio\n" +
			"(stdout is the protocol, logs go to stderr) or, with --http, on MCP Streamable HTTP at ADDR/mcp.",
		Example: `  dpe-tui mcp --docs ~/papers
  dpe-tui mcp --http 127.0.0.1:7801`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(a.ctx, f, a.stdin, a.stdout, a.stderr)
		},
	}
	fs := cmd.Flags()
	// Local to mcp: --docs here is the one folder served, not the
	// repeatable global flag.
	fs.StringVar(&f.docs, "docs", "", "serve this folder (default: the embedded corpus)")
	fs.StringVar(&f.addr, "http", "", "serve MCP Streamable HTTP on ADDR (e.g. 127.0.0.1:7801) instead of stdio")
	fs.StringVar(&f.host, "host", library.DefaultHost, "dpe:// host of the documents")
	fs.StringVar(&f.indexDir, "index-dir", "", "keep the Finder index here (default: under the XDG cache dir, keyed by the folder)")
	return cmd
}

// runMCP serves the library with Finder as a standalone MCP server: on
// stdio (stdout is the protocol, logs go to stderr) or, with --http, on
// MCP Streamable HTTP at ADDR/mcp.
func runMCP(ctx context.Context, f *mcpFlags, stdin io.Reader, stdout, stderr io.Writer) error {
	docs, addr, host, indexDir := &f.docs, &f.addr, &f.host, &f.indexDir
	if *docs != "" {
		if fi, err := os.Stat(*docs); err != nil || !fi.IsDir() {
			return usageErrorf("--docs %s: not a directory", *docs)
		}
	}
	// The logger and the Finder's ready line write from different
	// goroutines: one lock for both.
	stderr = &lockedWriter{w: stderr}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	lib, err := library.Open(library.Options{Dir: *docs, Host: *host, Logger: log,
		Finder: &library.FinderOptions{IndexDir: *indexDir}})
	if err != nil {
		return err
	}
	defer lib.Close()
	stopReady := reportFinderReady(ctx, lib, stderr)
	defer stopReady() // before lib.Close: the line is never written after
	srv := lib.Server()
	if *addr == "" {
		t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
		err := srv.Run(ctx, t)
		if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, io.EOF)) {
			return nil
		}
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", *addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "dpe-tui mcp: serving MCP Streamable HTTP at http://%s/mcp\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// reportFinderReady writes "dpe-tui mcp: Finder index ready: N documents"
// to w when the background build started at Open ends, so whoever runs
// the server knows when find answers from everything (until then it says
// how much it has). A build that stopped early says how far it got; its
// cause is already logged. stop ends the wait and returns once nothing
// more will be written.
func reportFinderReady(ctx context.Context, lib *library.Library, w io.Writer) (stop func()) {
	f := lib.Finder()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if f.Wait(ctx) != nil {
			return
		}
		if st := f.Status(); st.Complete {
			fmt.Fprintf(w, "dpe-tui mcp: Finder index ready: %d documents\n", st.Total)
		} else {
			fmt.Fprintf(w, "dpe-tui mcp: Finder index build stopped; find answers from %s\n", st)
		}
	}()
	return func() { cancel(); <-done }
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
