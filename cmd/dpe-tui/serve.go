package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
	"github.com/dpe-tui/dpe-tui/stack"
)

type serveFlags struct {
	opt     stack.Options
	budgets budgetFlags
	log     logFlags
	checkS3 func(resolver string) error
}

func (a *app) serveCmd() *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run an SMCP server and the demo computers, headless",
		Long: "serve runs an A2C-SMCP server with computers alpha and beta (the embedded sample corpus, or\n" +
			"--docs DIR) until interrupted; with --redis, as one node of a cluster. It logs to stderr\n" +
			"(styled on a terminal; --log-format json for machines) or to --log FILE.",
		Example: `  dpe-tui serve
  dpe-tui serve --addr 127.0.0.1:0 --docs ~/papers --log-format json
  DPE_TUI_API_KEY=secret dpe-tui serve --resolver file`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(a.ctx, f, &a.g, a.stdout, a.stderr)
		},
	}
	opt := &f.opt
	fs := cmd.Flags()
	fs.StringVar(&opt.Addr, "addr", "127.0.0.1:7800", "listen address (host:port; port 0 picks a free one)")
	fs.StringVar(&opt.DocsDir, "docs", "", "serve this folder as the library instead of the embedded sample corpus")
	fs.StringVar(&opt.SkillsDir, "skills", "", "serve this folder of skill folders (each with SKILL.md) on computer alpha instead of the demo skills")
	fs.StringVar(&opt.MCPConfig, "mcp-config", "", "a JSON file of extra MCP servers for computer alpha (SMCP MCPServerConfig shape)")
	fs.StringVar(&opt.Resolver, "resolver", "http", "the DPE resolver: file, http or s3")
	fs.StringVar(&opt.APIKey, "api-key", "", "require this API key from clients; prefer the env var")
	bindEnv(fs, "api-key", "DPE_TUI_API_KEY")
	// The root's --a2c-version is the agent's (what it asks for); serve's
	// is what its server and computers speak.
	fs.StringVar(&a.g.A2CVersion, "a2c-version", "", "the A2C-SMCP version the server and its computers speak ("+protocol.SpokenVersions+
		"); an agent of another line is refused with 4008 naming it (default: "+protocol.Version+")")
	bindEnv(fs, "a2c-version", "DPE_TUI_A2C_VERSION")
	fs.IntVar(&opt.BenchResources, "bench-resources", 0, "add server \"bench\" to alpha with N generated resources (performance runs)")
	fs.IntVar(&opt.BenchPageSize, "bench-page-size", 100, "cursor page size of the bench server")
	fs.IntVar(&opt.MaxPendingPerAgent, "max-pending", 256, "routed requests one agent may have waiting for a computer; more are refused at once (403)")
	fs.DurationVar(&opt.MaxRequestTimeout, "max-request-timeout", 120*time.Second, "largest per-request timeout a client may ask for; larger ones are lowered to it")
	fs.Int64Var(&opt.MaxMessageBytes, "max-message-bytes", 64<<20, "largest engine.io message accepted; a connection sending more is closed")
	fs.StringVar(&opt.Redis, "redis", "", "redis://HOST:PORT/N: run as one node of a cluster sharing offices through Redis")
	bindEnv(fs, "redis", "DPE_TUI_REDIS")
	fs.StringVar(&opt.ClusterSecret, "cluster-secret", "", "with --redis: the secret every node shares, which seals and signs what they say through Redis; prefer the env var")
	bindEnv(fs, "cluster-secret", "DPE_TUI_CLUSTER_SECRET")
	fs.BoolVar(&opt.InsecureCluster, "insecure-cluster", false, "with --redis and no --cluster-secret: trust whatever Redis carries (anyone who can write to it commands every node)")
	fs.DurationVar(&opt.NodeTTL, "node-ttl", 10*time.Second, "with --redis: a node that stops heartbeating leaves every office within this (plus a third)")
	fs.BoolVar(&opt.NoComputers, "no-computers", false, "run only the server node, without the demo computers")
	f.budgets.define(fs)
	f.log.define(fs)
	f.checkS3 = addS3Flags(fs, &opt.S3)
	return cmd
}

