package identity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Delta is core §3.3's commit delta over the multisets of element
// content hashes: Added = |new∖old|, Removed = |old∖new|, Retained =
// |old∩new|, all counted as multisets.
type Delta struct {
	Added    int `json:"added"`
	Removed  int `json:"removed"`
	Retained int `json:"retained"`
}

// Changes is what differs between two documents: the delta, and for each
// page whose page_hash differs, the elements added, removed or moved.
// Pages have no number (core §2.2): unchanged pages pair by page_hash on a
// longest common subsequence of the two page sequences, and the pages
// left between two such anchors pair by position there.
type Changes struct {
	Equal           bool  `json:"equal"`
	OldDocHash      Hash  `json:"old_doc_hash"`
	NewDocHash      Hash  `json:"new_doc_hash"`
	Delta           Delta `json:"delta"`
	FileTypeChanged bool  `json:"file_type_changed,omitempty"`
	TitleChanged    bool  `json:"title_changed,omitempty"`
	DocMetaChanged  bool  `json:"doc_metadata_changed,omitempty"`
	// OrderChanged: the retained content reads in another order (pages,
	// then elements, in array order), even when the delta is all retained.
	OrderChanged bool         `json:"order_changed"`
	Pages        []PageChange `json:"pages"`
}

// PageChange is one page whose page_hash differs. Status is "added",
// "removed" or "changed". OldIndex/NewIndex are its positions in the two
// documents (-1: none).
type PageChange struct {
	Status       string `json:"status"`
	OldIndex     int    `json:"old_page"`
	NewIndex     int    `json:"new_page"`
	TitleChanged bool   `json:"title_changed,omitempty"`
	MetaChanged  bool   `json:"page_metadata_changed,omitempty"`
	// MetadataChanged names the page_metadata keys that differ (Metadata
	// holds each with its old and new value).
	MetadataChanged []string        `json:"page_metadata_keys,omitempty"`
	Metadata        []MetaChange    `json:"-"`
	Elements        []ElementChange `json:"elements"`
}

// ElementChange is one element of a changed page. Op is "added" (content
// not in the old document), "removed" (not in the new one), "moved"
// (the same content at another place) or "changed" (an element of the
// same category at the same place whose text stayed and something else
// did not, or a table whose cells were edited: one change, not an element
// removed and one added). Index is its position in the page it is listed
// for: the new page for added, moved and changed, the old page for
// removed.
type ElementChange struct {
	Op          string `json:"op"`
	Index       int    `json:"index"`
	ContentHash Hash   `json:"content_hash"`
	Category    string `json:"category"`
	Text        string `json:"text"`
	// For a changed element: the old one it replaced, the members of the
	// element object that differ ("text", "text_as_html", "blob",
	// "mime_type", "metadata"), the ele_metadata keys that did (Metadata
	// holds each with its old and new value), and a table's edited cells
	// when the diff was given a TableGrid.
	Was             *WasElement  `json:"was,omitempty"`
	Fields          []string     `json:"fields_changed,omitempty"`
	MetadataChanged []string     `json:"metadata_changed,omitempty"`
	Metadata        []MetaChange `json:"-"`
	Cells           []CellChange `json:"cells,omitempty"`
}

// WasElement is the old side of a changed element.
type WasElement struct {
	Index       int    `json:"index"`
	ContentHash Hash   `json:"content_hash"`
	Text        string `json:"text"`
}

// CellChange is one table cell that differs, or a row only one side has.
// Row and Col count from 0 in the new grid (the old one for a removed
// row); Col is -1 for a whole row. Op is "changed", "added" or "removed";
// Old and New are the cell's text (a row's cells joined by " | ").
// Header is the column's header cell in the new grid, when it has one.
type CellChange struct {
	Op     string `json:"op"`
	Row    int    `json:"row"`
	Col    int    `json:"col"`
	Header string `json:"header,omitempty"`
	Old    string `json:"old,omitempty"`
	New    string `json:"new,omitempty"`
}

