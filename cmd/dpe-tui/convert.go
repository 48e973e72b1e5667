package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/internal/safewrite"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

func (a *app) convertCmd() *cobra.Command {
	var out, from string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "convert FILE|-",
		Short: "Convert a PDF, Office, ODF, HTML, EPUB, e-mail or image file to DPE JSON",
		Long: "convert prints the reference DPE JSON of a file, for resolver developers to diff their own\n" +
			"conversion against. - reads the file from standard input: its content decides the format, and\n" +
			"--from names it where the content cannot (CSV, TSV; plain UTF-8 text reads as Markdown when it\n" +
			"has a heading or a code fence, else as text).",
		Example: `  dpe-tui convert report.pdf -o report.dpe.json
  dpe-tui convert - < slides.pptx | dpe-tui check -
  cat table.csv | dpe-tui convert --from csv -`,
		Args: exactArgs(1, "convert needs exactly one file (or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] == "-" {
				a.hintStdin()
			}
			if timeout <= 0 {
				return usageErrorf("--timeout must be positive")
			}
			if from != "" {
				if args[0] != "-" {
					return usageErrorf("--from names the format of standard input (-); a file's content and extension decide its own")
				}
				if _, ok := stdinFormats[strings.ToLower(from)]; !ok {
					return usageErrorf("--from %s: unknown format; use one of %s", sanitize.Line(from), stdinFormatList())
				}
			}
			return runConvert(a.ctx, args[0], out, strings.ToLower(from), timeout, a.stdin, a.stdout, a.stderr)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the DPE JSON to this file (default or -: standard output)")
	cmd.Flags().StringVar(&from, "from", "", "the format of standard input (-) when its content does not say: "+stdinFormatList())
	cmd.Flags().DurationVar(&timeout, "timeout", convert.DefaultTimeout, "give up converting past this (opening, each page, the whole document); parsing stops mid-file")
	return cmd
}

// runConvert implements `convert FILE|- [-o OUT]`: the reference DPE JSON
// of a real file (PDF, Office, OpenDocument, HTML, EPUB, e-mail, images),
// for resolver developers to diff their own conversion against.
func runConvert(ctx context.Context, input, out, from string, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer) error {
	pos := []string{input}
	var err error
	if out, err = convertOutPath(input, out); err != nil {
		return err
	}
	c := convert.New(convert.Options{Timeout: timeout, Notice: stderrNotice(stderr)})
	defer c.Close()
	var data []byte
	if pos[0] == "-" {
		// Standard input has no name or extension: the content decides.
		// Reading stops one byte past the file-size limit.
		b, err := io.ReadAll(io.LimitReader(stdin, convert.DefaultMaxFileSize+1))
		if err != nil {
			return fmt.Errorf("standard input: %w", err)
		}
		if len(b) > convert.DefaultMaxFileSize {
			return fmt.Errorf("standard input: file size over the limit (%d bytes)", convert.DefaultMaxFileSize)
		}
		data, err = convertStdin(ctx, c, from, b)
		if errors.Is(err, convert.ErrUnsupported) && from == "" {
			return fmt.Errorf("%w; name its format with --from (%s)", err, stdinFormatList())
		}
		if err != nil {
			return err
		}
	} else if data, err = c.ConvertFile(ctx, pos[0]); err != nil {
		return err
	}
	data = append(data, '\n')
	if out == "" || out == "-" {
		_, err := stdout.Write(data)
		return err
	}
	// 0600, as the TUI's exports: a converted document is as private as
	// the file it came from may be.
	return safewrite.Replace(out, data, 0o600)
}

// convertOutPath: -o naming an existing directory writes NAME.dpe.json
// inside it (NAME: the input's name without its extension), as cp does; a
// directory for standard input, which has no name, is refused, as is the
// input itself (any of its names: a link, ./x). Checked before
// converting, so a long conversion is not wasted.
func convertOutPath(input, out string) (string, error) {
	if out == "" || out == "-" {
		return out, nil
	}
	st, err := os.Stat(out)
	if err == nil && !st.IsDir() && input != "-" {
		// Writing the JSON over the file it is made of loses the file.
		if in, err := os.Stat(input); err == nil && os.SameFile(in, st) {
			return "", usageErrorf("-o %s is the file being converted; name another file to write", sanitize.Line(out))
		}
	}
	if err != nil || !st.IsDir() {
		return out, nil
	}
	if input == "-" {
		return "", usageErrorf("-o %s is a directory; name the file to write when reading standard input", sanitize.Line(out))
	}
	base := filepath.Base(input)
	return filepath.Join(out, strings.TrimSuffix(base, filepath.Ext(base))+".dpe.json"), nil
}

// convertStdin converts standard input's bytes b. The document is named
// "stdin" (its URI dpe://local/stdin), not a percent-encoded phrase. The
// name's extension is the sniffer's second opinion: from (--from), else
// what plain text looks like; binary formats are known by their content.
func convertStdin(ctx context.Context, c *convert.Converter, from string, b []byte) ([]byte, error) {
	src := convert.BytesSource("stdin"+stdinExt(from, b), b)
	src.DocRef, src.URI = "stdin", "dpe://local/stdin"
	return c.ConvertJSON(ctx, src)
}
