package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/config"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// globalFlags are accepted by every command that talks to a server. They
// are persistent flags of the root command, so they go before or after the
// subcommand. Each has an environment variable so that secrets (the API
// key) need not appear on the command line, where other users can read
// them in process listings.
type globalFlags struct {
	URL          string   // the first of URLs: the server tried first
	URLs         []string // --url, repeated or comma-separated (failover)
	Office       string
	Name         string
	APIKey       string
	Timeout      timeout
	Path         string // engine.io path; "" = the URL's path, else /socket.io/
	A2CVersion   string // forced A2C-SMCP version; "" = negotiate
	Insecure     bool
	LogFile      string
	AllowFile    string // "", "1" (anywhere) or a root directory
	allowFileSet bool
	MaxAck       byteSize
	Embedded     embeddedFlags // --mcp-config, --docs (embedded.go)
	Theme        string
	NoColor      bool
	Profile      string
	ConfigFile   string
	// keyFrom is the profile whose api_key_env / api_key_cmd gives the
	// key when neither --api-key nor DPE_TUI_API_KEY did.
	keyFrom *config.Profile
	// configErr is why the config file or profile could not be used;
	// returned by configReady when a command connects.
	configErr error
	// urlProfile names the profile that set the URL (no --url or
	// DPE_TUI_URL did), for errors that would otherwise blame --url.
	urlProfile string
}

// annEnv is the pflag annotation naming a flag's environment variable.
const annEnv = "dpe-tui/env"

// bindEnv ties flag name of fs to the environment variable env and says so
// in its help. applyEnv reads it; this is the one place the pair is named.
func bindEnv(fs *pflag.FlagSet, name, env string) {
	fl := fs.Lookup(name)
	fl.Usage += " (env " + env + ")"
	_ = fs.SetAnnotation(name, annEnv, []string{env})
}

// applyEnv sets every flag of fs that was not given on the command line
// from its environment variable. A value the flag cannot parse is a usage
// error naming the variable (the value is not echoed: it may be a key).
// The flag is not marked Changed: "given on the command line" stays
// distinguishable (s3 flags without --resolver s3 are refused only then).
func applyEnv(fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(fl *pflag.Flag) {
		env := fl.Annotations[annEnv]
		if err != nil || fl.Changed || len(env) == 0 {
			return
		}
		v, ok := os.LookupEnv(env[0])
		if !ok || v == "" {
			return
		}
		if serr := fl.Value.Set(v); serr != nil {
			err = usageErrorf("%s: invalid value for --%s: %s", env[0], fl.Name, plainCause(v, serr))
		}
	})
	return err
}

// envSet reports whether the environment variable of flag fl is set.
func envSet(fl *pflag.Flag) bool {
	env := fl.Annotations[annEnv]
	return len(env) > 0 && os.Getenv(env[0]) != ""
}

// flagError turns pflag's errors into one plain line: "--page: want a
// whole number, got "abc"", not Go's strconv wording.
func flagError(err error) error {
	var ive *pflag.InvalidValueError
	if errors.As(err, &ive) && ive.GetFlag() != nil {
		return usageErrorf("--%s: %s", ive.GetFlag().Name, plainCause(ive.GetValue(), errors.Unwrap(ive)))
	}
	return usageErrorf("%v", err)
}

// plainCause says why value was refused in words a user knows.
func plainCause(value string, err error) string {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		v := sanitize.Line(value)
		if errors.Is(ne.Err, strconv.ErrRange) {
			return fmt.Sprintf("%q is out of range", v)
		}
		switch ne.Func {
		case "ParseBool":
			return fmt.Sprintf("want true or false, got %q", v)
		case "ParseFloat":
			return fmt.Sprintf("want a number, got %q", v)
		default:
			return fmt.Sprintf("want a whole number, got %q", v)
		}
	}
	if err == nil {
		return fmt.Sprintf("%q is not valid", sanitize.Line(value))
	}
	return cause(err)
}

