package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/config"
)

// flagValues are the fixed values shell completion offers for a flag, by
// flag name. The lists are the ones the commands check.
var flagValues = map[string][]string{
	"theme":      {"dark", "light", "notty"},
	"images":     {"kitty", "sixel", "blocks", "off", "auto"},
	"log-format": {"text", "json"},
	"log-level":  {"debug", "info", "warn", "error"},
}

// formatValues are --format's values per command (get and diff differ in
// order of preference, not in set).
var formatValues = map[string][]string{
	"get":  {"md", "text", "json"},
	"diff": {"text", "md", "json"},
}

// registerCompletions gives shell completion the values of ls's kinds and
// of the enumerated flags, and --profile the names in the config file.
func (a *app) registerCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			var fn cobra.CompletionFunc
			switch {
			case fl.Name == "profile":
				fn = a.completeProfiles
			case fl.Name == "format" && formatValues[c.Name()] != nil:
				fn = cobra.FixedCompletions(formatValues[c.Name()], cobra.ShellCompDirectiveNoFileComp)
			case flagValues[fl.Name] != nil:
				fn = cobra.FixedCompletions(flagValues[fl.Name], cobra.ShellCompDirectiveNoFileComp)
			default:
				return
			}
			// A persistent flag is seen again on every child: the first
			// registration stands.
			_ = c.RegisterFlagCompletionFunc(fl.Name, fn)
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeProfiles lists the profiles of --config, DPE_TUI_CONFIG or the
// default file. Completion runs without the command's preparation, so the
// variable is read here; a missing or broken file completes nothing.
func (a *app) completeProfiles(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	path := a.g.ConfigFile
	if path == "" {
		path = os.Getenv("DPE_TUI_CONFIG")
	}
	if path == "" {
		p, err := config.DefaultPath()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		path = p
	}
	f, err := config.Load(path)
	if err != nil || f == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return f.Names(), cobra.ShellCompDirectiveNoFileComp
}

// bashCompletionNote is what the bash script needs besides bash: said in
// the completion help and the README, since without it sourcing the script
// fails with "_get_comp_words_by_ref: command not found".
const bashCompletionNote = "bash needs the bash-completion package (apt or dnf install bash-completion; brew install bash-completion@2)"

// explainCompletion says in cobra's completion commands what the bash
// script depends on.
func explainCompletion(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Long += "\n" + bashCompletionNote + "."
		for _, sh := range c.Commands() {
			if sh.Name() == "bash" {
				sh.Short += " (needs the bash-completion package)"
				sh.Long = bashCompletionNote + ".\n\n" + sh.Long
			}
		}
	}
}