// TableGrid reads the cells of a table element (Table, TableChunk) from
// its canonical object: the rows of the grid, the header rows first, each
// row one string per column; ok false when the element holds no table.
// The diff asks it for both sides of a changed table, so that an edited
// cell is named by its row and column rather than the table's whole text.
type TableGrid func(object []byte) (rows [][]string, headerRows int, ok bool)

// DeltaOf is the core §3.3 delta from old to new, given each document's
// element content hashes in any order (a created document's old is nil).
func DeltaOf(old, new []Hash) Delta {
	count := make(map[Hash]int, len(old))
	for _, h := range old {
		count[h]++
	}
	var d Delta
	for _, h := range new {
		if count[h] > 0 {
			count[h]--
			d.Retained++
		} else {
			d.Added++
		}
	}
	d.Removed = len(old) - d.Retained
	return d
}

// ElementHashes is every element content_hash of r, in reading order.
func (r *Result) ElementHashes() []Hash {
	var out []Hash
	for _, p := range r.Pages {
		for _, e := range p.Elements {
			out = append(out, e.ContentHash)
		}
	}
	return out
}

// ComputeDelta is DeltaOf over two results.
func ComputeDelta(old, new *Result) Delta { return DeltaOf(old.ElementHashes(), new.ElementHashes()) }

// DiffTables compares old and new (both computed, ideally without
// Problems), each changed table's cells compared through grid (nil: none
// are, and a changed table lists no cells).
func DiffTables(old, new *Result, grid TableGrid) *Changes {
	c := &Changes{
		OldDocHash: old.DocHash, NewDocHash: new.DocHash,
		Equal:           old.DocHash != "" && old.DocHash == new.DocHash,
		Delta:           ComputeDelta(old, new),
		FileTypeChanged: old.FileType != new.FileType,
		TitleChanged:    !equalPtr(old.Title, new.Title),
		DocMetaChanged:  !bytes.Equal(old.DocMeta, new.DocMeta),
		Pages:           []PageChange{},
	}
	inOld, inNew := multiset(old), multiset(new)
	c.OrderChanged = !slices.Equal(retainedOrder(old, inNew), retainedOrder(new, inOld))
	oldSeq, newSeq := pageSeq(old), pageSeq(new)
	keepOld, keepNew := lcs(oldSeq, newSeq)
	// Walk both sequences gap by gap: between two kept pages, the i-th
	// unkept old page pairs with the i-th unkept new page.
	i, j := 0, 0
	for i < len(old.Pages) || j < len(new.Pages) {
		if i < len(old.Pages) && j < len(new.Pages) && keepOld[i] && keepNew[j] {
			i++
			j++
			continue
		}
		var gapOld, gapNew []int
		for i < len(old.Pages) && !keepOld[i] {
			gapOld = append(gapOld, i)
			i++
		}
		for j < len(new.Pages) && !keepNew[j] {
			gapNew = append(gapNew, j)
			j++
		}
		for k := 0; k < max(len(gapOld), len(gapNew)); k++ {
			switch {
			case k < len(gapOld) && k < len(gapNew):
				c.Pages = append(c.Pages, changedPage(old, new, gapOld[k], gapNew[k], inOld, inNew, grid))
			case k < len(gapNew):
				np := new.Pages[gapNew[k]]
				pc := PageChange{Status: "added", OldIndex: -1, NewIndex: gapNew[k], Elements: []ElementChange{}}
				for n, e := range np.Elements {
					pc.Elements = append(pc.Elements, change(inOld, "added", n, e))
				}
				c.Pages = append(c.Pages, pc)
			default:
				op := old.Pages[gapOld[k]]
				pc := PageChange{Status: "removed", OldIndex: gapOld[k], NewIndex: -1, Elements: []ElementChange{}}
				for n, e := range op.Elements {
					if inNew[e.ContentHash] > 0 {
						continue
					}
					pc.Elements = append(pc.Elements, ElementChange{Op: "removed", Index: n, ContentHash: e.ContentHash, Category: e.Category, Text: e.Text})
				}
				c.Pages = append(c.Pages, pc)
			}
		}
		if len(gapOld) == 0 && len(gapNew) == 0 {
			// Defensive: the LCS keeps pairs in step; never loop forever.
			i++
			j++
		}
	}
	return c
}

