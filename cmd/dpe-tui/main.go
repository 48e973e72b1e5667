// Command dpe-tui browses DPE documents over A2C-SMCP.
//
//	dpe-tui                      TUI on the embedded demo stack
//	dpe-tui --url U --office O   TUI on a real server
//	dpe-tui open FILE|URL|-      a DPE JSON straight into the document view
//	dpe-tui serve                server + computers, headless
//	dpe-tui ls computers|servers|resources|desktop
//	dpe-tui get URI|FILE|URL|-   a document as md, text or json
//	dpe-tui check URI|FILE|URL|- the conformance report (exit 4 on violations)
//
// Exit codes: see exitHelp.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/internal/version"
	"github.com/dpe-tui/dpe-tui/protocol"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process around it, so tests can drive it.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if helpArg(args) && (noColorArg(args) || os.Getenv("NO_COLOR") != "") {
		// fang asks the terminal for its background colour (OSC 11 and a
		// device-attributes request, written to the screen) before
		// printing help whenever stdin and stdout are both terminals. With
		// no colour there is nothing to choose, and help reads no input:
		// this process's stdin is not the terminal while it prints help.
		if devNull, err := os.Open(os.DevNull); err == nil {
			defer devNull.Close()
			os.Stdin = devNull
		}
	}
	return runContext(ctx, args, stdout, stderr)
}

// runContext is run under a context the caller controls (tests stop
// `serve` this way instead of with a signal).
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runIO(ctx, args, os.Stdin, stdout, stderr)
}

// runIO is runContext with its standard input given (tests pipe a
// document into `get -`).
func runIO(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if noColorArg(args) || os.Getenv("NO_COLOR") != "" {
		// Help is printed before flags are parsed, by fang, which decides
		// colour from the writer: one that is not a terminal gets none
		// (with NO_COLOR alone it would still print bold and resets).
		// Everything else reads --no-color from the parsed flags.
		stdout, stderr = plainWriter{stdout}, plainWriter{stderr}
	}
	if helpArg(args) && !isTerminal(stdout) {
		// fang pads help to a block width; in a file or pipe the padding
		// is only trailing spaces.
		tw := &trimWriter{w: stdout}
		defer tw.flush()
		stdout = tw
	}
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCmd()
	root.SetArgs(args)
	var failed error
	keepErrors(root, &failed)
	if c := versionWithCommand(root, args); c != "" {
		// cobra answers the root's --version before it runs a command, so
		// `dpe-tui -v ls` would print the version and drop the command.
		return report(&usageError{msg: "--version is used alone, not with " + strconv.Quote(c) + " (for the version: dpe-tui version)", hint: "dpe-tui --help"}, stderr)
	}
	err := fang.Execute(ctx, root,
		fang.WithVersion(versionText()),
		// Errors are reported by report: one sanitized line, and the
		// exit code says which kind.
		fang.WithErrorHandler(func(io.Writer, fang.Styles, error) {}),
		// fang's own man command is hidden from the command list and
		// writes to the process's stdout; manCmd is listed and writes to
		// the command's.
		fang.WithoutManpage(),
	)
	if err == nil {
		err = failed
	}
	if err == nil && a.code != 0 {
		return a.code
	}
	var ue *usageError
	if errors.As(err, &ue) && ue.hint == "" {
		ue.hint = "dpe-tui --help"
		if c, _, ferr := root.Find(args); ferr == nil && c != nil {
			ue.hint = c.CommandPath() + " --help"
		}
	}
	return reportLogged(err, a.g.LogFile, stderr)
}

// versionText is what --version and `version` print after "dpe-tui ".
func versionText() string {
	return version.Read().String() + "\nA2C-SMCP " + protocol.SpokenVersions + " (" + protocol.Version + " unless the server names another)" +
		"\nA2C-SMCP " + protocol.Version05 + " (in development) only with --a2c-version " + protocol.Version05
}

