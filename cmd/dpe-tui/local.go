package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// maxLocalImage caps an image a local Markdown file embeds.
const maxLocalImage = 1 << 20

// oleMagic starts every legacy Office binary (OLE2 compound file).
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// openLocal opens a local file that is not DPE JSON by converting it with
// package convert (the one conversion path the library serves too), in
// the shape openInput returns. handled is false for inputs that keep
// today's path: URLs, *.json and *.dpe.json files, and files convert does
// not know (they are shown as text or refused as binary there). A missing
// or unreadable file is an error at once, naming it once.
func openLocal(ctx context.Context, input string, stderr io.Writer) (op *dpe.Opened, opener *dpe.Opener, handled bool, err error) {
	if strings.Contains(input, "://") || strings.HasSuffix(strings.ToLower(input), ".json") {
		return nil, nil, false, nil
	}
	// The one local-file rule: a FIFO named on the command line must not
	// hang the open, and a symlink into /proc is refused as convert
	// refuses it (it read as an empty page here).
	f, st, err := localfile.Open(input, localfile.Options{})
	if err != nil {
		return nil, nil, true, err // "NAME: not a regular file (…)", or *PathError
	}
	defer f.Close()
	c := convert.New(convert.Options{Notice: stderrNotice(stderr)})
	defer c.Close()
	if _, serr := convert.Sniff(input, f, st.Size()); serr != nil && !c.SupportedName(input) && !isOLE(f) {
		return nil, nil, false, nil
	}
	abs, err := filepath.Abs(input)
	if err != nil {
		return nil, nil, true, fmt.Errorf("%s: %w", input, err)
	}
	fileURI := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	src := convert.Source{Name: input, ReaderAt: f, Size: st.Size(), ModTime: st.ModTime(), FileURI: fileURI}
	if root, err := os.OpenRoot(filepath.Dir(abs)); err == nil {
		defer root.Close()
		ctx = convert.WithAssets(ctx, rootAssets(root))
	}
	data, err := convertLocal(ctx, c, src)
	if err != nil {
		return nil, nil, true, err // starts with the file's name
	}
	lim := dpe.DefaultLimits()
	doc, err := dpe.Decode(data, lim)
	if err != nil {
		return nil, nil, true, fmt.Errorf("%s: %w", input, err)
	}
	return &dpe.Opened{Access: dpe.Access{URI: fileURI, Size: int64(len(data))}, Kind: dpe.KindDocument,
		Doc: doc, Body: data, MimeType: protocol.MimeDPEInline}, &dpe.Opener{Limits: lim}, true, nil
}

// convertLocal converts src whole, or with `get --page N` (dpe.PageOnly)
// only page N, the others left as manifest pages.
func convertLocal(ctx context.Context, c *convert.Converter, src convert.Source) ([]byte, error) {
	n := dpe.PageOnly(ctx)
	if n <= 0 {
		return c.ConvertJSON(ctx, src)
	}
	d, err := c.Open(ctx, src)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if n > d.PageCount() {
		return nil, fmt.Errorf("--page %d: the document has %d page(s)", n, d.PageCount())
	}
	return d.JSONPageOnly(ctx, n-1)
}

func isOLE(r io.ReaderAt) bool {
	head := make([]byte, len(oleMagic))
	n, _ := r.ReadAt(head, 0)
	return n == len(head) && bytes.Equal(head, oleMagic)
}

// rootAssets reads the images a Markdown file embeds from its own folder:
// through an os.Root (no ".." or symlink leaves it), regular files only
// (a FIFO is never opened blocking), at most limit bytes.
func rootAssets(root *os.Root) convert.AssetReader {
	return func(p string, limit int64) ([]byte, error) {
		f, _, err := localfile.OpenIn(root, p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		limit = min(limit, maxLocalImage)
		data, err := io.ReadAll(io.LimitReader(f, limit+1))
		if err == nil && int64(len(data)) > limit {
			return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("too large")}
		}
		return data, err
	}
}
