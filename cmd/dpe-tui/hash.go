package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

type hashFlags struct {
	globalFlags
	Computer string
	JSON     bool
	Elements bool
	FileURI  string
	Object   string
	// fileURISet: --file-uri was given (an empty value is a file_uri to
	// reject, not an absent flag).
	fileURISet bool
}

func (a *app) hashCmd() *cobra.Command {
	f := &hashFlags{}
	cmd := &cobra.Command{
		Use:   "hash URI|FILE|URL|-",
		Short: "Print a document's dpe1 identity: doc_hash, page and element hashes",
		Long: "hash prints the dpe1 identity of one document (DPE hash contract 1); - reads standard input.\n" +
			"It reads DPE v1 documents (file_type, title, doc_metadata, pages[{title, page_metadata, elements}]) as they are,\n" +
			"single DPE v1 element, page or document objects (printing their content_hash, page_hash or doc_hash), and\n" +
			"DPE v0.2 documents through the mapping in docs/dpev1.md; which one a file is, is told by its fields.\n" +
			"Any other local file (a .json that is neither, too) is converted as push converts it (its mtime is not\n" +
			"content), so hash prints the doc_hash a remote holds after push; push refuses single objects.\n" +
			"Stdin that is not JSON is converted as convert - converts it.",
		Example: `  dpe-tui hash report.dpe.json
  dpe-tui hash - --json < report.dpe.json
  dpe-tui hash dpe://io.github.dpetui.library/report.md --elements
  dpe-tui hash doc.json --file-uri 'S3://Bucket/Key'`,
		Args: exactArgs(1, "hash needs exactly one dpe:// URI, file path, URL or -"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.with(&f.globalFlags, "hash")
			f.fileURISet = cmd.Flags().Changed("file-uri")
			return runHash(a.ctx, f, args[0], a.stdin, a.stdout, a.stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Computer, "computer", "", "computer to ask for a dpe:// URI (default: the one that knows its host)")
	fs.BoolVar(&f.JSON, "json", false, `print {"doc_hash", "pages": [{"page_hash", "elements"}]} (an object: {"<kind>_hash"})`)
	fs.BoolVar(&f.Elements, "elements", false, "also print each element's content_hash")
	fs.StringVar(&f.Object, "object", "", "read the file as one DPE v1 wire object: element, page or document (children by hash)")
	fs.StringVar(&f.FileURI, "file-uri", "", "also print this file_uri as DPE v1 remotes compare it (core §1.1 normalisation)")
	return cmd
}

// runHash implements `hash FILE|URL|dpe://…|-`: the dpe1 identity of one
// document.
func runHash(ctx context.Context, f *hashFlags, input string, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := f.validate(); err != nil {
		return err
	}
	var uri string
	if f.fileURISet {
		// Not encoded for the user, unlike the file_uri arguments of push
		// and remote: this prints what a remote compares, and a remote
		// refuses a raw IRI (upstream vector file_uri_normalization).
		n, p := identity.NormalizeFileURI(f.FileURI)
		if p != nil {
			if e := identity.EncodeIRI(f.FileURI); e != f.FileURI {
				if _, pe := identity.NormalizeFileURI(e); pe == nil {
					// Not the input quoted: the render boundary shows a
					// URL encoded, which would hide the character named.
					r, _ := utf8.DecodeRuneInString(f.FileURI[strings.IndexFunc(f.FileURI, func(r rune) bool { return r >= utf8.RuneSelf }):])
					return usageErrorf("--file-uri: file_uri: character %q must be percent-encoded (UTF-8) first, as a remote compares it: give %s (push and remote encode it themselves)",
						sanitize.Line(string(r)), sanitize.Line(e))
				}
			}
			return usageErrorf("--file-uri: %s", sanitize.Line(p.Message))
		}
		uri = n
	}
	as, ok := map[string]identity.Shape{"": -1, "element": identity.ShapeElement, "page": identity.ShapePageObject,
		"document": identity.ShapeDocumentObject}[f.Object]
	if !ok {
		return usageErrorf("--object must be element, page or document, not %q", f.Object)
	}
	h, err := hashAny(ctx, &f.globalFlags, f.Computer, input, as, stdin, stderr)
	if err != nil {
		printProblems(err, stderr)
		return err
	}
	if f.JSON {
		var v any
		if h.obj != nil {
			v = map[string]any{h.obj.Kind: h.obj.Hash}
		} else {
			v = h.res.Hashes()
		}
		if uri != "" {
			v = struct {
				FileURI string `json:"file_uri"`
				Hashes  any    `json:"dpe1"`
			}{uri, v}
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(b, '\n'))
		return err
	}
	if uri != "" {
		fmt.Fprintf(stdout, "file_uri %s\n", uri)
	}
	if h.obj != nil {
		fmt.Fprintf(stdout, "%s %s\n", h.obj.Kind, h.obj.Hash)
		return nil
	}
	r := h.res
	fmt.Fprintf(stdout, "doc_hash %s\n", r.DocHash)
	for i, p := range r.Pages {
		fmt.Fprintf(stdout, "page %d %s\n", i+1, p.PageHash)
		if f.Elements {
			for _, e := range p.Elements {
				fmt.Fprintf(stdout, "  %s %s\n", e.ContentHash, sanitize.Line(e.Category))
			}
		}
	}
	return nil
}

// hashed is what hash found: a document's identity, or one object's hash.
type hashed struct {
	res *identity.Result
	obj *identity.ObjectHash
}

// hashInput is hashAny for a document (what diff compares).
func hashInput(ctx context.Context, g *globalFlags, computer, input string, stdin io.Reader, stderr io.Writer) (*identity.Result, error) {
	h, err := hashAny(ctx, g, computer, input, -1, stdin, stderr)
	if err != nil {
		return nil, err
	}
	if h.res == nil {
		return nil, fmt.Errorf("%s is a single DPE v1 object (its %s is %s), not a document", sanitize.Line(displayName(input)), h.obj.Kind, h.obj.Hash)
	}
	return h.res, nil
}

func displayName(input string) string {
	if input == "-" {
		return "stdin"
	}
	return input
}

// hashAny computes one input's dpe1 identity: a local file (or "-",
// stdin) as push builds it (localDocument), unless it is a single DPE v1
// object (identity.Sniff, or as when it names a shape: -1 for none); a
// dpe:// URI or URL opened the way `get` does, every page of a v0.2
// document loaded (manifest pages are fetched). Values that cannot be hashed give an error listing each
// problem on a line.
func hashAny(ctx context.Context, g *globalFlags, computer, input string, as identity.Shape, stdin io.Reader, stderr io.Writer) (*hashed, error) {
	log, closeLog, err := g.logger()
	if err != nil {
		return nil, err
	}
	defer closeLog()
	name := input
	if input == "-" {
		path, remove, err := stdinFile(ctx, stdin, stderr)
		if err != nil {
			return nil, err
		}
		defer remove()
		input, name = path, "stdin"
	}
	if obj, ok, err := hashLocalObject(input, name, as); ok {
		return obj, err
	}
	if isLocalPath(input) {
		conv := convert.New(convert.Options{Notice: stderrNotice(stderr)})
		defer conv.Close()
		lv, err := localDocument(ctx, conv, input, name, name == "stdin")
		if err != nil {
			if name == "stdin" && !strings.HasPrefix(err.Error(), "stdin") { // else it names stdin already
				return nil, fmt.Errorf("stdin: %w", errorsUnwrapOpen(err))
			}
			return nil, err
		}
		return &hashed{res: lv.res}, nil
	}
	op, opener, cleanup, err := openInput(ctx, g, computer, input, keepFetchedText, log, stderr)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if op.Kind != dpe.KindDocument {
		// Text at a URL (Markdown, HTML) is not converted: its folder (its
		// images) is what push reads too, and a URL has none. A binary
		// file at a URL (PDF, DOCX, …) was converted by openInput.
		return nil, fmt.Errorf("%s is %s, not a DPE document: save it and hash FILE to hash it as push converts it", sanitize.Line(name), kindName(op.Kind))
	}
	shape := identity.Sniff(op.Body)
	if shape == identity.ShapeV1 {
		return hashV1Document(name, op.Body)
	}
	for i := range op.Doc.Pages {
		if err := loadPage(ctx, opener, op, i); err != nil {
			return nil, err
		}
	}
	r := identity.Compute(identity.Map(op.Body, op.Doc))
	if len(r.Problems) > 0 {
		return nil, hashProblems(name, shape, r.Problems)
	}
	return &hashed{res: r}, nil
}

// isLocalPath: input names a file here, not a URL or a dpe:// URI.
func isLocalPath(input string) bool {
	return !strings.Contains(input, "://") && !strings.HasPrefix(strings.ToLower(input), "dpe:")
}

// hashLocalObject hashes a local file (or the stdin copy) that is one DPE
// v1 wire object (by its fields, or as --object says); ok is false for
// anything else, which is a document (localDocument). Objects are what a
// remote stores, not documents, so only a file is read as one.
func hashLocalObject(path, name string, as identity.Shape) (*hashed, bool, error) {
	if !isLocalPath(path) {
		if as >= 0 {
			return nil, true, usageErrorf("--object reads a file or stdin, not %s", sanitize.Line(name))
		}
		return nil, false, nil
	}
	f, _, err := localfile.Open(path, localfile.Options{})
	if err != nil {
		if as >= 0 {
			return nil, true, err // names the file
		}
		return nil, false, nil // localDocument says what is wrong with it
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, dpe.DefaultMaxBytes+1))
	if err == nil && len(body) > dpe.DefaultMaxBytes {
		err = fmt.Errorf("more than %d bytes", int64(dpe.DefaultMaxBytes))
	}
	if err != nil {
		if as >= 0 {
			return nil, true, fmt.Errorf("%s: %w", sanitize.Line(name), err)
		}
		return nil, false, nil
	}
	shape := as
	switch {
	case shape >= 0:
	case name == "stdin":
		// stdin is a DPE JSON (it cannot be converted under a name):
		// anything with an element's or a page's fields is read as one.
		shape = identity.Sniff(body)
	default:
		shape = wireObject(body) // the rule push refuses them by
	}
	switch shape {
	case identity.ShapeElement, identity.ShapePageObject, identity.ShapeDocumentObject:
	default:
		return nil, false, nil
	}
	o, p := identity.HashObject(body, shape)
	if p != nil {
		probs := identity.CheckObject(body, shape)
		if len(probs) == 0 {
			probs = []identity.Problem{*p} // found while hashing, not parsing
		}
		return nil, true, hashProblems(name, shape, probs)
	}
	return &hashed{obj: o}, true, nil
}

// hashV1Document hashes an expanded DPE v1 document as it is, by its
// closed schema.
func hashV1Document(name string, body []byte) (*hashed, error) {
	d, probs := identity.ParseDocument(body)
	if len(probs) > 0 {
		return nil, hashProblems(name, identity.ShapeV1, probs)
	}
	r := identity.HashDocument(d)
	if len(r.Problems) > 0 {
		return nil, hashProblems(name, identity.ShapeV1, r.Problems)
	}
	return &hashed{res: r}, nil
}

// hashProblems is the error of an input that cannot be hashed: one line
// per problem, naming the field as the user wrote it and the shape it was
// read as.
func hashProblems(name string, shape identity.Shape, probs []identity.Problem) error {
	pe := &hashProblemsError{summary: fmt.Sprintf("%s (read as %s) cannot be hashed under dpe1: %d problem(s)", sanitize.Line(name), shape, len(probs))}
	for i, p := range probs {
		if i == maxProblemLines {
			pe.lines = append(pe.lines, fmt.Sprintf("  … %d more", len(probs)-i))
			break
		}
		path := p.Path
		if path == "" {
			path = "$" // a JSON Pointer to the whole object
		}
		pe.lines = append(pe.lines, fmt.Sprintf("  %s %s%s: %s", p.Code, sanitize.Line(path), humanPlace(p.Path), sanitize.Line(p.Message)))
	}
	return pe
}

var placeRE = regexp.MustCompile(`^\$\.pages\[(\d+)\](?:\.elements\[(\d+)\])?`)

// humanPlace is where a JSON path points, counted from 1 as every
// "page N" dpe-tui prints is (the path itself counts from 0):
// " (page 1, element 3)", or "" outside the pages.
func humanPlace(path string) string {
	m := placeRE.FindStringSubmatch(path)
	if m == nil {
		return ""
	}
	pg, _ := strconv.Atoi(m[1])
	if m[2] == "" {
		return fmt.Sprintf(" (page %d)", pg+1)
	}
	el, _ := strconv.Atoi(m[2])
	return fmt.Sprintf(" (page %d, element %d)", pg+1, el+1)
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
// temporary file, so that it goes through the same loader as a file. A
// content that is not JSON (a DOCX, a PDF, Markdown piped in) is replaced
// by the DPE JSON `convert -` makes of it, so get, check, hash and open
// take what convert takes.
func stdinFile(ctx context.Context, stdin io.Reader, stderr io.Writer) (string, func(), error) {
	f, err := os.CreateTemp("", "dpe-tui-stdin-*.json")
	if err != nil {
		return "", nil, fmt.Errorf("stdin: %w", err)
	}
	remove := func() { os.Remove(f.Name()) }
	var first leadByte
	n, err := io.Copy(io.MultiWriter(f, &first), io.LimitReader(stdin, dpe.DefaultMaxBytes+1))
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
	if first.b == 0 || first.b == '{' {
		return f.Name(), remove, nil
	}
	if err := convertNonJSON(ctx, f.Name(), stderr); err != nil {
		remove()
		return "", nil, err
	}
	return f.Name(), remove, nil
}

// leadByte records the first byte written past white space and a byte
// order mark at the start, so that stdin is told JSON or not while it is
// copied, not read back; it stays 0 for an empty or blank input.
type leadByte struct {
	b   byte
	bom int // how many bytes of a leading byte order mark were seen
}

func (l *leadByte) Write(p []byte) (int, error) {
	const bom = "\xEF\xBB\xBF"
	for _, c := range p {
		if l.b != 0 {
			break
		}
		switch {
		case l.bom >= 0 && l.bom < len(bom) && c == bom[l.bom]:
			l.bom++
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			l.bom = -1
		default:
			l.b = c
		}
	}
	return len(p), nil
}

// convertNonJSON replaces the stdin copy at path, which is not JSON, by
// its conversion.
func convertNonJSON(ctx context.Context, path string, stderr io.Writer) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("stdin: %w", errors.Unwrap(err))
	}
	c := convert.New(convert.Options{Notice: stderrNotice(stderr)})
	defer c.Close()
	data, err := convertStdin(ctx, c, "", b)
	if errors.Is(err, convert.ErrUnsupported) {
		return fmt.Errorf("stdin: %w; name its format: dpe-tui convert --from FORMAT - (%s)", err, stdinFormatList())
	}
	if err != nil {
		return fmt.Errorf("stdin: %w", err)
	}
	return os.WriteFile(path, data, 0o600)
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
