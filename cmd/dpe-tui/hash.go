package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

type hashFlags struct {
	globalFlags
	Computer string
	JSON     bool
	Elements bool
}

func (a *app) hashCmd() *cobra.Command {
	f := &hashFlags{}
	cmd := &cobra.Command{
		Use:   "hash URI|FILE|URL|-",
		Short: "Print a document's dpe1 identity: doc_hash, page and element hashes",
		Long:  "hash prints the dpe1 identity of one document (DPE hash contract 1); - reads a DPE JSON from standard input.",
		Example: `  dpe-tui hash report.dpe.json
  dpe-tui hash - --json < report.dpe.json
  dpe-tui hash dpe://io.github.dpetui.library/report.md --elements`,
		Args: exactArgs(1, "hash needs exactly one dpe:// URI, file path, URL or -"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.with(&f.globalFlags, "hash")
			return runHash(a.ctx, f, args[0], a.stdin, a.stdout, a.stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Computer, "computer", "", "computer to ask for a dpe:// URI (default: the one that knows its host)")
	fs.BoolVar(&f.JSON, "json", false, `print {"doc_hash", "pages": [{"number", "page_hash", "elements"}]}`)
	fs.BoolVar(&f.Elements, "elements", false, "also print each element's content_hash")
	return cmd
}

// runHash implements `hash FILE|URL|dpe://…|-`: the dpe1 identity of one
// document.
func runHash(ctx context.Context, f *hashFlags, input string, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := f.validate(); err != nil {
		return err
	}
	pos := []string{input}
	r, err := hashInput(ctx, &f.globalFlags, f.Computer, pos[0], stdin, stderr)
	if err != nil {
		printProblems(err, stderr)
		return err
	}
	if f.JSON {
		b, err := json.MarshalIndent(r.Hashes(), "", "  ")
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(b, '\n'))
		return err
	}
	fmt.Fprintf(stdout, "doc_hash %s\n", r.DocHash)
	for _, p := range r.Pages {
		fmt.Fprintf(stdout, "page %d %s\n", p.Number, p.PageHash)
		if f.Elements {
			for _, e := range p.Elements {
				fmt.Fprintf(stdout, "  %s %s\n", e.ContentHash, sanitize.Line(e.Category))
			}
		}
	}
	return nil
}

// hashInput opens one input the way `get` does (dpe:// through the
// server, a file or URL directly; "-" is stdin), loads every page
// (manifest pages are fetched) and computes its dpe1 identity. Values
// that cannot be hashed give an error listing each problem on a line.
func hashInput(ctx context.Context, g *globalFlags, computer, input string, stdin io.Reader, stderr io.Writer) (*identity.Result, error) {
	log, closeLog, err := g.logger()
	if err != nil {
		return nil, err
	}
	defer closeLog()
	name := input
	if input == "-" {
		path, remove, err := stdinFile(stdin)
		if err != nil {
			return nil, err
		}
		defer remove()
		input, name = path, "stdin"
	}
	op, opener, cleanup, err := openInput(ctx, g, computer, input, log, stderr)
	if err != nil {
		if name == "stdin" {
			return nil, fmt.Errorf("stdin: %w", errorsUnwrapOpen(err))
		}
		return nil, err
	}
	defer cleanup()
	if op.Kind != dpe.KindDocument {
		return nil, fmt.Errorf("%s is %s, not a DPE document", sanitize.Line(name), kindName(op.Kind))
	}
	for i := range op.Doc.Pages {
		if err := loadPage(ctx, opener, op, i); err != nil {
			return nil, err
		}
	}
	r := identity.Compute(identity.Map(op.Body, op.Doc))
	if len(r.Problems) > 0 {
		pe := &hashProblemsError{summary: fmt.Sprintf("%s cannot be hashed under dpe1: %d problem(s)", sanitize.Line(name), len(r.Problems))}
		for i, p := range r.Problems {
			if i == maxProblemLines {
				pe.lines = append(pe.lines, fmt.Sprintf("  … %d more", len(r.Problems)-i))
				break
			}
			pe.lines = append(pe.lines, fmt.Sprintf("  %s %s: %s", p.Code, sanitize.Line(p.Path), sanitize.Line(p.Message)))
		}
		return nil, pe
	}
	return r, nil
}

// maxProblemLines bounds the problems listed for one input.
const maxProblemLines = 20

// hashProblemsError is an input that cannot be hashed: the summary is
// the error line; the problems (already sanitized, one a line) are
// printed before it by printProblems.
type hashProblemsError struct {
	summary string
	lines   []string
}

func (e *hashProblemsError) Error() string { return e.summary }

// printProblems writes the problem lines of err, if any, to w.
func printProblems(err error, w io.Writer) {
	var pe *hashProblemsError
	if errors.As(err, &pe) {
		for _, l := range pe.lines {
			fmt.Fprintln(w, l)
		}
	}
}

// stdinFile copies stdin (bounded like any document) to a private
// temporary file, so that it goes through the same loader as a file.
func stdinFile(stdin io.Reader) (string, func(), error) {
	f, err := os.CreateTemp("", "dpe-tui-stdin-*.json")
	if err != nil {
		return "", nil, fmt.Errorf("stdin: %w", err)
	}
	remove := func() { os.Remove(f.Name()) }
	n, err := io.Copy(f, io.LimitReader(stdin, dpe.DefaultMaxBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		remove()
		return "", nil, fmt.Errorf("stdin: %w", err)
	}
	if n > dpe.DefaultMaxBytes {
		remove()
		return "", nil, fmt.Errorf("stdin: more than %d bytes", int64(dpe.DefaultMaxBytes))
	}
	return f.Name(), remove, nil
}

// errorsUnwrapOpen drops the "open /tmp/…:" prefix of a stdin copy, so
// the message names stdin once instead of a temporary file.
func errorsUnwrapOpen(err error) error {
	for {
		s := err.Error()
		if !strings.HasPrefix(s, "open ") || !strings.Contains(s, "dpe-tui-stdin-") {
			return err
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}
