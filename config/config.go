// Package config reads dpe-tui's configuration file: named connection
// profiles in $XDG_CONFIG_HOME/dpe-tui/config.toml.
//
//	default = "work"
//
//	[profiles.work]
//	url = "https://smcp.example.com"   # or "a,b" or ["a", "b"]
//	office = "team"
//	name = "alice"                     # agent name
//	timeout = "45s"
//	api_key_cmd = "pass show smcp"     # or api_key_env = "SMCP_KEY"
//	remote = "https://dpe.example.com/r/1"  # a DPE v1 remote, and its credential:
//	remote_token_cmd = "pass show dpe"      # or remote_token_env = "DPE_TOKEN"
//
//	[keys]                             # the browser's keys (docs/keys.md)
//	preset = "vim"                     # or "less"
//	search = ["/", "ctrl+s"]
//
// A file is either accepted whole or refused with one *ParseError naming
// the file, the line and the key: a profile that is half understood would
// connect somewhere the user did not mean.
package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/adrg/xdg"

	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

const (
	// maxFileBytes bounds the file read: a config is a few hundred bytes,
	// and a mistaken path (a log, a device) must not be slurped whole.
	maxFileBytes = 1 << 20
	// maxKeyBytes bounds what api_key_cmd may print: a key is short, and a
	// command that streams must not grow memory without end.
	maxKeyBytes = 64 << 10
	// keyCmdTimeout bounds api_key_cmd: a password manager waiting for a
	// PIN that will never be typed must not hang the start-up.
	keyCmdTimeout = 10 * time.Second
)

// themes and imageModes are the accepted values of `theme` and `images`
// (functions, not variables: nothing at package level can be changed).
func themes() []string     { return []string{"dark", "light", "notty"} }
func imageModes() []string { return []string{"kitty", "sixel", "blocks", "off", "auto"} }

// DefaultPath is $XDG_CONFIG_HOME/dpe-tui/config.toml. The environment is
// read at each call (adrg/xdg reads it once at init), so a test or a
// wrapper that sets XDG_CONFIG_HOME is honoured; a relative value is
// ignored, as the XDG base directory spec says.
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		dir = xdg.ConfigHome
	}
	if dir == "" {
		return "", errors.New("config path: no XDG_CONFIG_HOME and no home directory")
	}
	return filepath.Join(dir, "dpe-tui", "config.toml"), nil
}

// File is a loaded configuration file.
type File struct {
	Path string // where it was read from (set even when the file is missing)

	def      string
	profiles map[string]Profile
	keys     Keys
	// keyLines are the lines of the [keys] entries, for errors the UI
	// finds in them (KeyError).
	keyLines map[string]int
}

// Keys is the [keys] table: a preset ("vim" or "less") and the actions
// bound to other keys (search = ["/", "ctrl+s"]). Which actions exist is
// the UI's to say (ui.CheckKeys); the file says only their shape.
type Keys struct {
	Preset string
	Bind   map[string][]string
}

// Keys is the file's [keys] table (zero: none).
func (f *File) Keys() Keys { return f.keys }

// KeyError is a refusal of the [keys] entry action (its line in the
// file), for what the UI finds wrong with it.
func (f *File) KeyError(action, msg string) *ParseError {
	k := "keys"
	if action != "" {
		k += "." + action
	}
	return &ParseError{File: f.Path, Line: f.keyLines[action], Key: k, Msg: msg}
}

// Profile is one [profiles.NAME] table. Empty strings and a nil Mouse mean
// "not set here": the caller's flags, environment and defaults decide.
type Profile struct {
	Name       string
	URLs       []string
	Office     string
	AgentName  string
	Path       string
	A2CVersion string
	Theme      string
	Images     string
	Mouse      *bool
	Timeout    time.Duration
	APIKey     string
	APIKeyEnv  string
	APIKeyCmd  string
	// TokenCmd prints the bearer token `mcp --http` requires of its
	// clients (run like api_key_cmd).
	TokenCmd string
	// Remote is a DPE v1 remote's URL; its bearer token comes from
	// RemoteTokenEnv or RemoteTokenCmd and is sent to it only.
	Remote         string
	RemoteTokenEnv string
	RemoteTokenCmd string
}

