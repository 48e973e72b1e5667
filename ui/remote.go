package ui

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
)

// Remote is a DPE v1 remote to browse (github.com/A2C-SMCP/dpe-protocol,
// spec/bindings/http.md): its documents by prefix as folders, a
// document's skeleton, and which local files are stale against it.
type Remote struct {
	// Label names the remote on screen (its URL).
	Label string
	// Connect returns a client and the remote's capabilities. It runs in
	// a command, bounded by RequestTimeout and cancelled by esc; the
	// demo's remote starts inside it.
	Connect func(ctx context.Context) (*dpev1.Client, *wire.Capabilities, error)
	// Local lists this machine's documents as they would be pushed, to
	// mark stale ones (nil: no marks). It runs in a command after Connect.
	Local func(ctx context.Context) (*LocalDocs, error)
	// Cache is this machine's content (element objects by content hash,
	// verified on read); nil: none.
	Cache ContentCache
}

// LocalDocs are local files as a push would deliver them.
type LocalDocs struct {
	// From names where they are ("--docs DIR", "last pushed: DIR").
	From string
	// Prefix is the file_uri prefix they were given (push's --prefix):
	// only documents under it are compared.
	Prefix string
	Docs   []LocalDoc
	// Failed counts files that did not convert.
	Failed int
}

// LocalDoc is one local file: its file_uri on the remote and its dpe1
// doc_hash.
type LocalDoc struct{ URI, Hash, Path string }

// ContentCache answers an element object by its content hash, and an
// Image's blob by its sha256 reference, verified.
type ContentCache interface {
	Get(hash string) ([]byte, bool)
	GetBlob(ref string) ([]byte, bool)
}

// maxRemoteListed bounds one listing the browser keeps.
const maxRemoteListed = 100000

// remoteConn is an open remote, shared read-only by its screens.
type remoteConn struct {
	label string
	c     *dpev1.Client
	caps  *wire.Capabilities
	cache ContentCache
	// local is nil when no local files were given.
	local     map[string]LocalDoc
	localFrom string
	// localPrefix is where the local files are on the remote ("": all).
	localPrefix string
	localErr    string
	failed      int
}

func (rc *remoteConn) readObjects() bool {
	return rc.caps != nil && rc.caps.Has(wire.FeatureReadObjects)
}

// contentLine says where content comes from, in the user's words.
func (rc *remoteConn) contentLine() string {
	if rc.readObjects() {
		return "content: from the remote's read extension, else this machine's cache"
	}
	return "content extension off: showing skeleton and locally cached content"
}

// setLocal keeps the local files read (or why they could not be), in
// place of any read before.
func (rc *remoteConn) setLocal(local *LocalDocs, err error) {
	rc.local, rc.localFrom, rc.localPrefix, rc.failed, rc.localErr = nil, "", "", 0, ""
	if err != nil {
		rc.localErr = oneLine(err)
	}
	if local == nil {
		return
	}
	rc.local = map[string]LocalDoc{}
	for _, d := range local.Docs {
		if n, bad := wire.NormalizeURI(d.URI); bad == nil {
			d.URI = n
		}
		rc.local[d.URI] = d
	}
	rc.localFrom, rc.failed = local.From, local.Failed
	if n, bad := wire.NormalizeURI(local.Prefix); bad == nil {
		rc.localPrefix = n
	} else {
		rc.localPrefix = local.Prefix
	}
}

type remoteConnMsg struct {
	id    int
	conn  *remoteConn
	err   error
	local *LocalDocs
	lerr  error
}

func (m remoteConnMsg) opID() int { return m.id }

type remoteListMsg struct {
	id        int
	prefix    string
	entries   []wire.ListEntry
	truncated bool
	err       error
	// reread: the local files were read again first (r).
	reread bool
	local  *LocalDocs
	lerr   error
}

func (m remoteListMsg) opID() int { return m.id }

