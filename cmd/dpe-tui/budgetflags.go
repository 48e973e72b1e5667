package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/finder"
)

// budgetFlags are the deadlines of every command that serves a folder and
// runs its Finder (serve, computer, mcp, and the TUI's own --docs): one
// conversion, one query, and the terms one query pattern may expand to.
type budgetFlags struct {
	convert, find time.Duration
	findTerms     int
}

func (b *budgetFlags) define(fs *pflag.FlagSet) {
	fs.DurationVar(&b.convert, "convert-timeout", convert.DefaultTimeout,
		"deadline of converting one document (to list, read or index it); past it that document's error names the limit")
	fs.DurationVar(&b.find, "find-timeout", finder.DefaultQueryTimeout, "deadline of one Finder query; past it find answers \"over budget\"")
	fs.IntVar(&b.findTerms, "find-max-expansion", finder.DefaultMaxExpansion,
		"terms of the index one wildcard, regexp, prefix or fuzzy term of a Finder query may match; past it find answers \"over budget\"")
}

func (b *budgetFlags) check() error {
	if b.convert <= 0 || b.find <= 0 {
		return usageErrorf("--convert-timeout and --find-timeout must be > 0, not %s and %s", b.convert, b.find)
	}
	if b.findTerms <= 0 {
		return usageErrorf("--find-max-expansion must be > 0, not %d", b.findTerms)
	}
	return nil
}

// findLimits are the Finder's query limits these flags set (zero fields
// are the finder's defaults, for commands that define no flags).
func (b *budgetFlags) findLimits() finder.QueryLimits {
	return finder.QueryLimits{Timeout: b.find, MaxExpansion: b.findTerms}
}
