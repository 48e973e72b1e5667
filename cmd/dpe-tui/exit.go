package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/config"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

const (
	exitOK       = 0
	exitRuntime  = 1
	exitUsage    = 2
	exitProtocol = 3
	// exitViolations: check found conformance violations (the report is
	// printed); distinct from the runtime error of not reading the
	// document at all.
	exitViolations = 4
	// exitDiffer (diff.go) is 5.
	// exitNothingListed: ls reached the office, but every server it
	// asked was skipped, or the computer has none (each with a note on
	// stderr).
	exitNothingListed = 6
	// exitIncomplete: find found nothing, and at least one Finder
	// answered from an index still being built, so the answer may change.
	exitIncomplete = 7
)

// exitCodes is the one table of exit codes: the root help renders it, and
// a test holds the README's table to it, row for row and word for word
// (the README may only add backticks).
var exitCodes = [...]struct {
	code    int
	meaning string
}{
	{exitOK, "ok"},
	{exitRuntime, "runtime or network error (also: ls stopped by a repeated cursor, the page cap or the resource budget, after listing the other servers; an unknown --server/--computer, or an office with no computers)"},
	{exitUsage, "usage: command line, flag value, environment variable, profile or config file"},
	{exitProtocol, "protocol error (the A2C-SMCP or DPE v1 code is printed)"},
	{exitViolations, "check: the document has conformance violations (with --strict, warnings count)"},
	{exitDiffer, "diff: the documents differ"},
	{exitNothingListed, "ls: nothing could be listed (every server was skipped or none was there, each with a note)"},
	{exitIncomplete, "find: no hits, and at least one Finder answered from an index still being built (said on stderr); on the embedded stack find first waits for the index, up to --timeout"},
}

// exitHelpWidth is where exitHelp wraps a meaning: the help is read in
// an 80-column terminal, indented by two.
const exitHelpWidth = 76

// exitHelp is the exit-code table of the root help, each meaning wrapped
// under itself.
func exitHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes:")
	for _, e := range exitCodes {
		lead := fmt.Sprintf("  %d  ", e.code)
		fmt.Fprintf(&b, "\n%s", lead)
		col := len(lead)
		for i, w := range strings.Fields(e.meaning) {
			switch {
			case i == 0:
			case col+1+len(w) > exitHelpWidth:
				b.WriteString("\n" + strings.Repeat(" ", len(lead)))
				col = len(lead)
			default:
				b.WriteByte(' ')
				col++
			}
			b.WriteString(w)
			col += len(w)
		}
	}
	return b.String()
}

// exitError ends a command with code; msg, when set, is printed as the
// last line (the details were printed as they happened).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string {
	if e.msg == "" {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.msg
}

// usageError marks bad command lines, flag values, environment variables
// and config files (exit 2).
type usageError struct {
	msg  string
	hint string // "dpe-tui ls --help": where the right usage is
	err  error  // the cause, when there is one (a config.ParseError)
}

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	return &usageError{msg: err.Error(), err: errors.Unwrap(err)}
}

// violationsError is check's "the document does not conform" (exit 4, the
// report itself already printed).
type violationsError struct{ n int }

func (e *violationsError) Error() string {
	return fmt.Sprintf("%d conformance violation(s)", e.n)
}

// maxErrorCells bounds the error line report prints.
const maxErrorCells = 1024

// report prints err as one sanitized line on stderr and picks the exit code.
// versionHint is the next step after a 4008 that negotiation could not
// fix: the version to ask for when this build speaks the server's, else
// what this build speaks.
func versionHint(pe *protocol.Error) string {
	if pe.Code != protocol.CodeVersionMismatch || pe.ServerVersion == "" {
		return ""
	}
	sv := sanitize.Line(pe.ServerVersion)
	if protocol.Speakable(pe.ServerVersion) == nil {
		return "; this server speaks " + sv + ": run with --a2c-version " + sv
	}
	return "; this build speaks " + protocol.ExplicitVersions + ", not " + sv
}

