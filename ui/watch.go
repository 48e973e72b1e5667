package ui

import (
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
)

// Watch mode (Options.Watch): a document opened from a local file is read
// again when the file changes on disk, at the same place, with what
// changed marked as D marks it.
//
// The file is polled with stat rather than watched with inotify: an
// editor that saves by writing a new file and renaming it over the old
// one replaces the inode an inotify watch is on, and a poll of a few
// milliseconds costs nothing next to converting the file. The poll runs in
// a command that answers at least every watchRound, so no command waits
// without bound, and stops when the document closes (its context).

// watchInterval is how often the file is looked at; a change is read
// once the file has kept one size and time for one interval (an editor
// or a copy still writing it changes them between two looks).
const (
	watchInterval = 20 * time.Millisecond
	watchRound    = 2 * time.Second
)

// fileStamp is what a look at the file sees.
type fileStamp struct {
	size int64
	mod  time.Time
	ok   bool
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{size: fi.Size(), mod: fi.ModTime(), ok: true}
}

// watchState is a watched document's file: the stamp of the version on
// screen, the poll's context (cancelled when the document closes) and
// the identity of the version on screen, which the next version is
// compared with.
type watchState struct {
	path   string
	stamp  fileStamp
	ctx    context.Context
	cancel context.CancelFunc
	// reloadOp is the op reading the changed file (0: none).
	reloadOp int
	// prev is the identity of the version replaced, until the new one's
	// identity is known and the changes are marked.
	prev *identity.Result
	// once: D on a file not watched: one read again and its marks, no
	// poll; the state goes when the marks are made.
	once bool
	// readAfterHash: D came before the version on screen was hashed; the
	// file is read again once it is.
	readAfterHash bool
}

// next is the poll again, or nothing for D's one read.
func (w *watchState) next() tea.Cmd {
	if w.once {
		return nil
	}
	return w.poll()
}

// watchMsg answers a poll: changed when the file's stamp differs from
// the version on screen and has settled.
type watchMsg struct {
	w       *watchState
	changed bool
	// gone: the file is no longer there (deleted or moved away).
	gone  bool
	stamp fileStamp
}

// watchReloadMsg answers the read of a changed file: the document again
// with page at converted, or why it could not be read.
type watchReloadMsg struct {
	id    int
	w     *watchState
	op    *dpe.Opened
	src   PageSource
	page  int
	p     *dpe.Page
	perr  error
	err   error
	trace []traceEntry
}

func (m watchReloadMsg) opID() int { return m.id }

// watchPath is the local file of an open target (a path or file:// URI),
// DPE JSON or any other format.
func watchPath(target string) (string, bool) {
	if u, err := url.Parse(target); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		if u.Scheme != "file" {
			return "", false
		}
		return filepath.FromSlash(u.Path), true
	}
	return target, target != ""
}

// startWatch starts watching the document's file when watch mode is on
// and the document is a local file.
func (d *documentScreen) startWatch() tea.Cmd {
	if !d.e.opt.Watch || d.target == "" {
		return nil
	}
	path, ok := watchPath(d.target)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.watch = &watchState{path: path, stamp: stampOf(path), ctx: ctx, cancel: cancel}
	if d.src == nil {
		return d.watch.poll() // DPE JSON: D compares both versions itself
	}
	// The identity of this version, for the marks of the next one.
	return tea.Batch(d.watch.poll(), d.identify())
}

// stopWatch ends the poll: the document closed or was replaced.
func (d *documentScreen) stopWatch() {
	if d.watch != nil {
		d.watch.cancel()
	}
}

// poll looks at the file until it changed and settled, the round ends or
// the watch stops.
func (w *watchState) poll() tea.Cmd {
	ctx, path, shown := w.ctx, w.path, w.stamp
	return func() tea.Msg {
		t := time.NewTicker(watchInterval)
		defer t.Stop()
		round := time.NewTimer(watchRound)
		defer round.Stop()
		last := shown
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-round.C:
				return watchMsg{w: w}
			case <-t.C:
			}
			now := stampOf(path)
			if now != shown && now == last && now.ok {
				return watchMsg{w: w, changed: true, stamp: now}
			}
			if shown.ok && !now.ok && !last.ok {
				return watchMsg{w: w, gone: true}
			}
			last = now
		}
	}
}

// onWatch handles the poll's and the reload's answers; ok is false for
// messages that are not this document's.
func (d *documentScreen) onWatch(msg tea.Msg) (tea.Cmd, bool) {
	w := d.watch
	switch msg := msg.(type) {
	case watchMsg:
		if w == nil || msg.w != w || w.ctx.Err() != nil {
			return nil, msg.w != nil
		}
		if msg.gone {
			// The last version read stays; the file coming back (an
			// editor's delete and write again) is read as a change.
			w.stamp = fileStamp{}
			name := sanitizeLine(filepath.Base(w.path))
			return tea.Batch(w.poll(), d.e.setStatus(statusErr, name+" was deleted or moved away on disk; showing the last version read")), true
		}
		if !msg.changed {
			return w.poll(), true
		}
		w.stamp = msg.stamp
		if d.src == nil {
			// DPE JSON: what D does, the fresh read compared with the
			// version on screen.
			return tea.Batch(d.refetchDiff(), w.poll()), true
		}
		return d.reloadFile(), true
	case watchReloadMsg:
		if w == nil || msg.w != w {
			return nil, msg.w != nil
		}
		w.reloadOp = 0
		return tea.Batch(d.onReload(msg), w.next()), true
	case errMsg:
		if w != nil && msg.id != 0 && msg.id == w.reloadOp {
			// Cancelled (esc) or failed in a panic: the view stays, and
			// the next change is read again.
			w.reloadOp = 0
			return tea.Batch(d.e.setErr(msg.what, msg.err), w.next()), true
		}
	}
	return nil, false
}

