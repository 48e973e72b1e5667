package ui

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/render"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// env is what every screen and overlay shares: the size, the styles and
// renderer of the theme, the keymap, the status line and the op table.
// Screens get this, never the root model; what they want from the root
// (open a URI, push a screen, show a prompt) they ask for with a message.
type env struct {
	opt   Options
	agent Agent
	conn  client.StateEvent

	width, height int
	// notice is a NoticeMsg said while something runs (the PDF engine
	// compiling inside an open): the status line shows it beside the
	// running operation, which would otherwise hide it, until nothing
	// runs.
	notice string

	// positions are where documents were left (restore.go).
	positions positions
	// jumps is the history of places ctrl+o and ctrl+i walk.
	jumps    jumpList
	keys     keyMap
	spin     spinner.Model
	st       styles
	theme    string
	renderer *render.Renderer
	// themeGen changes with the theme, so screens know their caches are
	// stale.
	themeGen int

	ops    *opTable
	status statusLine
	// lastErr is the last error shown, complete, for the error detail
	// view (the status line shows its first sentence).
	lastErr *errorInfo
	// recent are the last status messages, oldest first, for E.
	recent []loggedMessage
	// lastTrace is the trace of the last open, kept when it failed so
	// that x still explains why.
	lastTrace *traceLog
	// behind is how many screens are under the top one (the root sets it
	// in Update): esc has nothing to go back to when it is 0, and no hint
	// says it does.
	behind int
	// asks are the requests screens made during this Update (ask).
	asks []tea.Msg
	// ackDropped is set when an answer over the ack size limit dropped
	// the connection: the re-join after it does not refresh the screen,
	// which would ask for the same answer and drop it again, forever.
	ackDropped bool
}

// Layout: header (1), breadcrumb (1), body, status line (1), help or
// prompt (1).
const chromeHeight = 4

func (e *env) bodyHeight() int { return max(1, e.height-chromeHeight) }

// op is one in-flight piece of I/O. Its context is cancelled by esc; a
// result that arrives for an op no longer in the table is dropped, so a
// cancelled request can never overwrite the screen.
type op struct {
	id       int
	label    string
	ctx      context.Context
	cancel   context.CancelFunc
	progress string
	// long ops (export, load all, search) make q ask before quitting.
	long bool
}

type opTable struct {
	next int
	live map[int]*op
}

func newOpTable() *opTable { return &opTable{live: map[int]*op{}} }

func (t *opTable) add(label string, timeout time.Duration) *op {
	t.next++
	var ctx context.Context
	var cancel context.CancelFunc
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), timeout)
	} else {
		ctx, cancel = context.WithCancel(context.Background())
	}
	o := &op{id: t.next, label: label, ctx: ctx, cancel: cancel}
	t.live[o.id] = o
	return o
}

// done removes the op and reports whether it was still live.
func (t *opTable) done(id int) bool {
	o, ok := t.live[id]
	if !ok {
		return false
	}
	o.cancel()
	delete(t.live, id)
	return true
}

func (t *opTable) get(id int) *op { return t.live[id] }

func (t *opTable) busy() bool { return len(t.live) > 0 }

// newest is the op started last: the one the spinner line describes and
// the one esc cancels first.
func (t *opTable) newest() *op {
	var best *op
	for _, o := range t.live {
		if best == nil || o.id > best.id {
			best = o
		}
	}
	return best
}

// longRunning is the newest long op, or nil.
func (t *opTable) longRunning() *op {
	var best *op
	for _, o := range t.live {
		if o.long && (best == nil || o.id > best.id) {
			best = o
		}
	}
	return best
}

// cancelAll cancels every op and returns their ids in start order.
func (t *opTable) cancelAll() []int {
	ids := make([]int, 0, len(t.live))
	for id := range t.live {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		t.done(id)
	}
	return ids
}

// start registers an op and returns its id and the command running fn
// under its context. The spinner starts ticking when the first op begins.
func (e *env) start(label string, timeout time.Duration, fn func(ctx context.Context, id int) tea.Msg) (int, tea.Cmd) {
	wasBusy := e.ops.busy()
	o := e.ops.add(label, timeout)
	cmd := e.safe(o.id, func() tea.Msg { return fn(o.ctx, o.id) })
	if !wasBusy {
		return o.id, tea.Batch(cmd, e.spin.Tick)
	}
	return o.id, cmd
}

// startLong is start for an op that q asks about before quitting.
func (e *env) startLong(label string, fn func(ctx context.Context, id int) tea.Msg) (int, tea.Cmd) {
	id, cmd := e.start(label, 0, fn)
	e.ops.get(id).long = true
	return id, cmd
}

// step continues a multi-step op with the same context, so one esc
// cancels the whole run.
func (e *env) step(id int, fn func(ctx context.Context, id int) tea.Msg) tea.Cmd {
	o := e.ops.get(id)
	if o == nil {
		return nil
	}
	return e.safe(id, func() tea.Msg { return fn(o.ctx, id) })
}

// progress sets the progress text of a live op.
func (e *env) progress(id int, s string) {
	if o := e.ops.get(id); o != nil {
		o.progress = s
	}
}

// safe turns a panic inside a command into an errMsg; the stack goes to
// the log, the user sees one line, and the program keeps running.
func (e *env) safe(id int, fn func() tea.Msg) tea.Cmd {
	log := e.opt.Logger
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				log.Error("panic in command", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				msg = errMsg{id: id, err: fmt.Errorf("internal error: %v", r), panic: true}
			}
		}()
		return fn()
	}
}

// isCancel reports errors that mean the user pressed esc.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled)
}

// status line

type statusKind int

const (
	statusInfo statusKind = iota
	statusOK
	statusErr
)

type statusLine struct {
	id   int
	kind statusKind
	text string
	// seen: a key was pressed while this line was shown. Esc puts away
	// only an error nobody has answered yet; after that esc is the
	// screen's again.
	seen bool
}

type clearStatusMsg struct{ id int }

func (e *env) setStatus(kind statusKind, text string) tea.Cmd {
	id := e.status.id + 1
	// Callers build messages from names and errors that came from the
	// network; sanitizing here as well makes the status line safe by
	// construction (sanitizing is idempotent).
	e.status = statusLine{id: id, kind: kind, text: sanitizeLine(sanitize.URLsIn(text))}
	e.remember(kind, e.status.text)
	d := 4 * time.Second
	if kind == statusErr {
		d = 10 * time.Second
	}
	switch {
	case e.opt.StatusTimeout < 0:
		return nil
	case e.opt.StatusTimeout > 0:
		d = e.opt.StatusTimeout
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return clearStatusMsg{id: id} })
}

func (e *env) info(text string) tea.Cmd { return e.setStatus(statusInfo, text) }

// dropStatus clears the status line when the screen changes: what it said
// was about the screen left ("opened …", a 4017 of a file), and its
// pending clear no longer matches (ids).
func (e *env) dropStatus() { e.status = statusLine{id: e.status.id + 1} }

// detailsHint ends an error's status line that E says more about.
const detailsHint = " · E details"

// setErr shows an error: its first sentence on the status line, the whole
// of it in the detail view (E).
func (e *env) setErr(what string, err error) tea.Cmd {
	info := newErrorInfo(what, err)
	e.lastErr = info
	text := info.summary
	if info.more {
		text += detailsHint
	}
	return e.setStatus(statusErr, text)
}
