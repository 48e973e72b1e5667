package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dpe-tui/dpe-tui/convert"
)

// runConvert implements `convert FILE|- [-o OUT]`: the reference DPE JSON
// of a real file (PDF, Office, OpenDocument, HTML, EPUB, e-mail, images),
// for resolver developers to diff their own conversion against.
func runConvert(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the DPE JSON to this file (default or -: standard output)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("convert needs exactly one file (or - for standard input)")
	}
	c := convert.New(convert.Options{})
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
		data, err = c.ConvertJSON(ctx, convert.BytesSource("standard input", b))
		if err != nil {
			return err
		}
	} else if data, err = c.ConvertFile(ctx, pos[0]); err != nil {
		return err
	}
	data = append(data, '\n')
	if *out == "" || *out == "-" {
		_, err := stdout.Write(data)
		return err
	}
	return writeFileAtomic(*out, data)
}

// writeFileAtomic writes through a temporary file in the same directory
// and a rename, so a failed write never leaves half a document under the
// name.
func writeFileAtomic(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err // *PathError names the directory
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), name)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", name, werr)
	}
	return nil
}
