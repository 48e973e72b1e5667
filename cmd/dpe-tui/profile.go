package main

import (
	"context"
	"errors"
	"fmt"
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
}

// loadProfile reads the config file (--config, else the default path)
// and applies the chosen profile (--profile, else the file's default) to
// every flag that is not fixed. A malformed file or an unknown profile is
// a usage error: one line naming the file, line and key.
func (a *app) loadProfile(cmd *cobra.Command) error {
	path := a.g.ConfigFile
	if path == "" {
		p, err := config.DefaultPath()
		if err != nil {
			if a.g.Profile != "" {
				return usageErrorf("--profile %s: %v", sanitize.Line(a.g.Profile), err)
			}
			return nil // no home, no config: flags and env only
		}
		path = p
	}
	file, err := config.Load(path)
	if err != nil {
		var pe *config.ParseError
		if errors.As(err, &pe) {
			return &usageError{msg: pe.Error(), err: pe}
		}
		return err
	}
	st := &profileState{file: file, fixed: map[string]bool{}}
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Changed || envSet(fl) {
			st.fixed[fl.Name] = true
		}
	})
	st.base, st.tbase = a.g, a.tf
	a.prof = st
	name := a.g.Profile
	if name == "" {
		name = file.Default()
	}
	if name == "" {
		return nil
	}
	p, err := file.Lookup(name)
	if err != nil {
		return usageErrorf("--profile: %v", err)
	}
	st.name = name
	st.fixed["profile"] = true
	applyProfile(&a.g, &a.tf, p, st.fixed)
	return nil
}

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
// switches to it: the command line and environment still win.
func (st *profileState) profileGlobals(name string) (globalFlags, tuiFlags, error) {
	p, err := st.file.Lookup(name)
	if err != nil {
		return globalFlags{}, tuiFlags{}, err
	}
	g, tf := st.base, st.tbase
	g.keyFrom = nil
	applyProfile(&g, &tf, p, st.fixed)
	if err := g.finishURLs(); err != nil {
		return globalFlags{}, tuiFlags{}, fmt.Errorf("profile %s: %w", sanitize.Line(name), err)
	}
	if g.Timeout <= 0 {
		g.Timeout = timeout(30 * time.Second)
	}
	return g, tf, nil
}
