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

	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/internal/safewrite"
)

// Restore position: reopening a document returns to where it was left.
// The places live in one JSON file under the XDG state directory
// ($XDG_STATE_HOME, else ~/.local/state)/dpe-tui/positions.json, keyed by
// the document's URI and the hash of the version left. Same hash: the
// same page and element. Another hash (the document changed): the element
// with the same id on that page if it is still there, else the page's top.
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
}

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
	d.e.positions.remember(position{URI: d.uri, DocHash: d.docHash(), Page: at.page,
		ElementID: at.elementID, Element: at.el, At: d.e.opt.Now().Unix()})
}

// restorePlace is where a document opened with no place of its own
// goes: where it was left, the element by id only when the document
// changed since.
func (d *documentScreen) restorePlace() *hitPlace {
	pos, ok := d.e.positions.find(d.uri)
	if !ok || pos.Page < 1 || pos.Page > len(d.pages) || (pos.Page == 1 && pos.Element == 0) {
		return nil
	}
	at := &hitPlace{page: pos.Page, elementID: pos.ElementID, el: pos.Element}
	if pos.DocHash != d.docHash() {
		at.el = 0 // not the element now at that index: the page's top
	}
	return at
}

// restore moves a document that opened with no place of its own to where
// it was left.
func (d *documentScreen) restore() tea.Cmd {
	d.restoring = false
	at := d.restorePlace()
	if at == nil {
		return nil
	}
	e := d.e
	cmd := e.quietly(func() tea.Cmd { return d.jumpToHit(at) }) // where the document opens is no jump
	return tea.Batch(cmd, e.info("back at page "+strconv.Itoa(at.page)+", where you left it"))
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
