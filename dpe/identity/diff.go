package identity

import (
	"bytes"
	"cmp"
	"slices"
)

// Delta is core §3.3's commit delta over the multisets of element
// content hashes: Added = new∖old, Removed = old∖new, Retained = |old∩new|.
type Delta struct {
	Added    int `json:"added"`
	Removed  int `json:"removed"`
	Retained int `json:"retained"`
}

// Changes is what differs between two documents: the delta, and for each
// page number whose page_hash differs, the elements added, removed or
// moved. Pages pair by number (contract §5: the number is a page's
// pairing identity).
type Changes struct {
	Equal           bool   `json:"equal"`
	OldDocHash      string `json:"old_doc_hash"`
	NewDocHash      string `json:"new_doc_hash"`
	Delta           Delta  `json:"delta"`
	FileTypeChanged bool   `json:"file_type_changed,omitempty"`
	DocMetaChanged  bool   `json:"doc_metadata_changed,omitempty"`
	// OrderChanged: the retained content reads in another order (pages by
	// number, elements in order), even when the delta is all retained.
	OrderChanged bool         `json:"order_changed"`
	Pages        []PageChange `json:"pages"`
}

// PageChange is one page whose page_hash differs. Status is "added",
// "removed" or "changed". OldIndex/NewIndex index Result.Pages (-1: none).
type PageChange struct {
	Number       int64           `json:"number"`
	Status       string          `json:"status"`
	OldIndex     int             `json:"-"`
	NewIndex     int             `json:"-"`
	TitleChanged bool            `json:"title_changed,omitempty"`
	MetaChanged  bool            `json:"page_metadata_changed,omitempty"`
	Elements     []ElementChange `json:"elements"`
}

// ElementChange is one element of a changed page. Op is "added" (content
// not in the old document), "removed" (not in the new one) or "moved"
// (the same content at another place). Index is its position in the
// page it is listed for: the new page for added and moved, the old page
// for removed.
type ElementChange struct {
	Op          string `json:"op"`
	Index       int    `json:"index"`
	ContentHash string `json:"content_hash"`
	Category    string `json:"category"`
	Text        string `json:"text"`
}

// ComputeDelta is the core §3.3 delta from old to new.
func ComputeDelta(old, new *Result) Delta {
	count := map[string]int{}
	total := 0
	for _, p := range old.Pages {
		for _, e := range p.Elements {
			count[e.ContentHash]++
			total++
		}
	}
	var d Delta
	for _, p := range new.Pages {
		for _, e := range p.Elements {
			if count[e.ContentHash] > 0 {
				count[e.ContentHash]--
				d.Retained++
			} else {
				d.Added++
			}
		}
	}
	d.Removed = total - d.Retained
	return d
}

// Diff compares old and new (both computed, ideally without Problems).
func Diff(old, new *Result) *Changes {
	c := &Changes{
		OldDocHash: old.DocHash, NewDocHash: new.DocHash,
		Equal:           old.DocHash != "" && old.DocHash == new.DocHash,
		Delta:           ComputeDelta(old, new),
		FileTypeChanged: old.FileType != new.FileType,
		DocMetaChanged:  !bytes.Equal(old.DocMeta, new.DocMeta),
		Pages:           []PageChange{},
	}
	inOld, inNew := multiset(old), multiset(new)
	c.OrderChanged = !slicesEqual(retainedOrder(old, inNew), retainedOrder(new, inOld))
	byNum := func(r *Result) map[int64]int {
		m := map[int64]int{}
		for i, p := range r.Pages {
			if _, dup := m[p.Number]; !dup {
				m[p.Number] = i
			}
		}
		return m
	}
	oldNum, newNum := byNum(old), byNum(new)
	// Pages in the new document's order, then pages only the old one has.
	for j, np := range new.Pages {
		i, ok := oldNum[np.Number]
		if !ok {
			pc := PageChange{Number: np.Number, Status: "added", OldIndex: -1, NewIndex: j, Elements: []ElementChange{}}
			for k, e := range np.Elements {
				pc.Elements = append(pc.Elements, change(inOld, "added", k, e))
			}
			c.Pages = append(c.Pages, pc)
			continue
		}
		op := old.Pages[i]
		if op.PageHash != "" && op.PageHash == np.PageHash {
			continue
		}
		pc := PageChange{Number: np.Number, Status: "changed", OldIndex: i, NewIndex: j,
			TitleChanged: op.Title != np.Title, MetaChanged: !bytes.Equal(op.Meta, np.Meta), Elements: []ElementChange{}}
		oldSeq, newSeq := hashes(op), hashes(np)
		keepOld, keepNew := lcs(oldSeq, newSeq)
		for k, e := range np.Elements {
			if keepNew[k] {
				continue
			}
			pc.Elements = append(pc.Elements, change(inOld, "added", k, e))
		}
		for k, e := range op.Elements {
			if keepOld[k] {
				continue
			}
			if inNew[e.ContentHash] > 0 {
				continue // listed as moved where it is now
			}
			pc.Elements = append(pc.Elements, ElementChange{Op: "removed", Index: k, ContentHash: e.ContentHash, Category: e.Category, Text: e.Text})
		}
		c.Pages = append(c.Pages, pc)
	}
	for i, op := range old.Pages {
		if _, ok := newNum[op.Number]; ok {
			continue
		}
		pc := PageChange{Number: op.Number, Status: "removed", OldIndex: i, NewIndex: -1, Elements: []ElementChange{}}
		for k, e := range op.Elements {
			if inNew[e.ContentHash] > 0 {
				continue
			}
			pc.Elements = append(pc.Elements, ElementChange{Op: "removed", Index: k, ContentHash: e.ContentHash, Category: e.Category, Text: e.Text})
		}
		c.Pages = append(c.Pages, pc)
	}
	return c
}

// change classifies an element of the new document not kept in place:
// moved when its content exists in the old document, else added.
func change(inOld map[string]int, op string, k int, e ElementResult) ElementChange {
	if inOld[e.ContentHash] > 0 {
		op = "moved"
	}
	return ElementChange{Op: op, Index: k, ContentHash: e.ContentHash, Category: e.Category, Text: e.Text}
}

func multiset(r *Result) map[string]int {
	m := map[string]int{}
	for _, p := range r.Pages {
		for _, e := range p.Elements {
			m[e.ContentHash]++
		}
	}
	return m
}

func hashes(p PageResult) []string {
	out := make([]string, len(p.Elements))
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
func lcs(a, b []string) (keepA, keepB []bool) {
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

// retainedOrder is r's content in reading order (pages by number), kept
// only as often as other holds it: the retained part of the delta.
func retainedOrder(r *Result, other map[string]int) []string {
	left := make(map[string]int, len(other))
	for k, v := range other {
		left[k] = v
	}
	idx := make([]int, len(r.Pages))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(r.Pages[a].Number, r.Pages[b].Number) })
	var out []string
	for _, i := range idx {
		for _, e := range r.Pages[i].Elements {
			if left[e.ContentHash] > 0 {
				left[e.ContentHash]--
				out = append(out, e.ContentHash)
			}
		}
	}
	return out
}

func slicesEqual(a, b []string) bool { return slices.Equal(a, b) }