// remoteRow is a folder or a document under the prefix shown.
type remoteRow struct {
	name   string // relative to the prefix, as the URI has it
	folder string // the folder's full prefix; "" for a document
	uri    string
	remote string // the remote's doc_hash ("" : only local)
	local  string // the local doc_hash ("" : not local)
	path   string // the local file
	// outside: a document not under the local files' prefix, so not
	// compared with them.
	outside bool
	// A folder's counts.
	docs, stale, remoteOnly, localOnly int
}

// state is a document's mark against the local files.
func (r remoteRow) state(haveLocal bool) string {
	switch {
	case r.remote == "":
		return "only local"
	case !haveLocal || r.outside:
		return ""
	case r.local == "":
		return "only remote"
	case r.local != r.remote:
		return "stale"
	}
	return "same"
}

// remoteScreen lists a remote's documents under a prefix as folders.
type remoteScreen struct {
	e      *env
	r      *Remote
	conn   *remoteConn
	prefix string
	// trail is the way back: the prefixes left and where the cursor was.
	trail []remoteTrail
	// all is the listing; rows the part of it the filter (/) keeps.
	all       []remoteRow
	rows      []remoteRow
	filter    string
	list      scroller
	loaded    bool
	truncated bool
	op        int
	err       string
}

type remoteTrail struct {
	prefix string
	cur    int
}

func newRemoteScreen(e *env, r *Remote) *remoteScreen { return &remoteScreen{e: e, r: r} }

// connect opens the remote and lists this machine's files, in one op.
func (v *remoteScreen) connect() tea.Cmd {
	r := v.r
	id, cmd := v.e.start("opening DPE v1 remote "+sanitizeLine(r.Label), v.e.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		c, caps, err := r.Connect(ctx)
		if err != nil {
			return remoteConnMsg{id: id, err: err}
		}
		msg := remoteConnMsg{id: id, conn: &remoteConn{label: r.Label, c: c, caps: caps, cache: r.Cache}}
		if r.Local != nil {
			msg.local, msg.lerr = r.Local(ctx)
		}
		return msg
	})
	v.op = id
	return cmd
}

// load lists the documents under the prefix.
func (v *remoteScreen) load() tea.Cmd { return v.listing(nil) }

// reload is r: this machine's files read again (they may have changed
// since the remote was opened), then the listing.
func (v *remoteScreen) reload() tea.Cmd { return v.listing(v.r.Local) }

// listing lists the prefix, after reading the local files when local is
// set, in one op.
func (v *remoteScreen) listing(local func(context.Context) (*LocalDocs, error)) tea.Cmd {
	c, prefix := v.conn.c, v.prefix
	what := "listing " + sanitizeLine(orAll(prefix))
	if local != nil {
		what = "reading the local files, " + what
	}
	id, cmd := v.e.start(what, v.e.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		msg := remoteListMsg{id: id, prefix: prefix, reread: local != nil}
		if local != nil {
			msg.local, msg.lerr = local(ctx)
		}
		for ent, err := range c.List(ctx, prefix, dpev1.ListOptions{}) {
			if err != nil {
				msg.err = err
				return msg
			}
			if len(msg.entries) >= maxRemoteListed {
				msg.truncated = true
				break
			}
			msg.entries = append(msg.entries, ent)
		}
		return msg
	})
	v.op = id
	return cmd
}

func orAll(prefix string) string {
	if prefix == "" {
		return "all documents"
	}
	return prefix
}