// ParseError is a refused configuration file. Error() is one line:
// "FILE:LINE: key KEY: reason" (LINE and KEY are left out when unknown).
type ParseError struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(sanitize.Line(e.File))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString("key ")
		b.WriteString(sanitize.Line(e.Key))
		b.WriteString(": ")
	}
	b.WriteString(sanitize.Line(e.Msg))
	return b.String()
}

// Load reads the file at path. A missing file is an empty *File (no
// profiles) and no error: having no config at the default path is the
// common case.
func Load(path string) (*File, error) { return load(path, false) }

// LoadExisting is Load for a file the user named (--config): a name that
// is not there is a mistake to report, not an empty configuration.
func LoadExisting(path string) (*File, error) { return load(path, true) }

func load(path string, mustExist bool) (*File, error) {
	f := &File{Path: path, profiles: map[string]Profile{}}
	// The one local-file rule: opening a FIFO would wait for a writer, and
	// a symlink into /proc reads as live kernel state.
	fh, st, err := localfile.Open(path, localfile.Options{})
	var refused *localfile.Refusal
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if mustExist {
			return nil, &ParseError{File: path, Msg: "no such file"}
		}
		return f, nil
	case errors.As(err, &refused):
		return nil, &ParseError{File: path, Msg: refused.Reason()}
	case err != nil:
		return nil, fmt.Errorf("config: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if len(data) > maxFileBytes {
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("larger than %d KiB", maxFileBytes>>10)}
	}
	p := parser{file: path, text: string(data)}
	if err := p.parse(f); err != nil {
		return nil, err
	}
	// A file others can write could make us run anything: its commands
	// are refused, as ssh's StrictModes refuses such a file, before any runs.
	if perm := st.Mode().Perm(); perm&0o022 != 0 {
		for _, name := range f.Names() {
			pr := f.profiles[name]
			key := ""
			switch {
			case pr.APIKeyCmd != "":
				key = "api_key_cmd"
			case pr.TokenCmd != "":
				key = "token_cmd"
			case pr.RemoteTokenCmd != "":
				key = "remote_token_cmd"
			default:
				continue
			}
			k := toml.Key{"profiles", name, key}
			return nil, &ParseError{File: path, Line: p.line(k), Key: k.String(), Msg: fmt.Sprintf(
				"a command is refused in a file writable by group or others (mode %04o); chmod go-w %s", perm, path)}
		}
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		for _, name := range f.Names() {
			if f.profiles[name].APIKey == "" {
				continue
			}
			k := toml.Key{"profiles", name, "api_key"}
			return nil, &ParseError{File: path, Line: p.line(k), Key: k.String(), Msg: fmt.Sprintf(
				"a literal key is refused in a file readable by group or others (mode %04o); chmod 600 %s, or use api_key_env or api_key_cmd",
				perm, path)}
		}
	}
	return f, nil
}

// Names are the profile names, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.profiles))
	for n := range f.profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Default is the file's `default` profile name, "" when it names none.
// Load has checked that it names a profile of the file.
func (f *File) Default() string { return f.def }

// Lookup returns the named profile; an unknown name is an error that lists
// the known ones.
func (f *File) Lookup(name string) (Profile, error) {
	if p, ok := f.profiles[name]; ok {
		return p, nil
	}
	names := f.Names()
	if len(names) == 0 {
		return Profile{}, fmt.Errorf("profile %q: %s has no profiles", sanitize.Line(name), sanitize.Line(f.Path))
	}
	for i, n := range names {
		names[i] = sanitize.Line(n)
	}
	return Profile{}, fmt.Errorf("profile %q is not in %s (known: %s)",
		sanitize.Line(name), sanitize.Line(f.Path), strings.Join(names, ", "))
}

