package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/finder"
)

// budgetFlags are the deadlines of every command that serves a folder and
// runs its Finder (serve, computer, mcp): one conversion, one query.
type budgetFlags struct {
	convert, find time.Duration
}

func (b *budgetFlags) define(fs *pflag.FlagSet) {
	fs.DurationVar(&b.convert, "convert-timeout", convert.DefaultTimeout,
		"deadline of converting one document (to list, read or index it); past it that document's error names the limit")
	fs.DurationVar(&b.find, "find-timeout", finder.DefaultQueryTimeout, "deadline of one Finder query; past it find answers \"over budget\"")
}

func (b *budgetFlags) check() error {
	if b.convert <= 0 || b.find <= 0 {
		return usageErrorf("--convert-timeout and --find-timeout must be > 0, not %s and %s", b.convert, b.find)
	}
	return nil
}