func (v *remoteScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case remoteConnMsg:
		if msg.id != v.op {
			return v, nil
		}
		v.op = 0
		if msg.err != nil {
			v.err = oneLine(msg.err)
			return v, v.e.setErr("DPE v1 remote "+sanitizeLine(v.r.Label), msg.err)
		}
		v.conn = msg.conn
		v.conn.setLocal(msg.local, msg.lerr)
		return v, v.load()
	case remoteListMsg:
		if msg.id != v.op {
			return v, nil
		}
		v.op = 0
		if msg.err != nil {
			v.err = oneLine(msg.err)
			return v, v.e.setErr("list "+sanitizeLine(orAll(msg.prefix)), msg.err)
		}
		if msg.reread {
			v.conn.setLocal(msg.local, msg.lerr)
		}
		v.err, v.loaded, v.truncated = "", true, msg.truncated
		v.all = remoteRows(msg.prefix, msg.entries, v.conn.local, v.conn.localPrefix)
		v.applyFilter()
	case promptChangedMsg:
		if msg.mode == barFilter {
			v.filter = msg.value
			v.applyFilter()
		}
	case promptDoneMsg:
		if msg.mode == barFilter && msg.cancelled {
			v.filter = ""
			v.applyFilter()
		}
	case errMsg:
		if msg.id == v.op {
			v.op, v.err = 0, oneLine(msg.err)
		}
	case cancelledMsg:
		if msg.id == v.op {
			v.op, v.err = 0, "cancelled"
		}
	case tea.KeyPressMsg:
		return v, v.key(msg)
	case tea.MouseWheelMsg:
		v.list.wheel(msg.Button == tea.MouseWheelUp, len(v.rows), v.listHeight())
	}
	return v, nil
}

func (v *remoteScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	k := v.e.keys
	if v.list.nav(k, msg, len(v.rows), v.listHeight()) {
		return nil
	}
	switch {
	case matches(msg, k.Back) && v.filter != "":
		v.filter = ""
		v.applyFilter()
		return nil
	case matches(msg, k.Filter):
		if v.conn == nil {
			return nil
		}
		return v.e.ask(promptMsg{mode: barFilter, value: v.filter, validate: func(string) (string, bool) {
			return counted(len(v.rows), "match", "matches"), true
		}})
	case matches(msg, k.Back, k.Left):
		if len(v.trail) == 0 {
			if matches(msg, k.Left) {
				return nil
			}
			return v.e.ask(popMsg{})
		}
		t := v.trail[len(v.trail)-1]
		v.trail = v.trail[:len(v.trail)-1]
		v.prefix, v.list.cur, v.loaded, v.filter = t.prefix, t.cur, false, ""
		return v.load()
	case matches(msg, k.Refresh):
		if v.conn == nil {
			return v.connect()
		}
		return v.reload()
	case matches(msg, k.Enter, k.Right):
		if v.conn == nil || v.list.cur >= len(v.rows) {
			return nil
		}
		r := v.rows[v.list.cur]
		if r.folder != "" {
			v.trail = append(v.trail, remoteTrail{prefix: v.prefix, cur: v.list.cur})
			v.prefix, v.list.cur, v.list.top, v.loaded, v.filter = r.folder, 0, 0, false, ""
			return v.load()
		}
		if r.remote == "" {
			return v.e.info(sanitizeLine(r.name) + " is only local: push it to see its skeleton")
		}
		s := newRemoteDocScreen(v.e, v.conn, r)
		return tea.Batch(v.e.ask(pushMsg{s: s}), s.load(""))
	}
	return nil
}

// applyFilter keeps the rows whose name has the filter in it (any case).
func (v *remoteScreen) applyFilter() {
	f := foldKey(v.filter)
	v.rows = v.all
	if f != "" {
		v.rows = nil
		for _, r := range v.all {
			if strings.Contains(foldKey(displayName(r.name)), f) {
				v.rows = append(v.rows, r)
			}
		}
	}
	v.list.clamp(len(v.rows), v.listHeight())
}

func (v *remoteScreen) statusText(w int) string {
	if v.filter == "" {
		return ""
	}
	return clip(v.e.st.info.Render(fmt.Sprintf(" filter %q: %d of %d", sanitizeLine(v.filter), len(v.rows), len(v.all)))+v.e.st.dim.Render(" · esc clears"), w)
}

// head is the lines above the rows.
const remoteHead = 4

func (v *remoteScreen) listHeight() int { return max(1, v.e.bodyHeight()-remoteHead) }

