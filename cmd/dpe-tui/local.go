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
	"github.com/dpe-tui/dpe-tui/ui"
)

// maxLocalImage caps an image a local Markdown file embeds.
const maxLocalImage = 1 << 20

// openLocal opens a local file that is not DPE JSON by converting it with
// package convert (the one conversion path the library serves too), in
// the shape openInput returns. The input is a path or a file:// URL
// (localTarget). handled is false for inputs that keep today's path:
// other URLs, *.json and *.dpe.json files, and files convert does not
// know (they are shown as text or refused as binary there). A missing or
// unreadable file is an error at once, naming it once.
func openLocal(ctx context.Context, input string, stderr io.Writer) (op *dpe.Opened, opener *dpe.Opener, handled bool, err error) {
	path, ok := localTarget(input)
	if !ok {
		return nil, nil, false, nil
	}
	// The one local-file rule: a FIFO named on the command line must not
	// hang the open, and a symlink into /proc is refused as convert
	// refuses it (it read as an empty page here).
	f, st, err := localfile.Open(path, localfile.Options{})
	if err != nil {
		return nil, nil, true, err // "NAME: not a regular file (…)", or *PathError
	}
	defer f.Close()
	c := convert.New(convert.Options{Notice: stderrNotice(stderr)})
	defer c.Close()
	if !convertible(c, path, f, st.Size()) {
		return nil, nil, false, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, true, fmt.Errorf("%s: %w", path, err)
	}
	fileURI := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	src := convert.Source{Name: path, ReaderAt: f, Size: st.Size(), ModTime: st.ModTime(), FileURI: fileURI}
	ctx, done := withFolderAssets(ctx, abs)
	defer done()
	op, opener, err = openConverted(ctx, c, src, fileURI)
	return op, opener, true, err
}

// fetchedText says whether openInput converts a web page, Markdown or a
// CSV that a URL served (get, check) or leaves it as the text it is
// (hash: a local file is converted with the images of its folder, as
// push converts it, and a URL has no folder).
type fetchedText bool

const (
	convertFetchedText fetchedText = true
	keepFetchedText    fetchedText = false
)

// openFetched converts what a URL served when it is no DPE document but a
// file convert knows (a PDF, DOCX, XLSX, EPUB… at an http(s):// or s3://
// URL; with text, an HTML page, Markdown or a CSV too), by the same rule
// and converter as a local file: the body was fetched within the
// fetcher's size and time limits already. handled is false when the body
// is not convertible.
func openFetched(ctx context.Context, fetched *dpe.Opened, text fetchedText, stderr io.Writer) (op *dpe.Opened, opener *dpe.Opener, handled bool, err error) {
	if fetched.Kind != dpe.KindBinary && !text {
		return nil, nil, false, nil
	}
	c := convert.New(convert.Options{Notice: stderrNotice(stderr)})
	defer c.Close()
	name, ok := fetchedConvertible(c, fetched)
	if !ok {
		return nil, nil, false, nil
	}
	src := convert.BytesSource(name, fetched.Body)
	op, opener, err = openConverted(ctx, c, src, fetched.Access.URI)
	return op, opener, true, err
}

// fetchedConvertible is the one rule for converting what a URL served:
// binary content convert reads (convertible), or text that is a web page,
// Markdown or a table (CSV, TSV), told by its content, its name or, for a
// name without a known extension, its media type. Plain text and source
// code stay the text they are. name is what it converts under.
func fetchedConvertible(c *convert.Converter, fetched *dpe.Opened) (name string, ok bool) {
	name = fetchedName(fetched.Access.URI)
	body := bytes.NewReader(fetched.Body)
	size := int64(len(fetched.Body))
	switch fetched.Kind {
	case dpe.KindBinary:
		return name, convertible(c, name, body, size)
	case dpe.KindText, dpe.KindMarkdown:
		if !c.SupportedName(name) {
			name += textExtension(fetched.MimeType, fetched.Kind)
		}
		k, err := convert.Sniff(name, body, size)
		switch {
		case err != nil:
			return name, false
		case k == convert.KindHTML, k == convert.KindMarkdown, k == convert.KindCSV, k == convert.KindTSV:
			return name, true
		}
	}
	return name, false
}