// reloadFile converts the changed file again, the page on screen first,
// in a command.
func (d *documentScreen) reloadFile() tea.Cmd {
	e, w := d.e, d.watch
	open, now, path, page, target := e.opt.OpenFile, e.opt.Now, w.path, d.page, d.target
	if open == nil {
		return w.next()
	}
	id, cmd := e.start("reading "+sanitizeLine(filepath.Base(path))+" again", openTimeout, func(ctx context.Context, id int) tea.Msg {
		buf := &traceBuf{}
		src, err := open(ctx, path)
		if err != nil {
			return watchReloadMsg{id: id, w: w, err: err}
		}
		doc := src.Skeleton()
		if doc == nil {
			return watchReloadMsg{id: id, w: w, err: errNoSkeleton}
		}
		msg := watchReloadMsg{id: id, w: w, src: src, op: &dpe.Opened{Access: dpe.Access{URI: target}, Kind: dpe.KindDocument, Doc: doc}}
		if len(doc.Pages) > 0 {
			msg.page = min(page, len(doc.Pages)-1)
			msg.p, msg.perr = convertPage(ctx, src, buf, now, msg.page)
		}
		msg.trace = buf.entries
		return msg
	})
	w.reloadOp = id
	return cmd
}

// onReload shows the file's new version at the place the old one was
// shown (as r does), or says why it could not be read and keeps the old.
func (d *documentScreen) onReload(msg watchReloadMsg) tea.Cmd {
	e := d.e
	name := sanitizeLine(filepath.Base(d.watch.path))
	d.trace.add(msg.trace...)
	if msg.err != nil {
		// A file caught half-written does not convert: one line, the
		// old view stays, and the write that completes it is read.
		return e.setStatus(statusErr, name+" changed on disk but does not read ("+oneLine(msg.err)+"); showing the version before")
	}
	at := d.placeHere()
	d.watch.prev = d.idn.of(d.op)
	if c, ok := d.src.(io.Closer); ok {
		c.Close() // the old version's file
	}
	d.src = msg.src
	d.replaceDoc(msg.op)
	switch {
	case msg.page >= len(d.pages):
	case msg.p != nil:
		d.install(msg.page, msg.p)
	case msg.perr != nil:
		d.pages[msg.page].err = oneLine(msg.perr)
	}
	said := name + " changed on disk: read again"
	if at.page > len(d.pages) {
		said = name + " changed on disk: page " + strconv.Itoa(at.page) + " is gone; showing page " + strconv.Itoa(len(d.pages)) + "/" + strconv.Itoa(len(d.pages))
		at = &hitPlace{page: max(1, len(d.pages))}
	}
	cmd := e.quietly(func() tea.Cmd { return d.jumpToHit(at) }) // the same place again is no jump
	return tea.Batch(cmd, d.validate(), d.schedule(), d.identify(), e.setStatus(statusOK, said))
}

// watchMarks marks what changed once the new version's identity is
// known; nothing when the old one's was not (the change came before it
// was computed).
func (d *documentScreen) watchMarks() tea.Cmd {
	w := d.watch
	if w == nil || w.prev == nil || d.idn.of(d.op) == nil {
		return nil
	}
	prev := w.prev
	w.prev = nil
	d.markChanges(prev, d.idn.res, diffOf(prev, d.idn.res))
	says := " changed on disk: "
	if w.once {
		d.watch = nil // D's one read is done
		says = " read again and compared with the version shown before: "
	}
	return d.e.setStatus(statusOK, sanitizeLine(filepath.Base(w.path))+says+strings.TrimPrefix(d.diff.text, "changed: "))
}

// localDiff is D on a file converted here: the file is read again and
// shown at the same place, and what changed since the version on screen
// is marked, as watch mode marks a change. The version on screen is
// hashed first when it was not yet.
func (d *documentScreen) localDiff() tea.Cmd {
	e := d.e
	path, ok := watchPath(d.target)
	if !ok || e.opt.OpenFile == nil {
		return e.info("D compares with a fresh read; this document has no file to read again")
	}
	if d.watch == nil {
		ctx, cancel := context.WithCancel(context.Background())
		d.watch = &watchState{path: path, ctx: ctx, cancel: cancel, once: true}
	}
	w := d.watch
	if w.reloadOp != 0 || w.readAfterHash {
		return e.info("already reading " + sanitizeLine(filepath.Base(path)) + " again")
	}
	w.stamp = stampOf(path) // what is read now is not a change to read again
	if d.idn.of(d.op) == nil {
		w.readAfterHash = true
		return d.identify()
	}
	return d.reloadFile()
}

// readAfterHash reads the file again for D once the version on screen
// has its identity.
func (d *documentScreen) readAfterHash() tea.Cmd {
	w := d.watch
	if w == nil || !w.readAfterHash || d.idn.of(d.op) == nil {
		return nil
	}
	w.readAfterHash = false
	return d.reloadFile()
}
