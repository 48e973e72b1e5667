package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

func (a *app) warmupCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "warmup",
		Short: "Prepare the PDF engine now (compile it once) so the first PDF opens without the wait",
		Long: "warmup compiles PDFium (the PDF engine, WebAssembly) to native code and keeps it in the\n" +
			"compilation cache ($XDG_CACHE_HOME/dpe-tui/wazero), which the first PDF would otherwise do\n" +
			"(a few seconds and a few hundred MB, once per machine). Run it again: it says the engine is ready.",
		Example: `  dpe-tui warmup`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWarmup(a.stdout)
		},
	}
}

// runWarmup implements `warmup`: start the PDF engine once, filling the
// compilation cache when it is cold, and say which it was and how long.
func runWarmup(stdout io.Writer) error {
	c := convert.New(convert.Options{})
	defer c.Close()
	start := time.Now()
	compiled, dir, err := c.PrepareEngine()
	if err != nil {
		return fmt.Errorf("warmup: %w", err)
	}
	took := time.Since(start).Round(time.Millisecond)
	if compiled {
		_, err = fmt.Fprintf(stdout, "compiled the PDF engine into %s in %v\n", sanitize.Line(dir), took)
	} else {
		_, err = fmt.Fprintf(stdout, "the PDF engine is already prepared (%s); it started in %v\n", sanitize.Line(dir), took)
	}
	return err
}

// stderrNotice is a converter's Options.Notice for headless commands: the
// line goes to stderr, where it does not mix with the output.
func stderrNotice(stderr io.Writer) func(string) {
	return func(s string) { fmt.Fprintln(stderr, "dpe-tui: "+s) }
}
