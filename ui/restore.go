package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/internal/safewrite"
)

// Restore position: reopening a document returns to where it was left.
// The places live in one JSON file under the XDG state directory
// ($XDG_STATE_HOME, else ~/.local/state)/dpe-tui/positions.json, keyed by
// the document's URI and the hash of the version left. Same hash: the
// same page and element. Another hash (the document changed): on that
// page, the element whose dpe1 content_hash is the one left (its place
// and id may have changed with the edit), else the one nearest to it of
// the elements that were around it and are still there (said as "near
// where you left it"), else the page's top.
//
// The file is read once, in a command at start; each document left
// updates the copy in memory (in Update) and a command writes it whole,
// one write at a time. It holds the last maxPositions documents.

const (
	maxPositions = 500
	// maxPositionsFile bounds what is read: 500 entries are far below.
	maxPositionsFile = 4 << 20
	// maxPositionKey bounds a URI or element id kept (a longer one is not
	// remembered rather than cut into another).
	maxPositionKey = 4096
)

// position is where a document was left.
type position struct {
	URI       string `json:"uri"`
	DocHash   string `json:"doc_hash"`
	Page      int    `json:"page"` // 1-based
	ElementID string `json:"element_id,omitempty"`
	Element   int    `json:"element"` // index on the page, 0-based
	At        int64  `json:"at"`      // unix seconds
	// ElementHash is the dpe1 content_hash of the element left; Near
	// those of the elements around it, nearest first, for when it is gone.
	ElementHash string     `json:"element_hash,omitempty"`
	Near        []nearHash `json:"near,omitempty"`
}

// nearHash is an element around the one left: Off is its place from it
// (-1 the one before), Hash its content_hash.
type nearHash struct {
	Off  int    `json:"off"`
	Hash string `json:"hash"`
}

// nearElements is how many elements on each side of the one left are
// kept for the fallback.
const nearElements = 3

type positionsFile struct {
	Version   int        `json:"version"`
	Positions []position `json:"positions"` // oldest first
}

// positions is the store in memory: nil list until the file was read.
type positions struct {
	path   string
	loaded bool
	list   []position
	// saving is set while a write runs; dirty when the list changed
	// since that write's copy was taken.
	saving, dirty bool
}

// StateDir is the XDG state directory of dpe-tui ($XDG_STATE_HOME, else
// ~/.local/state, then /dpe-tui), read from the environment when called
// (tests set XDG_STATE_HOME), "" when there is no home.
func StateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "dpe-tui")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "dpe-tui")
}

type positionsLoadedMsg struct {
	list []position
	err  error
}

type positionsSavedMsg struct{ err error }

// loadPositions reads the state file in a command.
func (p *positions) load() tea.Cmd {
	path := p.path
	if path == "" {
		return nil
	}
	return func() tea.Msg {
		list, err := readPositions(path)
		return positionsLoadedMsg{list: list, err: err}
	}
}

func readPositions(path string) ([]position, error) {
	// The one rule for local reads: a FIFO there would block the open.
	f, _, err := localfile.Open(path, localfile.Options{})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPositionsFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxPositionsFile {
		return nil, fmt.Errorf("%s: over %d bytes", path, maxPositionsFile)
	}
	var pf positionsFile
	if err := json.Unmarshal(b, &pf); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	list := pf.Positions
	if len(list) > maxPositions {
		list = list[len(list)-maxPositions:]
	}
	return list, nil
}

// writeMu keeps two writes of the state file (the last one's and quit's)
// from interleaving their rename.
var writeMu sync.Mutex

// writePositions writes the file atomically, but only onto a regular file
// or a new name: the state file is never written through a device or a
// pipe, nor renamed onto one.
func writePositions(path string, list []position) error {
	writeMu.Lock()
	defer writeMu.Unlock()
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s: it is %s, not a regular file; positions are not saved", path, localfile.Kind(st.Mode()))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(positionsFile{Version: 1, Positions: list})
	if err != nil {
		return err
	}
	return safewrite.Replace(path, b, 0o600)
}

// find is the position of uri, if one is kept.
func (p *positions) find(uri string) (position, bool) {
	for i := len(p.list) - 1; i >= 0; i-- {
		if p.list[i].URI == uri {
			return p.list[i], true
		}
	}
	return position{}, false
}

