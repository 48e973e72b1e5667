package convert

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strings"
	"sync/atomic"

	"golang.org/x/net/html/charset"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// Limits bound what converting one file may cost. A zero field takes its
// default. Hitting one gives a *dpe.LimitError whose What names the limit
// ("file size", "decompressed size", "element count on page 3", "image
// pixels", "nesting depth", "page count", "image size").
type Limits struct {
	MaxFileSize        int64 // bytes of the input file
	MaxDecompressed    int64 // bytes inflated from a container (zip), whole document
	MaxElementsPerPage int   // elements on one page
	MaxPages           int   // pages in one document
	MaxPixels          int64 // width × height of one image
	MaxImageBytes      int64 // encoded bytes of one image embedded as base64
	MaxDepth           int   // XML / HTML element nesting
	// MaxOutputBytes bounds what one document builds: bytes of text,
	// text_as_html and other metadata, summed over its elements. Readers
	// charge it before they build (Env.Charge, PageBuilder.Charge) where a
	// few input bytes can ask for many output bytes.
	MaxOutputBytes int64
	// MaxCells bounds the table cells one document builds, padding to a
	// row's width and repeated rows and columns included.
	MaxCells int64
}

// Defaults. 256 MiB inflated is far above any real office file (a
// 100,000-row sheet is ~15 MiB of XML) and far below what a zip bomb wants.
const (
	DefaultMaxFileSize        = 512 << 20
	DefaultMaxDecompressed    = 256 << 20
	DefaultMaxElementsPerPage = dpe.DefaultMaxElementsPerPage
	DefaultMaxPages           = dpe.DefaultMaxPages
	DefaultMaxPixels          = 64 << 20 // 67 Mpx: a 8192×8192 picture
	DefaultMaxImageBytes      = 8 << 20
	DefaultMaxDepth           = 256
	// 128 MiB of text and HTML is a 400,000-row sheet; building it takes
	// up to three times as much while buffers grow, and the JSON, the
	// decoded page and the screen each hold about as much again.
	DefaultMaxOutputBytes = 128 << 20
	DefaultMaxCells       = 8 << 20
)

// DefaultLimits returns the defaults.
func DefaultLimits() Limits {
	return Limits{
		MaxFileSize:        DefaultMaxFileSize,
		MaxDecompressed:    DefaultMaxDecompressed,
		MaxElementsPerPage: DefaultMaxElementsPerPage,
		MaxPages:           DefaultMaxPages,
		MaxPixels:          DefaultMaxPixels,
		MaxImageBytes:      DefaultMaxImageBytes,
		MaxDepth:           DefaultMaxDepth,
		MaxOutputBytes:     DefaultMaxOutputBytes,
		MaxCells:           DefaultMaxCells,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = d.MaxFileSize
	}
	if l.MaxDecompressed <= 0 {
		l.MaxDecompressed = d.MaxDecompressed
	}
	if l.MaxElementsPerPage <= 0 {
		l.MaxElementsPerPage = d.MaxElementsPerPage
	}
	if l.MaxPages <= 0 {
		l.MaxPages = d.MaxPages
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = d.MaxPixels
	}
	if l.MaxImageBytes <= 0 {
		l.MaxImageBytes = d.MaxImageBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = d.MaxOutputBytes
	}
	if l.MaxCells <= 0 {
		l.MaxCells = d.MaxCells
	}
	return l
}

// LimitConversionTime is the What of the LimitError a conversion past its
// deadline (Options.Timeout) fails with, so a caller can tell a deadline
// from a size budget.
const LimitConversionTime = "conversion time in milliseconds"

func limitErr(what string, limit, got int64) error {
	return &dpe.LimitError{What: what, Limit: limit, Got: got}
}

// Env is what a format reader gets besides the file: the limits and the
// bounded zip and XML helpers. One Env serves one document.
type Env struct {
	Limits Limits
	// inflated counts bytes decompressed from zips of this document.
	inflated atomic.Int64
	// out is what the document has built while it was opened (the pages
	// of a Book); a page read later has a budget of its own
	// (Document.page).
	out *outputBudget
}

