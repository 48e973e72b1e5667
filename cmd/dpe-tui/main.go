// Command dpe-tui browses DPE documents over A2C-SMCP.
//
//	dpe-tui                      TUI on the embedded demo stack
//	dpe-tui --url U --office O   TUI on a real server
//	dpe-tui open FILE|URL        a DPE JSON straight into the document view
//	dpe-tui serve                server + computers, headless
//	dpe-tui ls computers|servers|resources
//	dpe-tui get URI|FILE|URL     a document as md, text or json
//	dpe-tui check URI|FILE|URL   the conformance report (exit 1 on violations)
//
// Exit codes: 0 ok, 1 runtime or network error, 2 usage, 3 protocol error.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process around it, so tests can drive it.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runContext(ctx, args, stdout, stderr)
}

// runContext is run under a context the caller controls (tests stop
// `serve` this way instead of with a signal).
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	args = hoistCommand(args) // `dpe-tui --docs DIR ls resources` works too
	cmd, rest := "", args
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, rest = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "":
		err = runTUI(ctx, rest, stdout, stderr, "")
	case "open":
		err = runOpen(ctx, rest, stdout, stderr)
	case "serve":
		err = runServe(ctx, rest, stdout, stderr)
	case "computer":
		err = runComputer(ctx, rest, stdout, stderr)
	case "ls":
		err = runLs(ctx, rest, stdout, stderr)
	case "get":
		err = runGet(ctx, rest, stdout, stderr, false)
	case "check":
		err = runCheck(ctx, rest, stdout, stderr)
	case "find":
		err = runFind(ctx, rest, stdout, stderr)
	case "mcp":
		err = runMCP(ctx, rest, os.Stdin, stdout, stderr)
	case "hash":
		err = runHash(ctx, rest, os.Stdin, stdout, stderr)
	case "diff":
		return runDiff(ctx, rest, os.Stdin, stdout, stderr)
	case "convert":
		err = runConvert(ctx, rest, os.Stdin, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		err = usageErrorf("unknown command %q", cmd)
	}
	return report(err, stderr)
}

const usage = `dpe-tui: browse DPE documents over A2C-SMCP

Usage:
  dpe-tui [flags]                       open the TUI (embedded demo unless --url)
  dpe-tui open FILE|URL [flags]         open a DPE JSON file or URL in the TUI
  dpe-tui serve [serve flags]           run server and computers headless
  dpe-tui computer --url U --office O --name N [--docs DIR] [--mcp-config FILE] [--resolver file|http]
                                        run one Computer against any SMCP server
  dpe-tui ls computers|servers|resources [flags]
  dpe-tui get URI|FILE|URL [--page N] [--format md|text|json] [flags]
  dpe-tui check URI|FILE|URL [flags]    conformance report; exit 1 on violations
  dpe-tui find QUERY [--computer C] [--type T] [--limit N] [--json]   search every computer's Finder
  dpe-tui mcp [--docs DIR] [--http ADDR]                              library + Finder as an MCP server
  dpe-tui hash URI|FILE|URL|- [--json] [--elements]   dpe1 doc/page/element hashes
  dpe-tui diff A B [--format text|md|json]            what changed; exit 5 when they differ
  dpe-tui convert FILE|- [-o OUT.dpe.json]            a PDF, Office, ODF, HTML, EPUB, e-mail or image file as DPE JSON

Run 'dpe-tui COMMAND -h' for a command's flags.
Exit codes: 0 ok, 1 runtime or network error, 2 usage, 3 protocol error.
`