func (v *remoteScreen) View(w, h int) []string {
	e, st := v.e, v.e.st
	lines := []string{st.title.Render(clip("  DPE v1 remote "+sanitizeLine(v.r.Label), w))}
	if v.conn == nil {
		if v.err != "" {
			return append(lines, "", st.errText.Render(clip("  "+v.err, w)), st.dim.Render("  r retries"))
		}
		return append(lines, "", "  "+e.spin.View()+" opening the remote…")
	}
	lines = append(lines, st.dim.Render(clip("  "+v.conn.contentLine(), w)), st.dim.Render(clip("  "+v.localLine(), w)))
	haveLocal := v.conn.local != nil
	cells := make([][]string, len(v.rows))
	for i, r := range v.rows {
		if r.folder != "" {
			cells[i] = []string{displayName(r.name), folderCounts(r, haveLocal), ""}
		} else {
			cells[i] = []string{displayName(r.name), r.state(haveLocal), hashCell(r.remote)}
		}
	}
	cols := remoteCols(w-2, cells)
	lines = append(lines, "  "+st.colHead.Render(joinCols(cols, colHeader(cols))))
	switch {
	case v.err != "" && !v.loaded:
		return append(lines, st.errText.Render(clip("  "+v.err, w)))
	case !v.loaded:
		return append(lines, "  "+e.spin.View()+" listing "+sanitizeLine(orAll(v.prefix))+"…")
	case len(v.rows) == 0 && v.filter != "":
		return append(lines, st.dim.Render(clip(fmt.Sprintf("  Nothing here matches %q.", sanitizeLine(v.filter)), w)))
	case len(v.rows) == 0:
		return append(lines, st.dim.Render(clip("  No documents under "+sanitizeLine(orAll(v.prefix))+".", w)))
	}
	v.list.clamp(len(v.rows), h-len(lines))
	for i := v.list.top; i < len(v.rows) && len(lines) < h; i++ {
		r := v.rows[i]
		lines = append(lines, listRow(st, joinCols(cols, cells[i]), i == v.list.cur, r.remote == "" && r.folder == "", w))
	}
	return lines
}

func (v *remoteScreen) localLine() string {
	rc := v.conn
	switch {
	case rc.localErr != "":
		return "local files: " + rc.localErr
	case rc.local == nil:
		return "no local files to compare (--docs DIR marks stale ones)"
	}
	// The counts first: a long folder and prefix are what a narrow
	// screen cuts.
	s := "local files (" + counted(len(rc.local), "document", "documents")
	if rc.failed > 0 {
		s += ", " + counted(rc.failed, "file", "files") + " did not convert"
	}
	s += "): " + sanitizeLine(rc.localFrom)
	if rc.localPrefix != "" {
		s += " as " + displayName(rc.localPrefix)
	}
	return s
}

// remoteCols fits the columns to w cells: STATE as wide as its widest
// cell (a folder's counts are a few words, and a cut one says nothing),
// NAME the rest, cut with … when it must (never below minRemoteCol, the
// state giving way then). DOC HASH is a short hash, always whole.
func remoteCols(w int, cells [][]string) []column {
	const hashW, minRemoteCol = 18, 10
	state := len("STATE")
	for _, c := range cells {
		state = max(state, ansi.StringWidth(c[1]))
	}
	room := max(2*minRemoteCol, w-hashW-2*2)
	state = min(state, room-minRemoteCol)
	return []column{{"NAME", room - state}, {"STATE", state}, {"DOC HASH", hashW}}
}

func folderCounts(r remoteRow, haveLocal bool) string {
	s := counted(r.docs, "doc", "docs")
	if !haveLocal {
		return s
	}
	var parts []string
	if r.stale > 0 {
		parts = append(parts, fmt.Sprintf("%d stale", r.stale))
	}
	if r.localOnly > 0 {
		parts = append(parts, fmt.Sprintf("%d local", r.localOnly))
	}
	if r.remoteOnly > 0 {
		parts = append(parts, fmt.Sprintf("%d remote", r.remoteOnly))
	}
	if len(parts) > 0 {
		s += " · " + strings.Join(parts, " ")
	}
	return s
}

// displayName is a URI part as a person reads it: percent-decoded (core
// §1.1 encodes non-ASCII), then sanitized.
func displayName(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		s = u
	}
	return sanitizeLine(s)
}