// cause is the last part of a pflag error: "invalid argument "x" for
// "--timeout" flag: time: invalid duration "x"" names the flag again.
func cause(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, " flag: "); i >= 0 {
		return s[i+len(" flag: "):]
	}
	return s
}

// timeout is a duration flag that also takes a bare number of seconds
// ("30"), which DPE_TUI_TIMEOUT has always accepted.
type timeout time.Duration

func (t *timeout) String() string { return time.Duration(*t).String() }
func (t *timeout) Type() string   { return "duration" }
func (t *timeout) Set(s string) error {
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return fmt.Errorf("must be positive, not %s", d)
		}
		*t = timeout(d)
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return fmt.Errorf("%q: want a positive duration such as 30s or 2m", s)
	}
	*t = timeout(time.Duration(n) * time.Second)
	return nil
}

// byteSize is a flag value in bytes: 67108864, 64MiB, 64M, 512KiB.
type byteSize int64

// String is the largest whole unit (64MiB, not 67108864): help shows the
// default this way, and Set reads it back.
func (b *byteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.m && n%u.m == 0 {
			return strconv.FormatInt(n/u.m, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
func (b *byteSize) Type() string { return "size" }

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

// register defines the global flags, once, as persistent flags of root.
func (g *globalFlags) register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&g.URLs, "url", nil, "Server URL (A2C-SMCP), e.g. http://127.0.0.1:7800; repeat or comma-separate for failover (default: embedded demo)")
	bindEnv(fs, "url", "DPE_TUI_URL")
	fs.StringVar(&g.Office, "office", "demo", "office to join")
	bindEnv(fs, "office", "DPE_TUI_OFFICE")
	fs.StringVar(&g.Name, "name", "dpe-tui", "agent name")
	bindEnv(fs, "name", "DPE_TUI_NAME")
	fs.StringVar(&g.APIKey, "api-key", "", "The API key, sent as x-api-key; prefer the env var or a profile's api_key_cmd")
	bindEnv(fs, "api-key", "DPE_TUI_API_KEY")
	g.Timeout = timeout(30 * time.Second)
	fs.Var(&g.Timeout, "timeout", "timeout of each request and of connecting, e.g. 30s")
	bindEnv(fs, "timeout", "DPE_TUI_TIMEOUT")
	fs.StringVar(&g.Path, "path", "", "the engine.io path of the server (default: the path of --url, else /socket.io/)")
	bindEnv(fs, "path", "DPE_TUI_PATH")
	fs.StringVar(&g.A2CVersion, "a2c-version", "", "force this A2C-SMCP version, e.g. 0.3.0 (default: 0.2.0, or what the server's 4008 names)")
	bindEnv(fs, "a2c-version", "DPE_TUI_A2C_VERSION")
	fs.BoolVar(&g.Insecure, "insecure", false, "skip TLS verification (development only)")
	fs.StringVar(&g.LogFile, "log", "", "write a debug log to FILE")
	bindEnv(fs, "log", "DPE_TUI_LOG")
	g.MaxAck = byteSize(client.DefaultMaxAckBytes)
	fs.Var(&g.MaxAck, "max-ack", "refuse any answer from the server larger than this, before reading it, e.g. 64MiB")
	bindEnv(fs, "max-ack", "DPE_TUI_MAX_ACK")
	fs.StringVar(&g.AllowFile, "allow-file-uri", "", "accept file:// access URIs from any computer, or with =ROOT only under ROOT (default: only from computers dpe-tui started)")
	fs.Lookup("allow-file-uri").NoOptDefVal = "1"
	g.Embedded.register(fs)
	fs.StringVar(&g.Theme, "theme", "", "colours: dark, light or notty (default: from the terminal background)")
	bindEnv(fs, "theme", "DPE_TUI_THEME")
	fs.BoolVar(&g.NoColor, "no-color", false, "no colours anywhere (also when env NO_COLOR is set)")
	fs.StringVar(&g.Profile, "profile", "", "use this profile of the config file")
	bindEnv(fs, "profile", "DPE_TUI_PROFILE")
	fs.StringVar(&g.ConfigFile, "config", "", "config file (default: $XDG_CONFIG_HOME/dpe-tui/config.toml)")
	bindEnv(fs, "config", "DPE_TUI_CONFIG")
}

// finish completes the global flags after parsing: the first URL, the
// file:// grant, and the checks every command needs.
func (g *globalFlags) finish(cmd *cobra.Command) error {
	if err := g.finishURLs(); err != nil {
		// A URL from DPE_TUI_URL names the variable: the command line
		// has no --url to fix.
		if fl := cmd.Flags().Lookup("url"); fl != nil && !fl.Changed && envSet(fl) {
			var ue *usageError
			if errors.As(err, &ue) {
				return usageErrorf("%s: %s", fl.Annotations[annEnv][0], ue.msg)
			}
		}
		return err
	}
	if fl := cmd.Flags().Lookup("allow-file-uri"); fl != nil {
		g.allowFileSet = fl.Changed
	}
	if strings.TrimSpace(g.Office) == "" {
		return usageErrorf("--office must not be empty")
	}
	if err := checkFileRoot(g.AllowFile); err != nil {
		return err
	}
	switch g.Theme {
	case "", "dark", "light", "notty":
	default:
		return usageErrorf("--theme must be dark, light or notty, not %q", sanitize.Line(g.Theme))
	}
	return nil
}

// checkFileRoot: --allow-file-uri=ROOT names an absolute directory that
// exists ("" and "1" are no grant and anywhere). A relative or missing
// root would silently grant nothing, or something else later.
func checkFileRoot(root string) error {
	if root == "" || root == "1" {
		return nil
	}
	if !filepath.IsAbs(root) {
		return usageErrorf("--allow-file-uri=%q: the root must be an absolute directory", sanitize.Line(root))
	}
	st, err := os.Stat(root)
	if err != nil || !st.IsDir() {
		return usageErrorf("--allow-file-uri=%q: not an existing directory", sanitize.Line(root))
	}
	return nil
}

// finishURLs drops empty --url entries, checks the others and makes the
// first one URL.
func (g *globalFlags) finishURLs() error {
	var urls []string
	for _, u := range g.URLs {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	g.URLs = urls
	g.URL = ""
	if len(urls) > 0 {
		g.URL = urls[0]
	}
	for _, u := range urls {
		if err := checkServerURL(u); err != nil {
			return err
		}
	}
	return nil
}

// checkServerURL accepts what the client can dial: http, https, ws or
// wss with a host.
func checkServerURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return usageErrorf("--url %q: want a URL such as http://127.0.0.1:7800", sanitize.Line(sanitize.URL(s)))
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ws", "wss":
		return nil
	}
	return usageErrorf("--url %q: the scheme must be http, https, ws or wss", sanitize.Line(sanitize.URL(s)))
}

// noColor: --no-color, NO_COLOR (any value, per no-color.org) or
// --theme notty.
func (g *globalFlags) noColor() bool {
	return g.NoColor || os.Getenv("NO_COLOR") != "" || g.Theme == "notty"
}

// apiKey reads the key from the flag (or its env var, or the profile).
func (g *globalFlags) apiKey() string { return g.APIKey }

func (g *globalFlags) validate() error {
	if g.A2CVersion != "" {
		if err := protocol.Speakable(g.A2CVersion); err != nil {
			return usageErrorf("--a2c-version %q: dpe-tui speaks A2C-SMCP %s", g.A2CVersion, protocol.ExplicitVersions)
		}
	}
	if g.Timeout <= 0 {
		return usageErrorf("--timeout must be positive")
	}
	return g.Embedded.validate(g.URL, g.urlProfile)
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
