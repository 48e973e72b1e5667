package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/config"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// profileState is the config file of one run and the profile chosen.
type profileState struct {
	file *config.File
	name string // "" when no profile applies
	// fixed are the flags given on the command line or by their
	// environment variable: a profile never overrides them (flags > env
	// > profile > defaults), also when the TUI switches profiles.
	fixed map[string]bool
	// base is the global flags before any profile was applied.
	base  globalFlags
	tbase tuiFlags
	// explicit: the file was named by --config or DPE_TUI_CONFIG, so it
	// must exist each time it is read.
	explicit bool
	// defOffice and defName are the flags' own defaults: what a profile
	// switched to gets where it sets nothing.
	defOffice, defName string
}

// loadProfile reads the config file (--config, else the default path)
// and applies the chosen profile (--profile, else the file's default) to
// every flag that is not fixed. A malformed file or an unknown profile is
// a usage error (one line naming the file, line and key), but only for a
// command that connects: it is kept in the flags and returned when a
// connection is made (configReady), so `get FILE`, `check FILE` and the
// like work whatever the file holds.
//
// A profile's key is for that profile's servers only: when --url or
// DPE_TUI_URL names the server and no profile was asked for, the file's
// default profile is not applied at all; when one was asked for but the
// URL is not one of its own, all of it applies but its key.
func (a *app) loadProfile(cmd *cobra.Command) error {
	path := a.g.ConfigFile
	explicit := path != ""
	if !explicit {
		p, err := config.DefaultPath()
		if err != nil {
			if a.g.Profile != "" {
				a.g.configErr = usageErrorf("--profile %s: %v", sanitize.Line(a.g.Profile), err)
			}
			return nil // no home, no config: flags and env only
		}
		path = p
	}
	file, err := loadConfig(path, explicit)
	if err != nil {
		a.g.configErr = err
		return nil
	}
	st := &profileState{file: file, fixed: map[string]bool{}, explicit: explicit}
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Changed || envSet(fl) {
			st.fixed[fl.Name] = true
		}
		switch fl.Name {
		case "office":
			st.defOffice = fl.DefValue
		case "name":
			st.defName = fl.DefValue
		}
	})
	st.base, st.tbase = a.g, a.tf
	a.prof = st
	name := a.g.Profile
	if name == "" {
		switch {
		case st.fixed["profile"] || profileEnvEmpty():
			return nil // --profile "" or DPE_TUI_PROFILE= : no profile at all
		case st.fixed["url"], st.fixed["docs"], st.fixed["mcp-config"]:
			// The server is not the default profile's: another URL, or
			// folders and MCP servers started in this process.
			return nil
		}
		name = file.Default()
	}
	if name == "" {
		return nil
	}
	p, err := file.Lookup(name)
	if err != nil {
		a.g.configErr = usageErrorf("--profile: %v", err)
		return nil
	}
	st.name = name
	st.fixed["profile"] = true
	applyProfile(&a.g, &a.tf, p, st.fixed)
	if len(p.URLs) > 0 && !st.fixed["url"] {
		a.g.urlProfile = name
	}
	if a.g.keyFrom != nil && !ownURLs(a.g.URLs, p.URLs) {
		a.g.keyFrom = nil
		fmt.Fprintf(a.stderr, "dpe-tui: profile %s: its API key is not sent to %s, which is not one of its URLs\n",
			sanitize.Line(name), sanitize.Line(sanitize.URL(strings.Join(a.g.URLs, ","))))
	}
	return nil
}

// profileEnvEmpty: DPE_TUI_PROFILE is set and empty, which says "no
// profile" (other empty variables read as unset).
func profileEnvEmpty() bool {
	v, ok := os.LookupEnv("DPE_TUI_PROFILE")
	return ok && v == ""
}

// loadConfig reads the config file; explicit: the user named it, so it
// must exist. A refused file is a usage error without a flag hint: the
// fix is in the file.
func loadConfig(path string, explicit bool) (*config.File, error) {
	load := config.Load
	if explicit {
		load = config.LoadExisting
	}
	file, err := load(path)
	if err != nil {
		var pe *config.ParseError
		if errors.As(err, &pe) {
			return nil, &usageError{msg: pe.Error(), err: pe}
		}
		return nil, err
	}
	return file, nil
}