// remember puts pos last (newest), dropping its URI's older entry and the
// oldest past maxPositions; save writes it.
func (p *positions) remember(pos position) {
	if p.path == "" || pos.URI == "" || len(pos.URI) > maxPositionKey || len(pos.ElementID) > maxPositionKey {
		return
	}
	for i := range p.list {
		if p.list[i].URI == pos.URI {
			p.list = append(p.list[:i], p.list[i+1:]...)
			break
		}
	}
	p.list = append(p.list, pos)
	if len(p.list) > maxPositions {
		p.list = p.list[len(p.list)-maxPositions:]
	}
	p.dirty = true
}

// save writes the list unless a write runs (it writes again when that
// one ends) or the file was not read yet (the load writes).
func (p *positions) save() tea.Cmd {
	if !p.dirty {
		return nil
	}
	if !p.loaded || p.saving {
		// Not read yet, writing now would drop what the file holds: the
		// load merges and writes.
		return nil
	}
	p.saving, p.dirty = true, false
	path, list := p.path, append([]position(nil), p.list...)
	return func() tea.Msg { return positionsSavedMsg{err: writePositions(path, list)} }
}

// saveNow is the write quit waits for: the list as it is, whatever runs.
func (p *positions) saveNow() tea.Cmd {
	if p.path == "" || !p.loaded || (!p.dirty && !p.saving) {
		return nil
	}
	path, list := p.path, append([]position(nil), p.list...)
	return func() tea.Msg { return positionsSavedMsg{err: writePositions(path, list)} }
}

// onPositions handles the store's messages in Update.
func (m *model) onPositions(msg tea.Msg) (tea.Cmd, bool) {
	e, p := m.e, &m.e.positions
	switch msg := msg.(type) {
	case positionsLoadedMsg:
		p.loaded = true
		// Documents left before the file was read are newer than it.
		mine, dirty := p.list, p.dirty
		p.list = msg.list
		for _, pos := range mine {
			p.remember(pos)
		}
		p.dirty = dirty
		var cmd tea.Cmd
		if msg.err != nil {
			cmd = e.setStatus(statusErr, "positions not restored: "+sanitizeLine(oneLine(msg.err)))
		}
		cmd = tea.Batch(cmd, p.save())
		// A document that opened before the file was read goes to its
		// place now, unless the user moved already.
		return tea.Batch(cmd, m.broadcast(msg)), true
	case positionsSavedMsg:
		p.saving = false
		var cmd tea.Cmd
		if msg.err != nil {
			cmd = e.setStatus(statusErr, "position not saved: "+sanitizeLine(oneLine(msg.err)))
		}
		return tea.Batch(cmd, p.save()), true
	}
	return nil, false
}

