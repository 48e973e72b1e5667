package ui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
)

// identityState is the dpe1 identity of the document as far as it is
// loaded: computed in a command (O(document)) when the inspector opens and
// again when more pages were loaded since.
type identityState struct {
	res *identity.Result
	// doc and loaded are what res was computed from; a different document
	// or more loaded pages make it stale.
	doc    *dpe.Opened
	loaded int
	op     int
	// toUI maps a Result page (source order) to the screen's page.
	toUI map[int]int
}

// current: the identity is op's with loaded pages decoded (nothing to
// compute again).
func (s *identityState) current(op *dpe.Opened, loaded int) bool {
	return s.res != nil && s.doc == op && s.loaded == loaded
}

// of is the identity computed for op (nil: none, or another version's).
func (s *identityState) of(op *dpe.Opened) *identity.Result {
	if s.res == nil || s.doc != op {
		return nil
	}
	return s.res
}

// keep installs res, the identity of doc computed with loaded pages
// decoded, for the document on screen.
func (s *identityState) keep(res *identity.Result, doc *dpe.Opened, loaded int) {
	s.res, s.doc, s.loaded = res, doc, loaded
	s.toUI = resultToUI(res, doc.Doc)
}

// element is what the inspector shows of element el of page (of op,
// with loaded pages decoded): the element's content_hash
// and its page's page_hash, or why there is none (sanitized: problem
// messages quote document keys).
func (s *identityState) element(op *dpe.Opened, loaded, page, el int) (content, pageHash, doc string) {
	r := s.res
	if s.op != 0 && !s.current(op, loaded) {
		return "computing…", "computing…", "computing…"
	}
	if s.of(op) == nil {
		return "—", "—", "—"
	}
	j := -1
	for rj, ui := range s.toUI {
		if ui == page {
			j = rj
			break
		}
	}
	if j < 0 {
		return "page not loaded", "page not loaded", problemText(r, "$")
	}
	pr := r.Pages[j]
	pageHash = string(pr.PageHash)
	if pageHash == "" {
		pageHash = problemText(r, pr.Path)
	}
	if el >= 0 && el < len(pr.Elements) && pr.Elements[el].ContentHash != "" {
		content = string(pr.Elements[el].ContentHash)
	} else if el >= 0 && el < len(pr.Elements) {
		content = problemText(r, pr.Elements[el].Path)
	} else {
		content = "page not loaded"
	}
	doc = string(r.DocHash)
	if doc == "" {
		doc = problemText(r, "$")
	}
	return content, pageHash, doc
}

// identityMsg answers identify.
type identityMsg struct {
	id     int
	doc    *dpe.Opened
	loaded int
	res    *identity.Result
}

func (m identityMsg) opID() int { return m.id }

// pageSnapshot is what a command needs of the screen's pages, taken in
// Update: the decoded copies (nil: not loaded) and the manifest flags.
type pageSnapshot struct {
	pages    []*dpe.Page
	manifest []bool
}

func (d *documentScreen) snapshot() pageSnapshot {
	s := pageSnapshot{pages: make([]*dpe.Page, len(d.pages)), manifest: make([]bool, len(d.pages))}
	for i := range d.pages {
		s.pages[i], s.manifest[i] = d.pages[i].p, d.pages[i].manifest
	}
	return s
}

// identify starts computing the identity unless it is current or running.
func (d *documentScreen) identify() tea.Cmd {
	if _, ok := d.src.(*remoteSource); ok {
		return nil // the skeleton's hashes are the identity (remoteSource.identity)
	}
	n := d.loadedCount()
	if d.idn.op != 0 || d.idn.current(d.op, n) {
		return nil
	}
	op, snap, limits, body := d.op, d.snapshot(), d.opener.Limits, d.op.Body
	whole, converted := d.src.(wholeJSON)
	id, cmd := d.e.start("hashing the document (dpe1)", 0, func(ctx context.Context, id int) tea.Msg {
		if converted {
			// A converted file has no JSON of its own: it is hashed as
			// `hash FILE` hashes it, from the converter's whole document.
			return identityMsg{id: id, doc: op, loaded: n, res: convertedIdentity(ctx, whole, limits)}
		}
		doc := identityDoc(op, snap, func(i int) (*dpe.Page, error) { return op.Doc.PageCopy(i, limits) })
		return identityMsg{id: id, doc: op, loaded: n, res: identity.Compute(identity.Map(body, doc))}
	})
	d.idn.op = id
	return cmd
}

