package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/skills"
	"github.com/dpe-tui/dpe-tui/stack"
)

type computerFlags struct {
	office, name              string
	docs, mcpConfig, resolver string
	skills                    string
	cacheDir                  string
	connectTimeout            time.Duration
	budgets                   budgetFlags
	log                       logFlags
}

func (a *app) computerCmd() *cobra.Command {
	f := &computerFlags{}
	cmd := &cobra.Command{
		Use:   "computer --url URL --office ID --name NAME",
		Short: "Run one Computer against any SMCP server",
		Long: "computer joins an office of any A2C-SMCP server as one Computer: with --docs it serves the\n" +
			"folder as MCP server \"library\" (with the Finder and its desktop window), with --mcp-config it\n" +
			"fronts the configured MCP servers, with --skills it serves a folder of skills. Given --url A,B\n" +
			"it moves to the next server when one fails and joins the office there.",
		Example: `  dpe-tui computer --url http://127.0.0.1:7800 --office demo --name gamma --docs ~/papers
  dpe-tui computer --url http://node1:7800,http://node2:7800 --a2c-version 0.4.0 --office team --name docs --docs ~/papers --skills ~/skills
  dpe-tui computer --url https://smcp.example.org --office team --name ci --mcp-config servers.json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runComputer(a.ctx, f, &a.g, a.stdout, a.stderr)
		},
	}
	fs := cmd.Flags()
	// Local to computer: the office and name are this computer's, with no
	// default; --docs and --mcp-config take one each.
	fs.StringVar(&f.office, "office", "", "office to join")
	bindEnv(fs, "office", "DPE_TUI_OFFICE")
	fs.StringVar(&f.name, "name", "", "computer name (unique in the office)")
	fs.StringVar(&f.docs, "docs", "", "serve this folder as MCP server \"library\"")
	fs.StringVar(&f.skills, "skills", "", "serve this folder of skill folders (each with SKILL.md) to the skill channel")
	fs.StringVar(&f.mcpConfig, "mcp-config", "", "a JSON file of MCP servers to front (SMCP MCPServerConfig shape)")
	fs.StringVar(&f.resolver, "resolver", "http", "the DPE resolver: file or http")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "file resolver cache (default: a temp dir removed on exit)")
	fs.DurationVar(&f.connectTimeout, "connect-timeout", computer.DefaultConnectTimeout, "bound on connecting and joining")
	f.budgets.define(fs)
	f.log.define(fs)
	return cmd
}

// runComputer runs one Computer against any SMCP server until ctx ends:
// with --docs it serves the folder as MCP server "library", with
// --mcp-config it fronts the configured MCP servers.
func runComputer(ctx context.Context, f *computerFlags, g *globalFlags, stdout, stderr io.Writer) error {
	if err := g.resolveAPIKey(ctx); err != nil {
		return err
	}
	serverURL, apiKey := g.URL, g.APIKey
	office, name, docs, mcpConfig, resolver := f.office, f.name, f.docs, f.mcpConfig, f.resolver
	cacheDir, connectTimeout := f.cacheDir, f.connectTimeout
	switch {
	case serverURL == "":
		return usageErrorf("computer needs --url")
	case office == "":
		return usageErrorf("computer needs --office")
	case name == "":
		return usageErrorf("computer needs --name")
	case docs == "" && mcpConfig == "" && f.skills == "":
		return usageErrorf("computer needs --docs, --mcp-config or --skills (it would have nothing to serve)")
	case connectTimeout <= 0:
		return usageErrorf("--connect-timeout must be > 0, not %s", connectTimeout)
	}
	if resolver != "file" && resolver != "http" {
		return usageErrorf("--resolver must be file or http, not %q", resolver)
	}
	if err := f.budgets.check(); err != nil {
		return err
	}
	log, closeLog, err := f.log.logger(g.LogFile, stderr, g.noColor())
	if err != nil {
		return err
	}
	defer closeLog()

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
		if extra, inputs, err = stack.LoadMCPConfig(mcpConfig); err != nil {
			return fmt.Errorf("--mcp-config: %w", err)
		}
	}
	if err := checkSideVersion(g.A2CVersion); err != nil {
		return err
	}
	var sk *skills.Folder
	if f.skills != "" {
		if sk, err = skills.Open(f.skills, log.With("component", "skills")); err != nil {
			return fmt.Errorf("--skills: %w", err)
		}
	}
	c := computer.New(computer.Options{Skills: sk,
		URL: serverURL, URLs: g.URLs[1:], Version: g.A2CVersion, Office: office, Name: name, APIKey: apiKey, Resolver: res,
		Logger: log.With("component", "computer", "computer", name), Inputs: inputs, ConnectTimeout: connectTimeout,
	})
	defer c.Close()
	// Indexing waits for the join, as in serve: it shares the CPU with it.
	joined := make(chan struct{})
	defer func() {
		select {
		case <-joined:
		default:
			close(joined)
		}
	}()
	if docs != "" {
		if err := localfile.Dir(docs); err != nil {
			return usageErrorf("--docs %v", err)
		}
		lib, err := stack.AddDocs(ctx, c, stack.DocsOptions{Dir: docs, Start: joined, Logger: log, ConvertTimeout: f.budgets.convert, FindTimeout: f.budgets.find, FindMaxExpansion: f.budgets.findTerms})
		if err != nil {
			return err
		}
		defer lib.Close()
	}
	for _, cfg := range extra {
		if err := c.AddServer(ctx, cfg); err != nil {
			return fmt.Errorf("--mcp-config server %s: %w", cfg.Name, err)
		}
	}
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("computer %s: %w", name, err)
	}
	close(joined)
	fmt.Fprintf(stdout, "dpe-tui computer: %s joined office %s at %s\n", name, office, redactURL(serverURL))
	<-ctx.Done()
	fmt.Fprintln(stdout, "dpe-tui computer: shutting down")
	return nil
}