// docHash names the version of the document on screen: the SHA-256 of
// the DPE JSON fetched, or, for a file converted here (no JSON of its
// own), of its URI, last_modified and page titles, which a change of the
// file changes.
func (d *documentScreen) docHash() string {
	h := sha256.New()
	if len(d.op.Body) > 0 {
		h.Write(d.op.Body)
	} else {
		doc := d.op.Doc
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d", doc.URI, doc.FileURI, doc.LastModified, len(doc.Pages))
		for _, p := range doc.Pages {
			h.Write([]byte("\x00" + p.Title + "\x00" + strconv.Itoa(p.ElementCount)))
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// leave remembers where the document is left; the caller saves.
func (d *documentScreen) leave() {
	at := d.placeHere()
	pos := position{URI: d.uri, DocHash: d.docHash(), Page: at.page,
		ElementID: at.elementID, Element: at.el, At: d.e.opt.Now().Unix()}
	if p := d.curPage(); p != nil && d.sel >= 0 && d.sel < len(p.Elements) {
		// The element left and its neighbours only: a few elements
		// hashed, whatever the page's size.
		lo, hi := max(0, d.sel-nearElements), min(len(p.Elements), d.sel+nearElements+1)
		hs := elementHashes(p.Elements[lo:hi])
		pos.ElementHash = string(hs[d.sel-lo])
		for k := 1; k <= nearElements; k++ {
			for _, off := range []int{-k, k} {
				if i := d.sel + off; i >= lo && i < hi && hs[i-lo] != "" {
					pos.Near = append(pos.Near, nearHash{Off: off, Hash: string(hs[i-lo])})
				}
			}
		}
	}
	d.e.positions.remember(pos)
}

// elementHashes are the dpe1 content_hash of each element ("" for one
// the contract cannot hash).
func elementHashes(els []*dpe.Element) []identity.Hash {
	page := &dpe.Page{Elements: els, Decoded: true, Raw: json.RawMessage(`{"page_index":0}`)}
	r := identity.Compute(identity.Map([]byte(`{"pages":[{"page_index":0}]}`), &dpe.Document{Pages: []*dpe.Page{page}}))
	out := make([]identity.Hash, len(els))
	if len(r.Pages) == 1 && len(r.Pages[0].Elements) == len(els) {
		for i, e := range r.Pages[0].Elements {
			out[i] = e.ContentHash
		}
	}
	return out
}

// restore moves a document that opened with no place of its own to where
// it was left: the same version to the same page and element; a changed
// one to that page, where relocate then finds the element by content.
func (d *documentScreen) restore() tea.Cmd {
	d.restoring = false
	pos, ok := d.e.positions.find(d.uri)
	if !ok || pos.Page < 1 || pos.Page > len(d.pages) || (pos.Page == 1 && pos.Element == 0) {
		return nil
	}
	e := d.e
	if pos.DocHash == d.docHash() {
		at := &hitPlace{page: pos.Page, elementID: pos.ElementID, el: pos.Element}
		cmd := e.quietly(func() tea.Cmd { return d.jumpToHit(at) }) // where the document opens is no jump
		return tea.Batch(cmd, e.info("back at page "+strconv.Itoa(at.page)+", where you left it"))
	}
	d.relocating = &pos
	cmd := e.quietly(func() tea.Cmd { return d.gotoPage(pos.Page-1, -1) })
	return tea.Batch(cmd, d.relocate())
}

// relocatedMsg answers relocate: the content hashes of a page's elements.
type relocatedMsg struct {
	doc    *dpe.Opened
	page   int
	hashes []identity.Hash
}

// relocate hashes the page a changed document is restored to, in a
// command, once that page is shown and loaded (nil until then).
func (d *documentScreen) relocate() tea.Cmd {
	pos := d.relocating
	if pos == nil || d.page != pos.Page-1 || !d.pages[d.page].loaded() || d.relocateRunning {
		return nil
	}
	d.relocateRunning = true
	op, i, els := d.op, d.page, d.pages[d.page].p.Elements
	return func() tea.Msg { return relocatedMsg{doc: op, page: i, hashes: elementHashes(els)} }
}

// onRelocated selects the element left, or the nearest one still there,
// unless a key moved the document meanwhile.
func (d *documentScreen) onRelocated(msg relocatedMsg) tea.Cmd {
	d.relocateRunning = false
	pos := d.relocating
	if pos == nil || msg.doc != d.op || msg.page != d.page || msg.page != pos.Page-1 {
		return nil
	}
	d.relocating = nil
	el, exact := relocated(*pos, msg.hashes)
	_, cw := d.layout(d.e.width)
	d.ensureBlocks(cw)
	d.sel = el
	d.reveal(true)
	where := "where you left it"
	if !exact {
		where = "near where you left it (it changed since)"
	}
	return d.e.info("back at page " + strconv.Itoa(pos.Page) + ", " + where)
}

// relocated is the element of a changed page to restore: the one with
// the content hash left (the nearest to its old place if several have
// it), else where the nearest surviving neighbour puts it, else the top.
func relocated(pos position, hs []identity.Hash) (el int, exact bool) {
	if len(hs) == 0 {
		return 0, false
	}
	find := func(h string, near int) int {
		best := -1
		for i, x := range hs {
			if h != "" && string(x) == h && (best < 0 || abs(i-near) < abs(best-near)) {
				best = i
			}
		}
		return best
	}
	if i := find(pos.ElementHash, pos.Element); i >= 0 {
		return i, true
	}
	for _, n := range pos.Near {
		if i := find(n.Hash, pos.Element+n.Off); i >= 0 {
			return min(len(hs)-1, max(0, i-n.Off)), false
		}
	}
	return 0, false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// restoreOnOpen is restore for a document just opened with no place of
// its own: now if the file was read, else once it is (restoring), unless
// a key moved the document first.
func (d *documentScreen) restoreOnOpen() tea.Cmd {
	p := &d.e.positions
	switch {
	case p.path == "":
		return nil
	case p.loaded:
		return d.restore()
	}
	d.restoring = true
	return nil
}