// hashCell is a hash from the remote, short, for a row.
func hashCell(h string) string { return sanitizeLine(shortHash(identity.Hash(h))) }

// remoteRows groups the documents under prefix (remote and local) into
// the folders and documents directly under it. A folder's name runs to the
// longest folder all its documents share, so a deep single path
// (file:///home/me/papers/) is one step, not one per segment.
//
// Only documents under localPrefix are compared with the local files: the
// same folder pushed under another prefix is not "only remote".
func remoteRows(prefix string, remote []wire.ListEntry, local map[string]LocalDoc, localPrefix string) []remoteRow {
	type doc struct{ uri, remote, local, path string }
	byURI := map[string]*doc{}
	for _, e := range remote {
		if strings.HasPrefix(e.FileURI, prefix) {
			byURI[e.FileURI] = &doc{uri: e.FileURI, remote: e.DocHash}
		}
	}
	for uri, l := range local {
		if !strings.HasPrefix(uri, prefix) {
			continue
		}
		d := byURI[uri]
		if d == nil {
			d = &doc{uri: uri}
			byURI[uri] = d
		}
		d.local, d.path = l.Hash, l.Path
	}
	groups := map[string][]*doc{}
	var rows []remoteRow
	for _, d := range byURI {
		rest := d.uri[len(prefix):]
		seg, _, isDir := strings.Cut(rest, "/")
		if !isDir {
			rows = append(rows, remoteRow{name: rest, uri: d.uri, remote: d.remote, local: d.local, path: d.path,
				outside: !strings.HasPrefix(d.uri, localPrefix)})
			continue
		}
		groups[seg] = append(groups[seg], d)
	}
	for _, ds := range groups {
		common := ds[0].uri[len(prefix):]
		common = common[:strings.LastIndex(common, "/")+1]
		for _, d := range ds[1:] {
			common = commonDir(common, d.uri[len(prefix):])
		}
		r := remoteRow{name: common, folder: prefix + common, docs: len(ds)}
		for _, d := range ds {
			switch {
			case d.remote == "":
				r.localOnly++
			case !strings.HasPrefix(d.uri, localPrefix):
				// not compared
			case d.local == "":
				r.remoteOnly++
			case d.local != d.remote:
				r.stale++
			}
		}
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b remoteRow) int {
		if (a.folder == "") != (b.folder == "") {
			if a.folder != "" {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	return rows
}

// commonDir is the longest prefix of dir (ending in /) that s has as a
// folder of its own.
func commonDir(dir, s string) string {
	for dir != "" && !strings.HasPrefix(s, dir) {
		dir = dir[:strings.LastIndex(dir[:len(dir)-1], "/")+1]
	}
	return dir
}

func (v *remoteScreen) Keys() screenKeys {
	k := v.e.keys
	short := []key2{withHelp(k.Enter, "open"), withHelp(k.Back, "up a folder"), k.Filter, k.Refresh, k.Up, k.Down}
	actions := []key2{withHelp(k.Enter, "folder / skeleton"), withHelp(k.Left, "up a folder"), k.Filter, withHelp(k.Refresh, "list again (local files read again)")}
	return screenKeys{short: short, full: [][]key2{k.navKeys(), actions, remoteGlobalKeys(v.e)},
		notes: []string{"STATE compares each document with this machine's files:",
			"same · stale (the hash differs) · only remote · only local"}}
}

func (v *remoteScreen) Crumb() string {
	if v.prefix == "" {
		return "DPE v1 remote"
	}
	return "DPE v1 " + displayName(v.prefix)
}

// remoteGlobalKeys are the global keys that work in the remote browser:
// the Finder searches an office, so it is left out with no office.
func remoteGlobalKeys(e *env) []key2 {
	var out []key2
	for _, b := range e.keys.globalKeys() {
		if e.agent == nil && b.Help().Key == e.keys.Finder.Help().Key {
			continue
		}
		out = append(out, b)
	}
	return out
}