// app is one run of the command line: where it reads and writes, and the
// global flags every subcommand shares.
type app struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	g              globalFlags
	tf             tuiFlags
	// code is an exit status a command chose without an error (diff's
	// "the documents differ").
	code int
	// prof is the config file and chosen profile; nil for commands that
	// do not read it.
	prof *profileState
	// tokenEnv is push's and remote's --token-env: the variable holding
	// the remote's bearer token.
	tokenEnv string
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "dpe-tui",
		Short: "Browse DPE documents over A2C-SMCP",
		Long:  rootDescription + "\n\n" + exitHelp(),
		Example: `  # the TUI on the embedded demo
  dpe-tui
  # the TUI on a real server
  dpe-tui --url http://127.0.0.1:7800 --office demo
  # a saved connection from the config file
  dpe-tui --profile work ls resources`,
		Args: noArgs,
		// cobra suggests only exact matches unless this is set.
		SuggestionsMinimumDistance: 2,
		SilenceUsage:               true,
		SilenceErrors:              true,
		PersistentPreRunE:          a.prepare,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runTUI(cmd, "")
		},
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetIn(a.stdin)
	root.SetVersionTemplate("dpe-tui {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	a.g.register(root.PersistentFlags())
	a.tf.define(root.Flags())
	root.AddCommand(
		a.openCmd(), a.serveCmd(), a.computerCmd(), a.lsCmd(), a.getCmd(), a.checkCmd(),
		a.findCmd(), a.mcpCmd(), a.hashCmd(), a.diffCmd(), a.convertCmd(), a.configCmd(), a.versionCmd(),
		a.remoteCmd(), a.pushCmd(), a.warmupCmd(), manCmd(),
	)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	explainCompletion(root)
	scopeHelpFlags(root)
	strictGroups(root)
	a.registerCompletions(root)
	return root
}

// keepErrors makes every command's error land in *dst instead of being
// returned to fang, which on any error asks the terminal for its
// background colour (an OSC 11 query and a device-attributes request on
// the user's screen) to style a message this program does not let it
// print. The first error stops the run: later hooks see it and do nothing.
func keepErrors(c *cobra.Command, dst *error) {
	keep := func(err error) error {
		if err != nil && *dst == nil {
			*dst = err
		}
		return nil
	}
	if c == c.Root() {
		flagErr := c.FlagErrorFunc()
		c.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return keep(flagErr(c, err)) })
	}
	if args := c.Args; args != nil {
		c.Args = func(c *cobra.Command, a []string) error { return keep(args(c, a)) }
	}
	if pre := c.PersistentPreRunE; pre != nil {
		c.PersistentPreRunE = func(c *cobra.Command, a []string) error {
			if *dst != nil {
				return nil
			}
			return keep(pre(c, a))
		}
	}
	if run := c.RunE; run != nil {
		c.RunE = func(c *cobra.Command, a []string) error {
			if *dst != nil {
				return nil
			}
			return keep(run(c, a))
		}
	}
	for _, sub := range c.Commands() {
		keepErrors(sub, dst)
	}
}

// strictGroups makes an unknown subcommand of a command group (completion
// tcsh, config bogus, help bogus) a usage error: cobra prints the group's
// help and exits 0, so a typo in a script passes unnoticed.
func strictGroups(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() == "help" && c.Run != nil {
			show := c.Run
			c.Run = nil
			c.RunE = func(c *cobra.Command, args []string) error {
				if found, rest, err := c.Root().Find(args); err != nil || found == nil || len(rest) > 0 {
					return usageErrorf("help: no command %q", strings.Join(args, " "))
				}
				show(c, args)
				return nil
			}
			continue
		}
		if c.HasSubCommands() && !c.Runnable() {
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(c *cobra.Command, args []string) error {
				if len(args) > 0 {
					// The path without the program's name: the line
					// starts "dpe-tui: " already.
					return usageErrorf("%s: unknown command %q", strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" "), args[0])
				}
				return c.Help()
			}
		}
		strictGroups(c)
	}
}