// changedPage lists what changed between old page i and new page j.
// Between two elements kept in place, an old element gone from the new
// document and a new one not in the old pair up as one "changed" element
// when they are the same category and either their text is the same (so
// only their metadata, HTML, blob or type differ) or they are tables.
func changedPage(old, new *Result, i, j int, inOld, inNew map[Hash]int, grid TableGrid) PageChange {
	op, np := old.Pages[i], new.Pages[j]
	pc := PageChange{Status: "changed", OldIndex: i, NewIndex: j,
		TitleChanged: !equalPtr(op.Title, np.Title), MetaChanged: !bytes.Equal(op.Meta, np.Meta), Elements: []ElementChange{}}
	if pc.MetaChanged {
		pc.Metadata = MetaChanges(op.Meta, np.Meta)
		for _, m := range pc.Metadata {
			pc.MetadataChanged = append(pc.MetadataChanged, m.Key)
		}
	}
	keepOld, keepNew := lcs(hashes(op), hashes(np))
	was := map[int]int{} // new element index → the old one it changed from
	paired := map[int]bool{}
	for a, b := 0, 0; a < len(op.Elements) || b < len(np.Elements); a, b = a+1, b+1 {
		var gone, came []int
		for ; a < len(op.Elements) && !keepOld[a]; a++ {
			if inNew[op.Elements[a].ContentHash] == 0 {
				gone = append(gone, a)
			}
		}
		for ; b < len(np.Elements) && !keepNew[b]; b++ {
			if inOld[np.Elements[b].ContentHash] == 0 {
				came = append(came, b)
			}
		}
		next := 0
		for _, o := range gone {
			for n := next; n < len(came); n++ {
				if sameElement(op.Elements[o], np.Elements[came[n]]) {
					was[came[n]], paired[o] = o, true
					next = n + 1
					break
				}
			}
		}
	}
	for k, e := range np.Elements {
		if keepNew[k] {
			continue
		}
		if o, ok := was[k]; ok {
			pc.Elements = append(pc.Elements, changedElement(k, op.Elements[o], o, e, grid))
			continue
		}
		pc.Elements = append(pc.Elements, change(inOld, "added", k, e))
	}
	for k, e := range op.Elements {
		if keepOld[k] || inNew[e.ContentHash] > 0 || paired[k] {
			continue // kept, listed as moved where it is now, or as changed
		}
		pc.Elements = append(pc.Elements, ElementChange{Op: "removed", Index: k, ContentHash: e.ContentHash, Category: e.Category, Text: e.Text})
	}
	return pc
}

// sameElement says whether old and new are one element changed in place.
func sameElement(old, new ElementResult) bool {
	if old.Category != new.Category || old.Object == nil || new.Object == nil {
		return false
	}
	return old.Text == new.Text || isTable(new.Category)
}

func isTable(category string) bool { return category == "Table" || category == "TableChunk" }

// elementObject's members, as a diff compares them.
type objectMembers struct {
	Blob       *string         `json:"blob"`
	MimeType   *string         `json:"mime_type"`
	Text       *string         `json:"text"`
	TextAsHTML *string         `json:"text_as_html"`
	Metadata   json.RawMessage `json:"metadata"`
}

