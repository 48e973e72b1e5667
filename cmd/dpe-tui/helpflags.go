package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpInherits names, per command, the root flags that do something
// there. A command listed here shows only those of the root's flags in its
// --help, after its own: open reads one document with no server, and mcp
// serves the library, so --url, --office, --api-key and the rest would
// only mislead there.
func helpInherits(command *cobra.Command) ([]string, bool) {
	if command.Name() == "completion" || command.HasParent() && command.Parent().Name() == "completion" {
		// A script on stdout: nothing connects.
		return []string{"no-color"}, true
	}
	// push and the remote's client commands speak DPE v1 over HTTP: no
	// SMCP server, office or agent.
	v1 := []string{"config", "profile", "timeout", "no-color"}
	if command.HasParent() && command.Parent().Name() == "remote" && command.Name() != "serve" {
		return v1, true
	}
	switch command.Name() {
	case "push":
		return v1, true
	case "open":
		return []string{"config", "profile", "theme", "no-color", "log", "insecure"}, true
	case "mcp":
		return []string{"config", "profile", "no-color"}, true
	case "convert":
		// One file in, DPE JSON out: no server, office, agent or TUI.
		return []string{"config", "profile", "no-color", "log"}, true
	case "man":
		return []string{"no-color"}, true
	}
	return nil, false
}

// scopeHelpFlags gives each command of helpInherits a help that lists its
// own flags first, in the order they are defined, then the root flags that
// apply to it. The root's flags are shared values, so they are hidden only
// while that help renders.
func scopeHelpFlags(root *cobra.Command) {
	for _, c := range root.Commands() {
		scopeHelpFlags(c)
		keep, ok := helpInherits(c)
		if !ok {
			continue
		}
		c.SetHelpFunc(func(c *cobra.Command, args []string) {
			var hidden []*pflag.Flag
			c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
				if !f.Hidden && !contains(keep, f.Name) {
					f.Hidden = true
					hidden = append(hidden, f)
				}
			})
			defer func() {
				for _, f := range hidden {
					f.Hidden = false
				}
			}()
			sorted := c.Flags().SortFlags
			c.Flags().SortFlags = false
			defer func() { c.Flags().SortFlags = sorted }()
			// the root's help (fang's), not the parent's: a parent may be scoped too
			c.Root().HelpFunc()(c, args)
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
