package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// stdinDocument copies a DPE JSON from standard input to a private
// temporary file (bounded like any document) and decodes it once, so that
// a missing or malformed document fails in one line naming stdin, before
// any server or TUI starts. The file then goes through the same loader as
// a file named on the command line.
func stdinDocument(stdin io.Reader) (string, func(), error) {
	path, remove, err := stdinFile(stdin)
	if err != nil {
		return "", nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		remove()
		return "", nil, fmt.Errorf("stdin: %w", errors.Unwrap(err))
	}
	if len(data) == 0 {
		remove()
		return "", nil, errors.New("stdin: empty; pipe a DPE JSON document into it")
	}
	if _, err := dpe.Decode(data, dpe.DefaultLimits()); err != nil {
		remove()
		return "", nil, fmt.Errorf("stdin: %w", err)
	}
	return path, remove, nil
}

// stdinArg is the package stdinArg with the terminal hint.
func (a *app) stdinArg(arg string) (string, func(), error) {
	if arg == "-" {
		a.hintStdin()
	}
	return stdinArg(a.stdin, arg)
}

// hintStdin says, on a terminal, that "-" is waiting for the user to
// type or paste a document: otherwise it looks like a hang.
func (a *app) hintStdin() {
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(f.Fd()) {
		fmt.Fprintln(a.stderr, "dpe-tui: reading a DPE JSON from stdin; end with ctrl+d")
	}
}

// stdinArg replaces a "-" argument by the path of stdinDocument's copy.
// cleanup removes it; it is never nil.
func stdinArg(stdin io.Reader, arg string) (string, func(), error) {
	if arg != "-" {
		return arg, func() {}, nil
	}
	return stdinDocument(stdin)
}