// maskedProfile is the shape WriteMasked prints, in the order of the file
// format's documentation.
type maskedProfile struct {
	URL            any    `toml:"url,omitempty"`
	Office         string `toml:"office,omitempty"`
	Name           string `toml:"name,omitempty"`
	Path           string `toml:"path,omitempty"`
	A2CVersion     string `toml:"a2c_version,omitempty"`
	Theme          string `toml:"theme,omitempty"`
	Images         string `toml:"images,omitempty"`
	Mouse          *bool  `toml:"mouse,omitempty"`
	Timeout        string `toml:"timeout,omitempty"`
	APIKey         string `toml:"api_key,omitempty"`
	APIKeyEnv      string `toml:"api_key_env,omitempty"`
	APIKeyCmd      string `toml:"api_key_cmd,omitempty"`
	TokenCmd       string `toml:"token_cmd,omitempty"`
	Remote         string `toml:"remote,omitempty"`
	RemoteTokenEnv string `toml:"remote_token_env,omitempty"`
	RemoteTokenCmd string `toml:"remote_token_cmd,omitempty"`
}

// WriteMasked writes the file's profiles as TOML with a literal api_key
// shown as "****" and URLs without their userinfo and query values
// (sanitize.URL); api_key_env (a variable's name) and api_key_cmd (a
// command) are not secrets and are shown as they are. Strings are
// sanitized: this is for a terminal.
func (f *File) WriteMasked(w io.Writer) error {
	type doc struct {
		Default  string                   `toml:"default,omitempty"`
		Profiles map[string]maskedProfile `toml:"profiles"`
	}
	d := doc{Default: sanitize.Line(f.def), Profiles: map[string]maskedProfile{}}
	s := sanitize.Line
	for name, p := range f.profiles {
		m := maskedProfile{
			Office: s(p.Office), Name: s(p.AgentName), Path: s(p.Path), A2CVersion: s(p.A2CVersion),
			Theme: p.Theme, Images: p.Images, Mouse: p.Mouse,
			APIKeyEnv: s(p.APIKeyEnv), APIKeyCmd: s(p.APIKeyCmd), TokenCmd: s(p.TokenCmd),
			Remote: s(sanitize.URL(p.Remote)), RemoteTokenEnv: s(p.RemoteTokenEnv), RemoteTokenCmd: s(p.RemoteTokenCmd),
		}
		switch len(p.URLs) {
		case 0:
		case 1:
			m.URL = s(sanitize.URL(p.URLs[0]))
		default:
			urls := make([]string, len(p.URLs))
			for i, u := range p.URLs {
				urls[i] = s(sanitize.URL(u))
			}
			m.URL = urls
		}
		if p.Timeout > 0 {
			m.Timeout = p.Timeout.String()
		}
		if p.APIKey != "" {
			m.APIKey = "****"
		}
		d.Profiles[s(name)] = m
	}
	if len(d.Profiles) == 0 {
		d.Profiles = nil
	}
	var buf bytes.Buffer
	if d.Profiles == nil {
		// An empty output would leave the reader wondering what was read.
		fmt.Fprintf(&buf, "# %s: no profiles\n", s(f.Path))
	}
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(d); err != nil {
		return fmt.Errorf("config show: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// ResolveAPIKey returns the profile's API key: the literal api_key, else
// the variable named by api_key_env, else the stdout of api_key_cmd run by
// `sh -c` (at most 10 s under ctx, at most 64 KiB, its trailing newline
// trimmed). "" and no error when the profile sets none.
func (p Profile) ResolveAPIKey(ctx context.Context) (string, error) {
	if p.APIKey != "" {
		return p.APIKey, nil
	}
	return p.secret(ctx, "api_key", p.APIKeyEnv, p.APIKeyCmd)
}

// ResolveRemoteToken is ResolveAPIKey for the DPE v1 remote's token:
// remote_token_env, else remote_token_cmd (same bounds); "" when neither.
func (p Profile) ResolveRemoteToken(ctx context.Context) (string, error) {
	return p.secret(ctx, "remote_token", p.RemoteTokenEnv, p.RemoteTokenCmd)
}

// secret reads a credential from the variable env, else from the stdout
// of cmdline; key names the pair in messages (key_env, key_cmd).
func (p Profile) secret(ctx context.Context, key, env, cmdline string) (string, error) {
	switch {
	case env != "":
		v, ok := os.LookupEnv(env)
		if !ok {
			return "", fmt.Errorf("profile %s: %s_env: variable %s is not set",
				sanitize.Line(p.Name), key, sanitize.Line(env))
		}
		if v == "" {
			return "", fmt.Errorf("profile %s: %s_env: variable %s is empty",
				sanitize.Line(p.Name), key, sanitize.Line(env))
		}
		return v, nil
	case cmdline != "":
		return p.runKeyCmd(ctx, key+"_cmd", cmdline)
	}
	return "", nil
}

// ResolveToken is the stdout of token_cmd, run as api_key_cmd is; "" and
// no error when the profile sets none.
func (p Profile) ResolveToken(ctx context.Context) (string, error) {
	if p.TokenCmd == "" {
		return "", nil
	}
	return p.runKeyCmd(ctx, "token_cmd", p.TokenCmd)
}

func (p Profile) runKeyCmd(ctx context.Context, what, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, keyCmdTimeout)
	defer cancel()
	fail := func(format string, a ...any) error {
		return fmt.Errorf("profile %s: %s: %s", sanitize.Line(p.Name), what, fmt.Sprintf(format, a...))
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	// Past the cap the command is stopped at once: a command that streams
	// (`yes`) would otherwise run for the whole timeout.
	stdout := &capped{max: maxKeyBytes, over: cancel}
	stderr := &capped{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	inOwnGroup(cmd)
	// A grandchild that keeps the pipes open after sh is gone must not
	// keep Wait waiting.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) || ctx.Err() != nil {
		// sh ended (or was killed) but something it started still holds
		// the pipes: it is still in the group, so the group is there.
		_ = killGroup(cmd)
	}
	switch {
	case stdout.wasOver:
		return "", fail("printed more than %d KiB", maxKeyBytes>>10)
	case ctx.Err() != nil:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fail("no answer within %s", keyCmdTimeout)
		}
		return "", fail("%v", ctx.Err())
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if line := firstLine(stderr.buf.String()); line != "" {
				return "", fail("%s: %s", ee.ProcessState, sanitize.Line(line))
			}
			return "", fail("%s", ee.ProcessState)
		}
		return "", fail("%v", err)
	}
	out := strings.TrimSuffix(stdout.buf.String(), "\n")
	out = strings.TrimSuffix(out, "\r")
	if out == "" {
		return "", fail("printed nothing")
	}
	return out, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// capped keeps the first max bytes written to it and notes that more came
// (calling over, when set, the first time); it never fails a write, so the
// child is not killed by SIGPIPE halfway.
type capped struct {
	buf     bytes.Buffer
	max     int
	over    func()
	wasOver bool
}

func (c *capped) Write(b []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(b) {
		if !c.wasOver && c.over != nil {
			c.over()
		}
		c.wasOver = true
		c.buf.Write(b[:max(room, 0)])
		return len(b), nil
	}
	c.buf.Write(b)
	return len(b), nil
}

// parser turns the decoded TOML into profiles, checking every key and type
// itself: the toml package's own type errors are free text, and ours must
// name the key.
type parser struct {
	file string
	text string
}

func (p *parser) errAt(k toml.Key, format string, a ...any) *ParseError {
	return &ParseError{File: p.file, Line: p.line(k), Key: k.String(), Msg: fmt.Sprintf(format, a...)}
}

func (p *parser) parse(f *File) error {
	var raw map[string]any
	if _, err := toml.Decode(p.text, &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line := pe.Position.Line
			// The toml package counts a newline it did not expect as the
			// start of the next line; the mistake is on the line it ends.
			if st := pe.Position.Start; st >= 0 && st < len(p.text) && pe.Position.Len <= 1 {
				line = 1 + strings.Count(p.text[:st], "\n")
			}
			if key, ok := duplicateKey(pe.Message); ok {
				// The toml package's wording names the key in quotes and
				// its position is that of the second definition.
				return &ParseError{File: p.file, Line: pe.Position.Line, Key: key,
					Msg: "defined twice (each table and key may appear once)"}
			}
			return &ParseError{File: p.file, Line: line, Key: pe.LastKey, Msg: pe.Message}
		}
		return &ParseError{File: p.file, Msg: err.Error()}
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		switch k {
		case "default":
			s, ok := v.(string)
			if !ok {
				return p.errAt(toml.Key{k}, "want a string (a profile name), have %s", typeName(v))
			}
			f.def = s
		case "profiles":
			tab, ok := v.(map[string]any)
			if !ok {
				return p.errAt(toml.Key{k}, "want tables [profiles.NAME], have %s", typeName(v))
			}
			for _, name := range slices.Sorted(maps.Keys(tab)) {
				prof, err := p.profile(name, tab[name])
				if err != nil {
					return err
				}
				f.profiles[name] = prof
			}
		case "keys":
			if err := p.keys(f, v); err != nil {
				return err
			}
		case "preset":
			// The key set's preset, written above the table it belongs
			// to: say where it goes.
			return p.errAt(toml.Key{k}, "unknown key here: preset belongs in [keys] (write [keys] on the line above it)")
		default:
			return p.errAt(toml.Key{k}, "unknown key (the file has `default`, [profiles.NAME] tables and [keys])")
		}
	}
	if f.def != "" {
		if _, ok := f.profiles[f.def]; !ok {
			return p.errAt(toml.Key{"default"}, "names profile %q, which the file does not define", f.def)
		}
	}
	return nil
}

func (p *parser) profile(name string, v any) (Profile, error) {
	base := toml.Key{"profiles", name}
	tab, ok := v.(map[string]any)
	if !ok {
		return Profile{}, p.errAt(base, "want a table [profiles.%s], have %s", name, typeName(v))
	}
	if strings.TrimSpace(name) == "" {
		return Profile{}, p.errAt(base, "a profile needs a non-blank name")
	}
	prof := Profile{Name: name}
	for _, k := range slices.Sorted(maps.Keys(tab)) {
		key := append(slices.Clone(base), k)
		v := tab[k]
		str := func(dst *string) error {
			s, ok := v.(string)
			if !ok {
				return p.errAt(key, "want a string, have %s", typeName(v))
			}
			*dst = s
			return nil
		}
		var err error
		switch k {
		case "url":
			prof.URLs, err = p.urls(key, v)
		case "office":
			err = str(&prof.Office)
		case "name":
			err = str(&prof.AgentName)
		case "path":
			err = str(&prof.Path)
		case "a2c_version":
			if err = str(&prof.A2CVersion); err == nil {
				if protocol.Speakable(prof.A2CVersion) != nil {
					err = p.errAt(key, "%q: dpe-tui speaks A2C-SMCP %s", prof.A2CVersion, protocol.ExplicitVersions)
				}
			}
		case "theme":
			if err = str(&prof.Theme); err == nil && !slices.Contains(themes(), prof.Theme) {
				err = p.errAt(key, "%q is not one of %s", prof.Theme, strings.Join(themes(), ", "))
			}
		case "images":
			if err = str(&prof.Images); err == nil && !slices.Contains(imageModes(), prof.Images) {
				err = p.errAt(key, "%q is not one of %s", prof.Images, strings.Join(imageModes(), ", "))
			}
		case "mouse":
			b, ok := v.(bool)
			if !ok {
				err = p.errAt(key, "want true or false, have %s", typeName(v))
			} else {
				prof.Mouse = &b
			}
		case "timeout":
			var s string
			if err = str(&s); err == nil {
				d, perr := time.ParseDuration(s)
				switch {
				case perr != nil:
					err = p.errAt(key, "%q is not a duration (e.g. \"30s\", \"2m\")", s)
				case d <= 0:
					err = p.errAt(key, "%q: want a positive duration", s)
				default:
					prof.Timeout = d
				}
			}
		case "api_key":
			err = str(&prof.APIKey)
		case "api_key_env":
			err = str(&prof.APIKeyEnv)
		case "api_key_cmd":
			err = str(&prof.APIKeyCmd)
		case "token_cmd":
			err = str(&prof.TokenCmd)
		case "remote":
			err = str(&prof.Remote)
		case "remote_token_env":
			err = str(&prof.RemoteTokenEnv)
		case "remote_token_cmd":
			err = str(&prof.RemoteTokenCmd)
		default:
			err = p.errAt(key, "unknown key")
		}
		if err != nil {
			return Profile{}, err
		}
	}
	set := 0
	for _, s := range []string{prof.APIKey, prof.APIKeyEnv, prof.APIKeyCmd} {
		if s != "" {
			set++
		}
	}
	if set > 1 {
		k := append(slices.Clone(base), "api_key_cmd")
		if prof.APIKeyCmd == "" {
			k[2] = "api_key_env"
		}
		return Profile{}, p.errAt(k, "set one of api_key, api_key_env, api_key_cmd, not several")
	}
	if prof.RemoteTokenEnv != "" && prof.RemoteTokenCmd != "" {
		return Profile{}, p.errAt(append(slices.Clone(base), "remote_token_cmd"), "set one of remote_token_env, remote_token_cmd, not both")
	}
	return prof, nil
}

// urls accepts "u", "u1,u2" or ["u1", "u2"].
func (p *parser) urls(key toml.Key, v any) ([]string, error) {
	var parts []string
	switch v := v.(type) {
	case string:
		parts = strings.Split(v, ",")
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, p.errAt(key, "want strings in the array, have %s", typeName(e))
			}
			parts = append(parts, s)
		}
	default:
		return nil, p.errAt(key, "want a string or an array of strings, have %s", typeName(v))
	}
	var out []string
	for _, s := range parts {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, p.errAt(key, "%q is not a URL like http://host:port", s)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, p.errAt(key, "no URL given")
	}
	return out, nil
}