// wholeJSON is a PageSource that writes its whole document as DPE
// JSON, as the converter does for `convert` and `hash FILE`.
type wholeJSON interface {
	JSON(ctx context.Context) ([]byte, error)
}

// convertedIdentity is the identity of src's whole document, computed as
// `hash FILE` computes it (identity.OfJSON); a failure is the result's
// one problem, which the inspector shows in place of the hashes.
func convertedIdentity(ctx context.Context, src wholeJSON, limits dpe.Limits) *identity.Result {
	body, err := src.JSON(ctx)
	if err != nil {
		return &identity.Result{Problems: []identity.Problem{{Path: "$", Code: identity.CodeValidation, Message: oneLine(err)}}}
	}
	r, _, err := identity.OfJSON(body, limits)
	if err != nil {
		return &identity.Result{Problems: []identity.Problem{{Path: "$", Code: identity.CodeValidation, Message: oneLine(err)}}}
	}
	return r
}

// identityDoc builds the document identity.Map reads: the loaded copies,
// inline pages decoded by load (a copy: the shared document is not
// touched), and for a manifest page not loaded an undecoded stand-in, which
// Map reports as "page not loaded".
func identityDoc(op *dpe.Opened, snap pageSnapshot, load func(i int) (*dpe.Page, error)) *dpe.Document {
	doc := &dpe.Document{Pages: make([]*dpe.Page, len(snap.pages))}
	for i, p := range snap.pages {
		src := op.Doc.Pages[i]
		if p == nil && load != nil && !snap.manifest[i] {
			if q, err := load(i); err == nil {
				p = q
			}
		}
		if p == nil {
			p = &dpe.Page{Index: src.Index, Raw: src.Raw}
		}
		doc.Pages[i] = p
	}
	return doc
}

// resultToUI pairs Result pages with the screen's pages. Both are in
// reading order (Map orders by page_index, as Decode does), so they pair
// by position.
func resultToUI(r *identity.Result, doc *dpe.Document) map[int]int {
	out := map[int]int{}
	for j := range r.Pages {
		if j < len(doc.Pages) {
			out[j] = j
		}
	}
	return out
}

// identityUpdate handles the identity and diff answers; ok is false for
// messages the screen's own Update must still see.
func (d *documentScreen) identityUpdate(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case identityMsg:
		if msg.id == d.idn.op {
			d.idn.op = 0
		}
		if msg.doc != d.op {
			return nil, true
		}
		d.idn.keep(msg.res, msg.doc, msg.loaded)
		return tea.Batch(d.watchMarks(), d.readAfterHash()), true
	case diffMsg:
		return d.onDiff(msg), true
	case errMsg:
		d.identityOpEnd(msg.id)
	case cancelledMsg:
		d.identityOpEnd(msg.id)
	}
	return nil, false
}

func (d *documentScreen) identityOpEnd(id int) {
	if id == 0 {
		return
	}
	if d.idn.op == id {
		d.idn.op = 0
		if w := d.watch; w != nil && w.readAfterHash {
			w.readAfterHash = false // D waited for this hash: it failed or was cancelled
			if w.once {
				d.watch = nil
			}
		}
	}
	if d.diffOp == id {
		d.diffOp = 0
	}
}

// problemText names the first problem at or under path (the first of all
// when none is), as one safe line.
func problemText(r *identity.Result, path string) string {
	var first *identity.Problem
	for i := range r.Problems {
		p := &r.Problems[i]
		if first == nil {
			first = p
		}
		if p.Path == path || strings.HasPrefix(p.Path, path+".") || strings.HasPrefix(p.Path, path+"[") {
			first = p
			break
		}
	}
	if first == nil {
		return "—"
	}
	if strings.Contains(first.Message, "page not loaded") {
		return "page not loaded (" + sanitizeTrunc(first.Path, 60) + ")"
	}
	return "not hashable under dpe1: " + sanitizeTrunc(first.Path+": "+first.Message, 160)
}
