package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/stack"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		opt     stack.Options
		logFile string
		verbose bool
	)
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opt.Addr, "addr", "127.0.0.1:7800", "listen address (host:port; port 0 picks a free one)")
	fs.StringVar(&opt.Office, "office", envOr("DPE_TUI_OFFICE", "demo"), "office the computers join")
	fs.StringVar(&opt.DocsDir, "docs", "", "serve this folder as the library instead of the embedded sample corpus")
	fs.StringVar(&opt.MCPConfig, "mcp-config", "", "JSON file of extra MCP servers for computer alpha (SMCP MCPServerConfig shape)")
	fs.StringVar(&opt.Resolver, "resolver", "http", "DPE resolver: file, http or s3")
	fs.StringVar(&opt.APIKey, "api-key", "", "require this API key from clients; prefer env DPE_TUI_API_KEY")
	fs.IntVar(&opt.BenchResources, "bench-resources", 0, "add server \"bench\" to alpha with N generated resources (performance runs)")
	fs.IntVar(&opt.BenchPageSize, "bench-page-size", 100, "cursor page size of the bench server")
	fs.IntVar(&opt.MaxPendingPerAgent, "max-pending", 256, "routed requests one agent may have waiting for a computer; more are refused at once (403)")
	fs.DurationVar(&opt.MaxRequestTimeout, "max-request-timeout", 120*time.Second, "largest per-request timeout a client may ask for; larger ones are lowered to it")
	fs.Int64Var(&opt.MaxMessageBytes, "max-message-bytes", 64<<20, "largest engine.io message accepted; a connection sending more is closed")
	fs.StringVar(&opt.Redis, "redis", envOr("DPE_TUI_REDIS", ""), "redis://HOST:PORT/N: run as one node of a cluster sharing offices through Redis")
	fs.DurationVar(&opt.NodeTTL, "node-ttl", 10*time.Second, "with --redis: a node that stops heartbeating leaves every office within this (plus a third)")
	fs.BoolVar(&opt.NoComputers, "no-computers", false, "run only the server node, without the demo computers")
	fs.StringVar(&logFile, "log", "", "write logs to FILE instead of stderr")
	fs.BoolVar(&verbose, "v", false, "debug logging")
	checkS3 := addS3Flags(fs, &opt.S3)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("serve takes no arguments, got %q", pos[0])
	}
	switch {
	case opt.MaxPendingPerAgent <= 0:
		return usageErrorf("--max-pending must be > 0, not %d", opt.MaxPendingPerAgent)
	case opt.MaxRequestTimeout <= 0:
		return usageErrorf("--max-request-timeout must be > 0, not %s", opt.MaxRequestTimeout)
	case opt.MaxMessageBytes <= 0:
		return usageErrorf("--max-message-bytes must be > 0, not %d", opt.MaxMessageBytes)
	case opt.NodeTTL < 300*time.Millisecond:
		return usageErrorf("--node-ttl must be at least 300ms, not %s", opt.NodeTTL)
	}
	if opt.Redis != "" && !strings.HasPrefix(opt.Redis, "redis://") && !strings.HasPrefix(opt.Redis, "rediss://") {
		return usageErrorf("--redis must be a redis:// or rediss:// URL, not %q", opt.Redis)
	}
	if opt.APIKey == "" {
		opt.APIKey = os.Getenv("DPE_TUI_API_KEY")
	}
	switch opt.Resolver {
	case "file", "http", "s3":
	default:
		return usageErrorf("--resolver must be file, http or s3, not %q", opt.Resolver)
	}
	if err := checkS3(opt.Resolver); err != nil {
		return err
	}
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	logOut := stderr
	if logFile != "" {
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("open log file: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	opt.Logger = slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))

	st, err := stack.Start(ctx, opt)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer st.Close()
	fmt.Fprintf(stdout, "dpe-tui serve: listening on %s\n", st.URL)
	if opt.Redis != "" {
		fmt.Fprintf(stdout, "cluster node: offices shared through %s\n", redactURL(opt.Redis))
	}
	fmt.Fprintf(stdout, "office: %s\ncomputers: %v\n", st.Office, st.ComputerNames())
	fmt.Fprintf(stdout, "connect with: dpe-tui --url %s --office %s\n", st.URL, st.Office)
	<-ctx.Done()
	fmt.Fprintln(stdout, "dpe-tui serve: shutting down")
	return nil
}

// redactURL drops a password from a URL before it is printed.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