// duplicateKey reads the key out of the toml package's "Key 'K' has
// already been defined." message.
func duplicateKey(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, "Key '")
	if !ok {
		return "", false
	}
	key, ok := strings.CutSuffix(strings.TrimSuffix(rest, "."), "' has already been defined")
	return key, ok && key != ""
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date-time"
	}
	return fmt.Sprintf("%T", v)
}

// presets are the accepted values of keys.preset.
func presets() []string { return []string{"vim", "less"} }

// keys reads [keys]: preset, and each action's key or keys.
func (p *parser) keys(f *File, v any) error {
	tab, ok := v.(map[string]any)
	if !ok {
		return p.errAt(toml.Key{"keys"}, "want a table [keys], have %s", typeName(v))
	}
	f.keys = Keys{Bind: map[string][]string{}}
	f.keyLines = map[string]int{"": p.line(toml.Key{"keys"})}
	for _, action := range slices.Sorted(maps.Keys(tab)) {
		k := toml.Key{"keys", action}
		f.keyLines[action] = p.line(k)
		if action == "preset" {
			s, ok := tab[action].(string)
			if !ok || !slices.Contains(presets(), s) {
				return p.errAt(k, "want %s, have %v", strings.Join(presets(), " or "), tab[action])
			}
			f.keys.Preset = s
			continue
		}
		var keys []string
		switch x := tab[action].(type) {
		case string:
			keys = []string{x}
		case []any:
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return p.errAt(k, "want key names (strings), have %s", typeName(e))
				}
				keys = append(keys, s)
			}
		default:
			return p.errAt(k, "want a key or a list of keys (\"/\" or [\"/\", \"ctrl+s\"]), have %s", typeName(x))
		}
		if len(keys) == 0 || slices.Contains(keys, "") {
			return p.errAt(k, "a key name is empty")
		}
		f.keys.Bind[action] = keys
	}
	return nil
}