// prepare runs before every command: environment variables for flags not
// given, then the checks every command shares.
func (a *app) prepare(cmd *cobra.Command, _ []string) error {
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd, "man", "version":
			return nil // these must work whatever the environment says
		}
	}
	if err := applyEnv(cmd.Flags()); err != nil {
		return err
	}
	if !isConfigCmd(cmd) {
		// `config edit` must work on the malformed file it is there to fix.
		if err := a.loadProfile(cmd); err != nil {
			return err
		}
	}
	if err := a.g.finish(cmd); err != nil {
		return err
	}
	if w := plainKeyWarning(&a.g); w != "" {
		fmt.Fprintln(a.stderr, "dpe-tui: warning: "+w)
	}
	return nil
}

// noArgs is cobra.NoArgs as a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if !cmd.HasParent() {
		if sug := cmd.SuggestionsFor(args[0]); len(sug) > 0 {
			return usageErrorf("unknown command %q; did you mean %q?", args[0], sug[0])
		}
		return usageErrorf("unknown command %q", args[0])
	}
	return usageErrorf("%s takes no arguments, got %q", cmd.Name(), args[0])
}

// exactArgs is cobra.ExactArgs as a usage error with the command's words.
func exactArgs(n int, msg string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s", msg)
		}
		if emptyArg(args) != nil {
			return usageErrorf("an argument is empty; %s", msg)
		}
		return nil
	}
}

// emptyArg refuses an empty argument (a "$FILE" of an unset variable) as
// usage, before it is taken for a file named "" (": no such file").
func emptyArg(args []string) error {
	for _, a := range args {
		if a == "" {
			return usageErrorf("an argument is empty: give a dpe:// URI, a file path, a URL or -")
		}
	}
	return nil
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version, VCS revision and A2C-SMCP versions supported",
		Example: "  dpe-tui version\n  dpe-tui --version",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "dpe-tui %s\n", versionText())
			return err
		},
	}
}

// with copies the global flags into a command's own flag struct: they are
// parsed once, as persistent flags of the root.
func (a *app) with(g *globalFlags, name string) {
	*g = a.g
	g.Embedded.cmd = name
}

// plainWriter hides the terminal behind w, so nothing styles for it.
type plainWriter struct{ io.Writer }

// noColorArg: --no-color is on the command line (before a "--").
func noColorArg(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--no-color", "--no-color=true", "--no-color=1":
			return true
		}
	}
	return false
}

// versionWithCommand is the command named with a -v/--version anywhere
// on the line (flags go anywhere), or "": cobra answers the root's
// --version before it runs a command, and a command's own parser knows no
// -v. A -v is the command's own flag when it has one (serve's and
// computer's --verbose).
func versionWithCommand(root *cobra.Command, args []string) string {
	if end := slices.Index(args, "--"); end >= 0 {
		args = args[:end]
	}
	// Find would take the word after an unknown -v for its value.
	c, _, err := root.Find(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "-v" || a == "--version" }))
	if err != nil || c == nil || c == root {
		return ""
	}
	for _, a := range args {
		if a == "--version" || a == "-v" && c.Flags().ShorthandLookup("v") == nil {
			return c.CommandPath()[len(root.Name())+1:]
		}
	}
	return ""
}

// helpArg: the command line asks for help (-h, --help or help first).
func helpArg(args []string) bool {
	if len(args) > 0 && args[0] == "help" {
		return true
	}
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "--help":
			return true
		}
	}
	return false
}

// trimWriter drops spaces and tabs at the end of each line.
type trimWriter struct {
	w    io.Writer
	line []byte
}

func (t *trimWriter) Write(p []byte) (int, error) {
	for _, b := range p {
		if b != '\n' {
			t.line = append(t.line, b)
			continue
		}
		t.line = append(bytes.TrimRight(t.line, " \t"), '\n')
		if _, err := t.w.Write(t.line); err != nil {
			return 0, err
		}
		t.line = t.line[:0]
	}
	return len(p), nil
}

func (t *trimWriter) flush() {
	if len(t.line) > 0 {
		_, _ = t.w.Write(bytes.TrimRight(t.line, " \t"))
		t.line = nil
	}
}