func report(err error, stderr io.Writer) int { return reportLogged(err, "", stderr) }

// reportLogged is report for a run with --log FILE: a line cut for the
// terminal is appended whole (sanitized, still one line) to FILE, and the
// cut line says so.
func reportLogged(err error, logFile string, stderr io.Writer) int {
	if err == nil || errors.Is(err, pflag.ErrHelp) {
		return exitOK
	}
	// Errors quote URLs (the server's, access URIs, library dial errors):
	// none may show a password, token or signature.
	line := sanitize.Line(sanitize.URLsIn(err.Error()))
	// A peer's error text is its own to write (one sent 200 KB on a line):
	// the terminal gets about a kilobyte of it, the log all of it.
	if n := len(line); n > maxErrorCells {
		where := ""
		if logFile != "" && logWholeError(logFile, line) == nil {
			where = "; whole in " + sanitize.Line(logFile)
		}
		line = fmt.Sprintf("%s (cut: %d bytes in all%s)", sanitize.Truncate(line, maxErrorCells), n, where)
	}
	var ue *usageError
	var pe *protocol.Error
	var xe *exitError
	var re *client.ResolveError
	var ve *violationsError
	switch {
	case errors.As(err, &ve):
		fmt.Fprintf(stderr, "dpe-tui: %s\n", line)
		return exitViolations
	case errors.As(err, &re), errors.As(err, new(*protocol.SkillError)):
		// Already one sentence ending in its code.
		fmt.Fprintf(stderr, "dpe-tui: %s\n", line)
		return exitProtocol
	case errors.As(err, &xe):
		if xe.msg != "" {
			fmt.Fprintf(stderr, "dpe-tui: %s\n", line)
		}
		return xe.code
	case errors.As(err, &ue) && errors.As(err, new(*config.ParseError)):
		// A config file: the fix is in the file, not the command line.
		fmt.Fprintf(stderr, "dpe-tui: %s\n", line)
		return exitUsage
	case errors.As(err, &ue):
		// One line: the problem, then where the right usage is.
		hint := ue.hint
		if hint == "" {
			hint = "dpe-tui --help"
		}
		fmt.Fprintf(stderr, "dpe-tui: %s (see '%s')\n", line, hint)
		return exitUsage
	case errors.As(err, &pe):
		fmt.Fprintf(stderr, "dpe-tui: protocol error %d: %s%s\n", pe.Code, line, versionHint(pe))
		return exitProtocol
	case errors.As(err, new(*wire.Problem)):
		// A DPE v1 error: the line names its code (DPE_…).
		fmt.Fprintf(stderr, "dpe-tui: %s\n", line)
		return exitProtocol
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "dpe-tui: interrupted")
		return exitRuntime
	default:
		fmt.Fprintf(stderr, "dpe-tui: %s\n", strings.TrimSpace(line))
		return exitRuntime
	}
}

// logError writes a command's error to --log with what the screen never
// shows: the protocol error's details. URLs in both are redacted (the log
// may be shared in a bug report).
func logError(log *slog.Logger, command string, err error) {
	if log == nil || err == nil || errors.Is(err, pflag.ErrHelp) {
		return
	}
	attrs := []any{"command", command, "err", sanitize.URLsIn(err.Error())}
	var pe *protocol.Error
	if errors.As(err, &pe) {
		attrs = append(attrs, "code", pe.Code)
		if pe.Category != "" {
			attrs = append(attrs, "category", pe.Category)
		}
		if len(pe.Details) > 0 {
			attrs = append(attrs, "details", sanitize.URLsIn(string(pe.Details)))
		}
	}
	log.Error("command failed", attrs...)
}

// logWholeError appends the error line report cut to the --log file.
func logWholeError(logFile, line string) error {
	f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	slog.New(slog.NewTextHandler(f, nil)).Error("dpe-tui: the command failed", "err", line)
	return f.Close()
}