// ownURLs: every URL the command will dial is one of the profile's own.
func ownURLs(urls, own []string) bool {
	norm := func(u string) string { return strings.TrimRight(strings.TrimSpace(u), "/") }
	for _, u := range urls {
		if strings.TrimSpace(u) == "" {
			continue
		}
		if !slices.ContainsFunc(own, func(o string) bool { return norm(o) == norm(u) }) {
			return false
		}
	}
	return true
}

// configReady is the config file's error, if reading it or picking the
// profile failed: commands call it when they connect, and only then.
func (g *globalFlags) configReady() error { return g.configErr }

// applyProfile sets what p sets, on the flags not in fixed.
func applyProfile(g *globalFlags, tf *tuiFlags, p config.Profile, fixed map[string]bool) {
	set := func(flag string, dst *string, v string) {
		if v != "" && !fixed[flag] {
			*dst = v
		}
	}
	if len(p.URLs) > 0 && !fixed["url"] {
		g.URLs = append([]string(nil), p.URLs...)
	}
	set("office", &g.Office, p.Office)
	set("name", &g.Name, p.AgentName)
	set("path", &g.Path, p.Path)
	set("a2c-version", &g.A2CVersion, p.A2CVersion)
	set("theme", &g.Theme, p.Theme)
	set("images", &tf.Images, p.Images)
	if p.Mouse != nil && !fixed["mouse"] {
		tf.Mouse = *p.Mouse
	}
	if p.Timeout > 0 && !fixed["timeout"] {
		g.Timeout = timeout(p.Timeout)
	}
	if !fixed["api-key"] && (p.APIKey != "" || p.APIKeyEnv != "" || p.APIKeyCmd != "") {
		pp := p
		g.keyFrom = &pp
	}
}

// resolveAPIKey runs the profile's api_key_env / api_key_cmd when the key
// was not given by --api-key or DPE_TUI_API_KEY; only commands that
// connect call it, so a password manager is not asked for nothing.
func (g *globalFlags) resolveAPIKey(ctx context.Context) error {
	if err := g.configReady(); err != nil {
		return err
	}
	if g.keyFrom == nil || g.APIKey != "" {
		return nil
	}
	key, err := g.keyFrom.ResolveAPIKey(ctx)
	if err != nil {
		return err // names the profile and the variable or command
	}
	g.APIKey = key
	return nil
}

// profileGlobals are the global and TUI flags for profile name, as the TUI
// switches to it. The file is read again (it may have changed since the
// start, as the picker shows). Where it connects is exactly what the
// picker shows: the profile's URL, office, agent name, path, version and
// key, else the defaults, never the command line's (a --url, --name or
// --api-key was meant for the first connection, and a key must not reach
// another server). The other flags (timeout, theme, …) still beat the
// profile.
func (st *profileState) profileGlobals(name string) (globalFlags, tuiFlags, error) {
	file, err := loadConfig(st.file.Path, st.explicit)
	if err != nil {
		return globalFlags{}, tuiFlags{}, err
	}
	p, err := file.Lookup(name)
	if err != nil {
		return globalFlags{}, tuiFlags{}, err
	}
	g, tf := st.base, st.tbase
	g.keyFrom = nil
	fixed := maps.Clone(st.fixed)
	for _, f := range []string{"url", "office", "name", "path", "a2c-version", "api-key"} {
		delete(fixed, f)
	}
	g.URLs, g.Office, g.Name, g.Path, g.A2CVersion, g.APIKey = nil, st.defOffice, st.defName, "", "", ""
	applyProfile(&g, &tf, p, fixed)
	if err := g.finishURLs(); err != nil {
		return globalFlags{}, tuiFlags{}, fmt.Errorf("profile %s: %w", sanitize.Line(name), err)
	}
	if g.Timeout <= 0 {
		g.Timeout = timeout(30 * time.Second)
	}
	return g, tf, nil
}