func newEnv(l Limits) *Env {
	l = l.withDefaults()
	return &Env{Limits: l, out: newOutputBudget(l)}
}

// Charge reserves cells and bytes of output about to be built while the
// document is opened, before they are allocated: past MaxCells or
// MaxOutputBytes it returns the LimitError and the caller stops. The bytes
// are a reservation for the element being built; adding the element
// replaces them with its real size.
func (e *Env) Charge(cells, bytes int64) error { return e.out.charge(cells, bytes) }

// outputBudget counts what one document (or one page read on its own)
// builds. Work on one document is serialised, so it needs no lock.
type outputBudget struct {
	maxBytes, maxCells int64
	bytes, cells       int64
	pending            int64 // reserved by Charge for the element being built
	err                error
}

func newOutputBudget(l Limits) *outputBudget {
	return &outputBudget{maxBytes: l.MaxOutputBytes, maxCells: l.MaxCells}
}

func (o *outputBudget) charge(cells, bytes int64) error {
	if o.err != nil {
		return o.err
	}
	o.cells += cells
	o.pending += bytes
	switch {
	case o.cells > o.maxCells:
		o.err = limitErr("cell count", o.maxCells, o.cells)
	case o.bytes+o.pending > o.maxBytes:
		o.err = limitErr("output size", o.maxBytes, o.bytes+o.pending)
	}
	return o.err
}

// commit replaces the reservation with an element's real size.
func (o *outputBudget) commit(bytes int64) error {
	if o.err != nil {
		return o.err
	}
	o.pending = 0
	if o.bytes += bytes; o.bytes > o.maxBytes {
		o.err = limitErr("output size", o.maxBytes, o.bytes)
	}
	return o.err
}

// elementSize is the output an element holds: its text and every string
// in its metadata (text_as_html, header_info …), plus a little for the
// rest.
func elementSize(text string, meta Meta) int64 {
	// An element costs about this much besides its strings: its struct,
	// its id and its metadata map.
	const overhead = 512
	n := int64(len(text)) + overhead
	for k, v := range meta {
		n += int64(len(k)) + valueSize(v)
	}
	return n
}

func valueSize(v any) int64 {
	switch v := v.(type) {
	case string:
		return int64(len(v))
	case []string:
		n := int64(0)
		for _, s := range v {
			n += int64(len(s)) + 3
		}
		return n
	case []any:
		n := int64(0)
		for _, e := range v {
			n += valueSize(e) + 1
		}
		return n
	case map[string]any:
		n := int64(0)
		for k, e := range v {
			n += int64(len(k)) + valueSize(e)
		}
		return n
	}
	return 8
}

// Zip is a zip archive whose reads are bounded by the document's
// decompressed-size budget.
type Zip struct {
	*zip.Reader
	env    *Env
	byName map[string]*zip.File
	lower  map[string]*zip.File
}

// OpenZip opens src as a zip archive. Declared sizes are not trusted: every
// byte actually inflated is counted.
func (e *Env) OpenZip(src *Source) (*Zip, error) {
	zr, err := zip.NewReader(src.ReaderAt, src.Size)
	if err != nil {
		return nil, fmt.Errorf("not a valid zip archive: %w", err)
	}
	if len(zr.File) > e.Limits.MaxElementsPerPage {
		return nil, limitErr("zip entry count", int64(e.Limits.MaxElementsPerPage), int64(len(zr.File)))
	}
	z := &Zip{Reader: zr, env: e, byName: make(map[string]*zip.File, len(zr.File)), lower: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		n := strings.TrimPrefix(f.Name, "/")
		if _, dup := z.byName[n]; !dup {
			z.byName[n] = f
		}
		if _, dup := z.lower[strings.ToLower(n)]; !dup {
			z.lower[strings.ToLower(n)] = f
		}
	}
	return z, nil
}

