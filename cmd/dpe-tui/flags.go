package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// globalFlags are accepted by every command that talks to a server. Each
// has an environment variable so that secrets (the API key) need not appear
// on the command line, where other users can read them in process listings.
type globalFlags struct {
	URL          string
	Office       string
	Name         string
	APIKey       string
	Timeout      time.Duration
	Path         string // engine.io path; "" = the URL's path, else /socket.io/
	A2CVersion   string // forced A2C-SMCP version; "" = negotiate
	Insecure     bool
	LogFile      string
	AllowFile    string // "", "1" (anywhere) or a root directory
	allowFileSet bool
	MaxAck       byteSize
	Embedded     embeddedFlags // --mcp-config, --docs (embedded.go)
}

// byteSize is a flag value in bytes: 67108864, 64MiB, 64M, 512KiB.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, optionally with KiB, MiB or GiB", s)
	}
	return n * mult, nil
}

func envOr(key, def string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return def
}

func envDuration(key string, def time.Duration) time.Duration {
	if v := os.Getenv(key); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
		if n, err := strconv.Atoi(v); err == nil {
			return time.Duration(n) * time.Second
		}
	}
	return def
}

func (g *globalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.URL, "url", envOr("DPE_TUI_URL", ""), "SMCP server URL, e.g. http://127.0.0.1:7800 (env DPE_TUI_URL; empty: embedded demo)")
	fs.StringVar(&g.Office, "office", envOr("DPE_TUI_OFFICE", "demo"), "office to join (env DPE_TUI_OFFICE)")
	fs.StringVar(&g.Name, "name", envOr("DPE_TUI_NAME", "dpe-tui"), "agent name (env DPE_TUI_NAME)")
	fs.StringVar(&g.APIKey, "api-key", "", "API key sent as x-api-key; prefer env DPE_TUI_API_KEY")
	fs.DurationVar(&g.Timeout, "timeout", envDuration("DPE_TUI_TIMEOUT", 30*time.Second), "per-request timeout (env DPE_TUI_TIMEOUT)")
	fs.StringVar(&g.Path, "path", envOr("DPE_TUI_PATH", ""), "engine.io path of the server (env DPE_TUI_PATH; default: the path of --url, else /socket.io/)")
	fs.StringVar(&g.A2CVersion, "a2c-version", envOr("DPE_TUI_A2C_VERSION", ""), "force this A2C-SMCP version, e.g. 0.3.0 (env DPE_TUI_A2C_VERSION; default: 0.2.0, or what the server's 4008 names)")
	fs.BoolVar(&g.Insecure, "insecure", false, "skip TLS verification (development only)")
	fs.StringVar(&g.LogFile, "log", envOr("DPE_TUI_LOG", ""), "write a debug log to FILE (env DPE_TUI_LOG)")
	g.MaxAck = byteSize(client.DefaultMaxAckBytes)
	if v := os.Getenv("DPE_TUI_MAX_ACK"); v != "" {
		if n, err := parseByteSize(v); err == nil {
			g.MaxAck = byteSize(n)
		}
	}
	g.Embedded.register(fs)
	fs.Var(&g.MaxAck, "max-ack", "refuse any answer from the server larger than this, before reading it (env DPE_TUI_MAX_ACK; default 64MiB)")
	fs.Func("allow-file-uri", "accept file:// access URIs from any computer, optionally only under ROOT (--allow-file-uri[=ROOT]); without it only from computers dpe-tui started", func(s string) error {
		g.allowFileSet = true
		g.AllowFile = s
		return nil
	})
	// A bare --allow-file-uri must work too; flag.Func needs a value, so
	// this is rewritten in normalizeArgs.
}

// apiKey reads the key from the flag, else the environment.
func (g *globalFlags) apiKey() string {
	if g.APIKey != "" {
		return g.APIKey
	}
	return os.Getenv("DPE_TUI_API_KEY")
}

func (g *globalFlags) validate() error {
	if g.A2CVersion != "" {
		if _, ok := protocol.Negotiate(g.A2CVersion); !ok {
			return usageErrorf("--a2c-version %q: dpe-tui speaks A2C-SMCP %s", g.A2CVersion, protocol.SpokenVersions)
		}
	}
	if g.Timeout <= 0 {
		return usageErrorf("--timeout must be positive")
	}
	return g.Embedded.validate(g.URL)
}

// logger writes to --log FILE, or nowhere: a TUI must not write logs onto
// its own screen.
func (g *globalFlags) logger() (*slog.Logger, func(), error) {
	if g.LogFile == "" {
		return slog.New(slog.NewTextHandler(io.Discard, nil)), func() {}, nil
	}
	f, err := os.OpenFile(g.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open log file: %w", err)
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})), func() { f.Close() }, nil
}

// normalizeArgs turns a bare --allow-file-uri into --allow-file-uri=1.
func normalizeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if a == "--allow-file-uri" || a == "-allow-file-uri" {
			a = "--allow-file-uri=1"
		}
		out = append(out, a)
	}
	return out
}

// parseFlags parses with interspersed positionals allowed: `get URI --page 2`.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	args = normalizeArgs(args)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, usageErrorf("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