// changedElement describes new element k, changed from old element o.
func changedElement(k int, old ElementResult, o int, new ElementResult, grid TableGrid) ElementChange {
	ec := ElementChange{Op: "changed", Index: k, ContentHash: new.ContentHash, Category: new.Category, Text: new.Text,
		Was: &WasElement{Index: o, ContentHash: old.ContentHash, Text: old.Text}}
	var a, b objectMembers
	if json.Unmarshal(old.Object, &a) != nil || json.Unmarshal(new.Object, &b) != nil {
		return ec
	}
	for _, m := range []struct {
		name string
		a, b *string
	}{{"text", a.Text, b.Text}, {"text_as_html", a.TextAsHTML, b.TextAsHTML}, {"blob", a.Blob, b.Blob}, {"mime_type", a.MimeType, b.MimeType}} {
		if !equalPtr(m.a, m.b) {
			ec.Fields = append(ec.Fields, m.name)
		}
	}
	if !bytes.Equal(a.Metadata, b.Metadata) {
		ec.Fields = append(ec.Fields, "metadata")
		ec.Metadata = MetaChanges(a.Metadata, b.Metadata)
		for _, m := range ec.Metadata {
			ec.MetadataChanged = append(ec.MetadataChanged, m.Key)
		}
	}
	if grid != nil && isTable(new.Category) {
		ra, _, okA := grid(old.Object)
		rb, head, okB := grid(new.Object)
		if okA && okB {
			ec.Cells = CellChanges(ra, rb, head)
		}
	}
	return ec
}

// CellChanges compares two tables' grids: rows kept in place pair up on a
// longest common subsequence of whole rows; between two such rows, the
// old and new rows left pair by position, cell by cell when both have a
// cell there, and a row only one side has is added or removed whole.
// headerRows of the new grid name each column by its header cell.
func CellChanges(old, new [][]string, headerRows int) []CellChange {
	key := func(rows [][]string) []Hash {
		out := make([]Hash, len(rows))
		for i, r := range rows {
			out[i] = Hash(strings.Join(r, "\x00"))
		}
		return out
	}
	header := func(c int) string {
		if headerRows > 0 && headerRows < len(new) && c < len(new[headerRows-1]) {
			return new[headerRows-1][c]
		}
		return ""
	}
	keepOld, keepNew := lcs(key(old), key(new))
	var out []CellChange
	for a, b := 0, 0; a < len(old) || b < len(new); a, b = a+1, b+1 {
		var gone, came []int
		for ; a < len(old) && !keepOld[a]; a++ {
			gone = append(gone, a)
		}
		for ; b < len(new) && !keepNew[b]; b++ {
			came = append(came, b)
		}
		for n := 0; n < max(len(gone), len(came)); n++ {
			switch {
			case n < len(gone) && n < len(came):
				ro, rn := old[gone[n]], new[came[n]]
				for c := 0; c < max(len(ro), len(rn)); c++ {
					var was, is string
					if c < len(ro) {
						was = ro[c]
					}
					if c < len(rn) {
						is = rn[c]
					}
					if was != is {
						out = append(out, CellChange{Op: "changed", Row: came[n], Col: c, Header: header(c), Old: was, New: is})
					}
				}
			case n < len(came):
				out = append(out, CellChange{Op: "added", Row: came[n], Col: -1, New: strings.Join(new[came[n]], " | ")})
			default:
				out = append(out, CellChange{Op: "removed", Row: gone[n], Col: -1, Old: strings.Join(old[gone[n]], " | ")})
			}
		}
	}
	return out
}

// pageSeq is r's page hashes; a page that could not be hashed gets a
// value no other page has, so that it never pairs as unchanged.
func pageSeq(r *Result) []Hash {
	out := make([]Hash, len(r.Pages))
	for i, p := range r.Pages {
		out[i] = p.PageHash
		if p.PageHash == "" {
			out[i] = Hash(fmt.Sprintf("unhashed:%p", &r.Pages[i]))
		}
	}
	return out
}

func equalPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// change classifies an element of the new document not kept in place:
// moved when its content exists in the old document, else added.
func change(inOld map[Hash]int, op string, k int, e ElementResult) ElementChange {
	if inOld[e.ContentHash] > 0 {
		op = "moved"
	}
	return ElementChange{Op: op, Index: k, ContentHash: e.ContentHash, Category: e.Category, Text: e.Text}
}

func multiset(r *Result) map[Hash]int {
	m := map[Hash]int{}
	for _, p := range r.Pages {
		for _, e := range p.Elements {
			m[e.ContentHash]++
		}
	}
	return m
}

func hashes(p PageResult) []Hash {
	out := make([]Hash, len(p.Elements))
	for i, e := range p.Elements {
		out[i] = e.ContentHash
	}
	return out
}

// maxLCSCells bounds the alignment table of one page pair; past it only
// the common prefix and suffix are kept in place (the rest is listed).
const maxLCSCells = 4 << 20

// lcs marks the elements of a and b on a longest common subsequence:
// those stayed in place; the rest were added, removed or moved.
func lcs(a, b []Hash) (keepA, keepB []bool) {
	keepA, keepB = make([]bool, len(a)), make([]bool, len(b))
	lo := 0
	for lo < len(a) && lo < len(b) && a[lo] == b[lo] {
		keepA[lo], keepB[lo] = true, true
		lo++
	}
	ha, hb := len(a), len(b)
	for ha > lo && hb > lo && a[ha-1] == b[hb-1] {
		ha--
		hb--
		keepA[ha], keepB[hb] = true, true
	}
	x, y := a[lo:ha], b[lo:hb]
	if len(x) == 0 || len(y) == 0 || len(x)*len(y) > maxLCSCells {
		return keepA, keepB
	}
	n, m := len(x), len(y)
	t := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int { return i*(m+1) + j }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				t[at(i, j)] = t[at(i+1, j+1)] + 1
			} else {
				t[at(i, j)] = max(t[at(i+1, j)], t[at(i, j+1)])
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case x[i] == y[j]:
			keepA[lo+i], keepB[lo+j] = true, true
			i++
			j++
		case t[at(i+1, j)] >= t[at(i, j+1)]:
			i++
		default:
			j++
		}
	}
	return keepA, keepB
}

// retainedOrder is r's content in reading order, kept only as often as
// other holds it: the retained part of the delta.
func retainedOrder(r *Result, other map[Hash]int) []Hash {
	left := make(map[Hash]int, len(other))
	for k, v := range other {
		left[k] = v
	}
	var out []Hash
	for _, p := range r.Pages {
		for _, e := range p.Elements {
			if left[e.ContentHash] > 0 {
				left[e.ContentHash]--
				out = append(out, e.ContentHash)
			}
		}
	}
	return out
}

// MetaChange is one key of doc_metadata that differs between two
// versions: Op is '+' (added), '-' (removed) or '~' (changed); Old and
// New are the key's canonical JSON values (nil where absent). Keys and
// values are untrusted: callers sanitize what they show.
type MetaChange struct {
	Key      string
	Op       byte
	Old, New json.RawMessage
}

// MetaChanges lists the keys of two canonical doc_metadata objects that
// differ, in key order. Metadata that is not an object on either side
// lists nothing (DocMetaChanged says it changed).
func MetaChanges(old, new []byte) []MetaChange {
	var a, b map[string]json.RawMessage
	if len(old) > 0 && json.Unmarshal(old, &a) != nil || len(new) > 0 && json.Unmarshal(new, &b) != nil {
		return nil
	}
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []MetaChange
	for _, k := range keys {
		ov, inOld := a[k]
		nv, inNew := b[k]
		switch {
		case !inOld:
			out = append(out, MetaChange{Key: k, Op: '+', New: nv})
		case !inNew:
			out = append(out, MetaChange{Key: k, Op: '-', Old: ov})
		case !bytes.Equal(ov, nv):
			out = append(out, MetaChange{Key: k, Op: '~', Old: ov, New: nv})
		}
	}
	return out
}