func runServe(ctx context.Context, f *serveFlags, g *globalFlags, stdout, stderr io.Writer) error {
	opt := f.opt
	opt.Office = g.Office
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
	if err := f.budgets.check(); err != nil {
		return err
	}
	opt.ConvertTimeout, opt.FindTimeout, opt.FindMaxExpansion = f.budgets.convert, f.budgets.find, f.budgets.findTerms
	if err := checkSideVersion(g.A2CVersion); err != nil {
		return err
	}
	opt.A2CVersion = g.A2CVersion
	if err := checkListenAddr(opt.Addr); err != nil {
		return err
	}
	if opt.Redis != "" && !strings.HasPrefix(opt.Redis, "redis://") && !strings.HasPrefix(opt.Redis, "rediss://") {
		return usageErrorf("--redis must be a redis:// or rediss:// URL, not %q", opt.Redis)
	}
	if opt.Redis != "" && opt.ClusterSecret == "" && !opt.InsecureCluster {
		return usageErrorf("--redis needs --cluster-secret (or DPE_TUI_CLUSTER_SECRET), the same on every node; --insecure-cluster runs without one")
	}
	switch opt.Resolver {
	case "file", "http", "s3":
	default:
		return usageErrorf("--resolver must be file, http or s3, not %q", opt.Resolver)
	}
	if err := f.checkS3(opt.Resolver); err != nil {
		return err
	}
	log, closeLog, err := f.log.logger(g.LogFile, stderr, g.noColor())
	if err != nil {
		return err
	}
	defer closeLog()
	opt.Logger = log
	if w := serveExposureWarning(opt.Addr, opt.APIKey); w != "" {
		log.Warn(w, "addr", opt.Addr)
	}

	defer gcTarget(serveGCPercent, 0)()
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

// serveGCPercent is serve's GOGC. A server's heap is mostly what it holds
// for its whole life (the library's sources, their listing JSON, the
// computers' indexes: some 160 MB for 100,000 resources), and a listing
// allocates some 5 KB per resource on its way through server, computer
// and MCP server; at the default GOGC=100 the collector marks that whole
// live heap again every 300 pages or so, a third of serve's CPU on a
// 100,000-resource listing (docs/performance.md, P3). At 200 the heap may
// grow to three times what is live before a collection, and collections
// are half as many.
const serveGCPercent = 200

// gcTarget sets GOGC to pct and, when limit > 0, the soft memory limit to
// limit bytes, and returns the function that restores what it changed; a
// GOGC or GOMEMLIMIT the user set is left alone (nothing is changed).
func gcTarget(pct int, limit int64) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	oldPct := debug.SetGCPercent(pct)
	if limit <= 0 {
		return func() { debug.SetGCPercent(oldPct) }
	}
	oldLimit := debug.SetMemoryLimit(limit)
	return func() {
		debug.SetGCPercent(oldPct)
		debug.SetMemoryLimit(oldLimit)
	}
}

// checkSideVersion refuses an --a2c-version our server and computers do
// not speak (0.5.0 is spoken by the agent only); "" is the default.
func checkSideVersion(v string) error {
	if v == "" {
		return nil
	}
	if _, ok := protocol.Negotiate(v); !ok {
		return usageErrorf("--a2c-version %s: serve and computer speak A2C-SMCP %s", sanitize.Line(v), protocol.SpokenVersions)
	}
	return nil
}

// demoVersion is the version the embedded demo speaks for an agent that
// asked for v: v when the demo speaks its line, else the default (and the
// agent is refused with 4008, which names both).
func demoVersion(v string) string {
	if _, ok := protocol.Negotiate(v); ok {
		return v
	}
	return ""
}

// redactURL drops a password from a URL before it is printed.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// checkListenAddr refuses an --addr no listener could take, as a usage
// error before anything starts: host:port with a port number 0–65535.
func checkListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf("--addr %q: want host:port, e.g. 127.0.0.1:7800", sanitize.Line(addr))
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return usageErrorf("--addr %q: the port must be a number from 0 to 65535", sanitize.Line(addr))
	}
	return nil
}