// File finds an entry by name (a leading "/" and "./" are ignored; an exact
// match wins over a case-insensitive one, since Office tolerates both).
func (z *Zip) File(name string) *zip.File {
	name = strings.TrimPrefix(path.Clean("/"+name), "/")
	if f := z.byName[name]; f != nil {
		return f
	}
	return z.lower[strings.ToLower(name)]
}

// Open opens an entry for reading; the reader fails with a "decompressed
// size" LimitError once the document's budget is spent.
func (z *Zip) Open(name string) (io.ReadCloser, error) {
	f := z.File(name)
	if f == nil {
		return nil, fmt.Errorf("zip entry %s is missing", name)
	}
	return z.OpenFile(f)
}

// OpenFile is Open for an entry already found.
//
// An entry whose declared size does not fit in what is left of the budget
// is refused before a byte is inflated: archive/zip fails a read that goes
// past the declared size (ErrFormat), so the declared size is a bound a
// bomb cannot lie its way around, and a bomb with one 1.5 GB part costs
// nothing instead of inflating the whole budget. What is read is still
// counted, since the budget is shared by every part the document reads.
func (z *Zip) OpenFile(f *zip.File) (io.ReadCloser, error) {
	lim := z.env.Limits.MaxDecompressed
	used := z.env.inflated.Load()
	if f.UncompressedSize64 > uint64(max(lim-used, 0)) {
		got := int64(min(f.UncompressedSize64, uint64(math.MaxInt64-used))) + used
		return nil, fmt.Errorf("zip entry %s: %w", f.Name, limitErr("decompressed size", lim, got))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("zip entry %s: %w", f.Name, err)
	}
	return &budgetReader{rc: rc, env: z.env}, nil
}

// ReadFile reads a whole entry within the budget into one buffer of its
// declared size (io.ReadAll's doubling would leave up to twice the part in
// garbage); OpenFile already bounded that size by the budget.
func (z *Zip) ReadFile(name string) ([]byte, error) {
	f := z.File(name)
	if f == nil {
		return nil, fmt.Errorf("zip entry %s is missing", name)
	}
	rc, err := z.OpenFile(f)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	buf := bytes.NewBuffer(make([]byte, 0, int(f.UncompressedSize64)+bytes.MinRead))
	if _, err := buf.ReadFrom(rc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type budgetReader struct {
	rc  io.ReadCloser
	env *Env
}

func (b *budgetReader) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		total := b.env.inflated.Add(int64(n))
		if lim := b.env.Limits.MaxDecompressed; total > lim {
			return n, limitErr("decompressed size", lim, total)
		}
	}
	return n, err
}

func (b *budgetReader) Close() error { return b.rc.Close() }

// XMLDecoder is encoding/xml in strict mode with a nesting-depth cap. The
// standard decoder never expands DTD entities, so entity bombs ("billion
// laughs") end in an "invalid character entity" error instead of memory.
type XMLDecoder struct {
	*xml.Decoder
	depth, max int
}

// XML returns a bounded decoder over r. Declared non-UTF-8 encodings are
// decoded through x/net/html/charset.
func (e *Env) XML(r io.Reader) *XMLDecoder {
	d := xml.NewDecoder(r)
	d.Strict = true
	d.CharsetReader = charset.NewReaderLabel
	return &XMLDecoder{Decoder: d, max: e.Limits.MaxDepth}
}

// Token is xml.Decoder.Token plus the depth check.
func (d *XMLDecoder) Token() (xml.Token, error) {
	t, err := d.Decoder.Token()
	if err != nil {
		return t, err
	}
	switch tt := t.(type) {
	case xml.StartElement:
		d.depth++
		if d.depth > d.max {
			return nil, limitErr("nesting depth", int64(d.max), int64(d.depth))
		}
	case xml.EndElement:
		d.depth--
	case xml.Directive:
		// A DOCTYPE with an internal subset is how entity bombs start;
		// office formats never need one.
		if bytes.Contains(tt, []byte("ENTITY")) {
			return nil, errors.New("XML declares entities (DTD), which office files never do")
		}
	}
	return t, nil
}

// Depth is the current element nesting (0 outside the root).
func (d *XMLDecoder) Depth() int { return d.depth }
