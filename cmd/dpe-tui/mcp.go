package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/library"
)

// runMCP serves the library with Finder as a standalone MCP server: on
// stdio (stdout is the protocol, logs go to stderr) or, with --http, on
// MCP Streamable HTTP at ADDR/mcp.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	docs := fs.String("docs", "", "serve this folder (default: the embedded corpus)")
	addr := fs.String("http", "", "serve MCP Streamable HTTP on ADDR (e.g. 127.0.0.1:7801) instead of stdio")
	host := fs.String("host", library.DefaultHost, "dpe:// host of the documents")
	indexDir := fs.String("index-dir", "", "keep the Finder index here (default: under the XDG cache dir, keyed by the folder)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageErrorf("mcp takes no arguments")
	}
	if *docs != "" {
		if fi, err := os.Stat(*docs); err != nil || !fi.IsDir() {
			return usageErrorf("--docs %s: not a directory", *docs)
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	lib, err := library.Open(library.Options{Dir: *docs, Host: *host, Logger: log,
		Finder: &library.FinderOptions{IndexDir: *indexDir}})
	if err != nil {
		return err
	}
	defer lib.Close()
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
