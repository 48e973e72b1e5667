package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
)

// stdinDocument copies a DPE JSON from standard input to a private
// temporary file (bounded like any document) and decodes it once, so that
// a missing or malformed document fails in one line naming stdin, before
// any server or TUI starts. The file then goes through the same loader as
// a file named on the command line.
func stdinDocument(ctx context.Context, stdin io.Reader, stderr io.Writer) (string, func(), error) {
	path, remove, err := stdinFile(ctx, stdin, stderr)
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
		return "", nil, errors.New("stdin: empty; pipe a document into it (DPE JSON, or any file convert - reads)")
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
	return stdinArg(a.ctx, a.stdin, a.stderr, arg)
}

// hintStdin says, on a terminal, that "-" is waiting for the user to
// type or paste a document: otherwise it looks like a hang.
func (a *app) hintStdin() {
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(f.Fd()) {
		fmt.Fprintln(a.stderr, "dpe-tui: reading a document from stdin; end with ctrl+d")
	}
}

// stdinArg replaces a "-" argument by the path of stdinDocument's copy.
// cleanup removes it; it is never nil.
func stdinArg(ctx context.Context, stdin io.Reader, stderr io.Writer, arg string) (string, func(), error) {
	if err := emptyArg([]string{arg}); err != nil {
		return "", nil, err
	}
	if arg != "-" {
		return arg, func() {}, nil
	}
	return stdinDocument(ctx, stdin, stderr)
}

// stdinFormats are the --from names of the formats whose content does not
// name them, mapped to the extension that names them to the converter's
// sniffer (binary formats are known by their content alone).
var stdinFormats = map[string]string{
	"md": ".md", "markdown": ".md",
	"csv": ".csv", "tsv": ".tsv",
	"txt": ".txt", "text": ".txt",
	"html": ".html", "eml": ".eml",
}

// stdinFormatList is the --from names, for help and errors.
func stdinFormatList() string {
	names := make([]string, 0, len(stdinFormats))
	for n := range stdinFormats {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// stdinExt is the extension standard input is named with: --from's, else
// for plain UTF-8 text (no control bytes but tab, CR, LF, FF) Markdown
// when a line is an ATX heading or a code fence, else CSV or TSV when its
// lines split into the same number of fields (convert.LooksDelimited:
// not lines of prose with a comma each), else text.
func stdinExt(from string, data []byte) string {
	if from != "" {
		return stdinFormats[from]
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if len(data) == 0 || !utf8.Valid(data) || bytes.ContainsFunc(data, func(r rune) bool {
		return r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == 0x7f
	}) {
		return ""
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimLeft(line, " ")
		if bytes.HasPrefix(line, []byte("```")) || bytes.HasPrefix(line, []byte("~~~")) {
			return ".md"
		}
		h := bytes.TrimLeft(line, "#")
		if n := len(line) - len(h); n >= 1 && n <= 6 && (len(h) == 0 || h[0] == ' ' || h[0] == '\t') {
			return ".md"
		}
	}
	if ext, ok := convert.LooksDelimited(data); ok {
		return ext
	}
	return ".txt"
}
