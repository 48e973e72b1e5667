package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// localV1 is one local file as a DPE v1 document: its identity (the
// canonical objects a remote stores) and, when it was built from a DPE
// v0.2 document (converted, or a v0.2 file), that document, which holds
// the bytes of its images.
type localV1 struct {
	res *identity.Result
	doc *dpe.Document // nil: the file was a DPE v1 document already
}

// localDocument is the one rule from a local file to its DPE v1
// document: hash, diff and push all use it, so that `hash FILE` prints
// the doc_hash a remote holds after `push FILE`.
//
//   - A DPE document JSON (a JSON object with pages or file_type, or any
//     file named *.dpe.json; dpeJSON is the rule) is read as it is: DPE v1
//     by its closed schema, DPE v0.2 through identity.Map (docs/dpev1.md),
//     its manifest pages fetched as get fetches them, file:// ones only
//     from the file's own folder.
//   - Any other file is converted as convert does, Markdown images read
//     from its own folder, without the file's modification time: a mod
//     time is the file system's fact about a copy, not content (core: the
//     hash is of content), and a `touch` must not make a new version of an
//     unchanged document. last_modified then comes only from the
//     document's own properties.
//
// name is how errors call the file. asJSON reads it as a DPE JSON
// whatever it holds (stdin, which is documented as one).
func localDocument(ctx context.Context, conv *convert.Converter, path, name string, asJSON bool) (*localV1, error) {
	f, st, err := localfile.Open(path, localfile.Options{})
	if err != nil {
		return nil, err // names the file
	}
	defer f.Close()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sanitize.Line(name), err)
	}
	if asJSON || dpeJSON(path, f, st.Size()) {
		return localDPEJSON(ctx, f, abs, name, asJSON)
	}
	ctx, done := withFolderAssets(ctx, abs)
	defer done()
	body, err := conv.ConvertJSON(ctx, convert.Source{Name: name, ReaderAt: f, Size: st.Size()})
	switch {
	case err != nil && st.Size() == 0:
		// An empty text file is a document; an empty PDF is nothing.
		return nil, fmt.Errorf("%s: the file is empty (0 bytes): no document in it", sanitize.Line(name))
	case err != nil:
		return nil, err // names the file
	}
	r, doc, err := identity.OfJSON(body, dpe.DefaultLimits())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sanitize.Line(name), err)
	}
	if len(r.Problems) > 0 {
		return nil, hashProblems(name, identity.ShapeV02, r.Problems)
	}
	return &localV1{res: r, doc: doc}, nil
}

// dpeJSON tells whether a file is a DPE JSON rather than a file to
// convert (a package.json is code): its name ends in .dpe.json, or it is
// one JSON object that is a DPE document (a pages or file_type member:
// every DPE document, v1 or v0.2, has one) or a single DPE v1 wire object
// (wireObject). localDPEJSON reads the first and refuses the second, which
// is not a document: so push never sends an element object as the text
// of its JSON while hash prints its content_hash.
func dpeJSON(path string, f io.ReaderAt, size int64) bool {
	if strings.HasSuffix(strings.ToLower(path), ".dpe.json") {
		return true
	}
	if size > dpe.DefaultMaxBytes {
		return false
	}
	head := make([]byte, min(size, 512))
	n, _ := f.ReadAt(head, 0)
	if t := bytes.TrimLeft(head[:n], " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return false
	}
	body := make([]byte, size)
	if n, _ := f.ReadAt(body, 0); int64(n) != size {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return false
	}
	_, pages := top["pages"]
	_, ft := top["file_type"]
	return pages || ft || wireObject(body) >= 0
}

// wireObject is the shape of a file that is one DPE v1 wire object, or
// -1: a document object (pages by hash), or, with no pages, an object
// whose category is a dpe1 category (an element) or whose elements are
// all strings (a page object, children by hash). Any other JSON
// ({"category": "books"}) is a file to convert.
func wireObject(body []byte) identity.Shape {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return -1
	}
	_, pages := top["pages"]
	switch shape := identity.Sniff(body); {
	case shape == identity.ShapeDocumentObject:
		return shape
	case pages:
		return -1
	case shape == identity.ShapeElement:
		var cat string
		if json.Unmarshal(top["category"], &cat) == nil {
			if _, known := identity.ContentFields(cat); known {
				return shape
			}
		}
	case shape == identity.ShapePageObject:
		var refs []string
		if json.Unmarshal(top["elements"], &refs) == nil {
			return shape
		}
	}
	return -1
}

// localDPEJSON reads a DPE document JSON (f, at abs) by its shape;
// asJSON: it is stdin, which was not told a DPE JSON by its fields.

// hasDocumentField: body is a JSON object with a pages or file_type
// member, as every DPE document has.
func hasDocumentField(body []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return false
	}
	_, pages := top["pages"]
	_, ft := top["file_type"]
	return pages || ft
}

// localDPEJSON reads a DPE document JSON (f, at abs) by its shape.
func localDPEJSON(ctx context.Context, f io.Reader, abs, name string, asJSON bool) (*localV1, error) {
	body, err := io.ReadAll(io.LimitReader(f, dpe.DefaultMaxBytes+1))
	if err == nil && len(body) > dpe.DefaultMaxBytes {
		err = fmt.Errorf("more than %d bytes", int64(dpe.DefaultMaxBytes))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sanitize.Line(name), err)
	}
	if asJSON && json.Valid(body) && !hasDocumentField(body) {
		// stdin has no name to convert it under (a file's name is its
		// title), so JSON that is no DPE document is refused, not read as
		// a broken one.
		return nil, fmt.Errorf("%s is not a DPE document (a JSON object with pages and file_type) nor a DPE v1 object; "+
			"to hash any other file as push converts it, give its path", sanitize.Line(name))
	}
	switch shape := identity.Sniff(body); shape {
	case identity.ShapeV1:
		// Read here, not through the get path: that bounds the whole
		// file's nesting at 64, while core §2.8 step 0 bounds each
		// object, so a valid expanded document nests up to 4 deeper.
		d, probs := identity.ParseDocument(body)
		if len(probs) > 0 {
			return nil, hashProblems(name, shape, probs)
		}
		r := identity.HashDocument(d)
		if len(r.Problems) > 0 {
			return nil, hashProblems(name, shape, r.Problems)
		}
		return &localV1{res: r}, nil
	case identity.ShapeV02:
	case identity.ShapeDocumentObject:
		return nil, fmt.Errorf("%s is %s (its children by hash), not a document with its content", sanitize.Line(name), shape)
	default:
		return nil, fmt.Errorf("%s is %s, not a document: hash prints its own hash; push sends documents", sanitize.Line(name), shape)
	}
	// The get path: a v0.2 document may be a manifest whose pages are
	// fetched.
	fch := fetcher(&globalFlags{}, "")
	fch.AllowFile, fch.FileRoot = true, filepath.Dir(abs)
	opener := &dpe.Opener{Fetcher: fch, Limits: dpe.DefaultLimits()}
	op, err := opener.OpenAccess(ctx, "file://"+filepath.ToSlash(abs))
	if err != nil {
		return nil, err // names the file
	}
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
		return nil, hashProblems(name, identity.ShapeV02, r.Problems)
	}
	return &localV1{res: r, doc: op.Doc}, nil
}
