package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/library"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// runComputer runs one Computer against any SMCP server until ctx ends:
// with --docs it serves the folder as MCP server "library", with
// --mcp-config it fronts the configured MCP servers.
func runComputer(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		serverURL, office, name, apiKey string
		docs, mcpConfig, resolver       string
		cacheDir, logFile               string
		verbose                         bool
		connectTimeout                  time.Duration
	)
	fs := flag.NewFlagSet("computer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&serverURL, "url", envOr("DPE_TUI_URL", ""), "SMCP server to join, e.g. http://127.0.0.1:7800")
	fs.StringVar(&office, "office", envOr("DPE_TUI_OFFICE", ""), "office to join")
	fs.StringVar(&name, "name", "", "computer name (unique in the office)")
	fs.StringVar(&docs, "docs", "", "serve this folder as MCP server \"library\"")
	fs.StringVar(&mcpConfig, "mcp-config", "", "JSON file of MCP servers to front (SMCP MCPServerConfig shape)")
	fs.StringVar(&resolver, "resolver", "http", "DPE resolver: file or http")
	fs.StringVar(&cacheDir, "cache-dir", "", "file resolver cache (default: a temp dir removed on exit)")
	fs.StringVar(&apiKey, "api-key", "", "API key for the server; prefer env DPE_TUI_API_KEY")
	fs.DurationVar(&connectTimeout, "connect-timeout", computer.DefaultConnectTimeout, "bound on connecting and joining")
	fs.StringVar(&logFile, "log", "", "write logs to FILE instead of stderr")
	fs.BoolVar(&verbose, "v", false, "debug logging")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usageErrorf("computer takes no arguments, got %q", pos[0])
	case serverURL == "":
		return usageErrorf("computer needs --url")
	case office == "":
		return usageErrorf("computer needs --office")
	case name == "":
		return usageErrorf("computer needs --name")
	case docs == "" && mcpConfig == "":
		return usageErrorf("computer needs --docs or --mcp-config (it would have nothing to serve)")
	case connectTimeout <= 0:
		return usageErrorf("--connect-timeout must be > 0, not %s", connectTimeout)
	}
	if resolver != "file" && resolver != "http" {
		return usageErrorf("--resolver must be file or http, not %q", resolver)
	}
	if apiKey == "" {
		apiKey = os.Getenv("DPE_TUI_API_KEY")
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
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))

	var res computer.Resolver
	switch resolver {
	case "file":
		dir := cacheDir
		if dir == "" {
			d, err := os.MkdirTemp("", "dpe-tui-cache-")
			if err != nil {
				return fmt.Errorf("file resolver cache: %w", err)
			}
			defer os.RemoveAll(d)
			dir = d
		}
		res = computer.NewFileResolver(filepath.Clean(dir))
	case "http":
		h, err := computer.NewHTTPResolver(computer.HTTPResolverOptions{Logger: log.With("component", "http-resolver")})
		if err != nil {
			return fmt.Errorf("http resolver: %w", err)
		}
		defer h.Close()
		res = h
	}

	var (
		extra  []protocol.MCPServerConfig
		inputs []protocol.MCPServerInput
	)
	if mcpConfig != "" {
		if extra, inputs, err = computer.LoadConfigFile(mcpConfig); err != nil {
			return fmt.Errorf("--mcp-config: %w", err)
		}
	}
	c := computer.New(computer.Options{
		URL: serverURL, Office: office, Name: name, APIKey: apiKey, Resolver: res,
		Logger: log.With("component", "computer", "computer", name), Inputs: inputs, ConnectTimeout: connectTimeout,
	})
	defer c.Close()
	if docs != "" {
		if fi, err := os.Stat(docs); err != nil || !fi.IsDir() {
			return fmt.Errorf("--docs %s: not a directory", docs)
		}
		srv, err := library.New(library.Options{Dir: docs, Name: "library", Logger: log.With("component", "library")})
		if err != nil {
			return fmt.Errorf("library: %w", err)
		}
		cfg := protocol.MCPServerConfig{
			Name: "library", Type: protocol.ServerTypeStdio, ForbiddenTools: []string{}, ToolMeta: map[string]protocol.ToolMeta{},
			ServerParameters: []byte(`{"command":"(in-process)","args":[],"env":null,"cwd":null,"encoding":"utf-8","encoding_error_handler":"strict"}`),
		}
		if err := c.AddInProcess(ctx, cfg, srv); err != nil {
			return fmt.Errorf("library: %w", err)
		}
	}
	for _, cfg := range extra {
		if err := c.AddServer(ctx, cfg); err != nil {
			return fmt.Errorf("--mcp-config server %s: %w", cfg.Name, err)
		}
	}
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("computer %s: %w", name, err)
	}
	fmt.Fprintf(stdout, "dpe-tui computer: %s joined office %s at %s\n", name, office, redactURL(serverURL))
	<-ctx.Done()
	fmt.Fprintln(stdout, "dpe-tui computer: shutting down")
	return nil
}