// textExtension is the extension convert reads a text body's media type
// by, for a URL whose name has none ("https://host/", "…/export?id=3").
func textExtension(mimeType string, kind dpe.ContentKind) string {
	mt, _, _ := strings.Cut(strings.ToLower(mimeType), ";")
	switch strings.TrimSpace(mt) {
	case "text/html", "application/xhtml+xml":
		return ".html"
	case "text/csv":
		return ".csv"
	case "text/tab-separated-values":
		return ".tsv"
	}
	if kind == dpe.KindMarkdown {
		return ".md"
	}
	return ""
}

// fetchedName is the name a file fetched from uri converts under: the
// URL without its query or credentials (a signed URL's token is no
// title, and starts every error message).
func fetchedName(uri string) string {
	if u, err := url.Parse(uri); err == nil {
		return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	}
	return uri
}

// fetchedSource is the TUI's open of what a URL served that is not DPE
// (a PDF, DOCX, … or a web page at http(s)://): converted page by page,
// under the rule get follows (fetchedConvertible); handled is false for
// content the TUI shows as it is.
func fetchedSource(ctx context.Context, c *convert.Converter, fetched *dpe.Opened) (ui.PageSource, bool, error) {
	name, ok := fetchedConvertible(c, fetched)
	if !ok {
		return nil, false, nil
	}
	d, err := c.Open(ctx, convert.BytesSource(name, fetched.Body))
	if err != nil {
		return nil, true, err
	}
	return d, true, nil
}

// localTarget is the file an input names: a path, or the path of a
// file:// URL (on this host). ok is false for other URLs and for DPE
// JSON (*.json), which is fetched and decoded as it is.
func localTarget(input string) (path string, ok bool) {
	path = input
	if strings.Contains(input, "://") {
		u, err := url.Parse(input)
		if err != nil || !strings.EqualFold(u.Scheme, "file") || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			return "", false
		}
		path = filepath.FromSlash(u.Path)
	}
	if strings.HasSuffix(strings.ToLower(path), ".json") {
		return "", false
	}
	return path, true
}

// convertible is the one rule for "convert this file": its content says
// a format convert reads, or its name does (convert then says what is
// wrong with it), or convert recognises a format it refuses (a legacy
// .doc, RTF), which gets its one line from convert, not a reading as
// text or JSON.
func convertible(c *convert.Converter, name string, r io.ReaderAt, size int64) bool {
	var refused *convert.UnconvertibleError
	_, serr := convert.Sniff(name, r, size)
	return serr == nil || c.SupportedName(name) || errors.As(serr, &refused)
}

// openConverted converts src (whole, or the page of `get --page`) and
// decodes it as the document at uri.
func openConverted(ctx context.Context, c *convert.Converter, src convert.Source, uri string) (*dpe.Opened, *dpe.Opener, error) {
	data, err := convertLocal(ctx, c, src)
	if err != nil {
		return nil, nil, err // starts with the file's name
	}
	lim := dpe.DefaultLimits()
	doc, err := dpe.Decode(data, lim)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	return &dpe.Opened{Access: dpe.Access{URI: uri, Size: int64(len(data))}, Kind: dpe.KindDocument,
		Doc: doc, Body: data, MimeType: protocol.MimeDPEInline}, &dpe.Opener{Limits: lim}, nil
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

// withFolderAssets is the one rule for a local file's relative images
// (a Markdown file's ![…](pic.png)): they are read from the file's own
// folder (rootAssets), by get, open, hash, diff and push alike. done
// releases the folder once the conversion has read them.
func withFolderAssets(ctx context.Context, path string) (_ context.Context, done func()) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ctx, func() {}
	}
	root, err := os.OpenRoot(filepath.Dir(abs))
	if err != nil {
		return ctx, func() {}
	}
	return convert.WithAssets(ctx, rootAssets(root)), func() { root.Close() }
}

// openFileInTUI opens a local file that is not DPE JSON for the TUI's
// `open FILE`, page by page, reading its images as get does
// (withFolderAssets): without them its Markdown images showed "no image
// data" while get embedded them.
func openFileInTUI(ctx context.Context, conv *convert.Converter, path string) (*convert.Document, error) {
	ctx, done := withFolderAssets(ctx, path)
	defer done()
	return conv.OpenFile(ctx, path)
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
