package ui

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"
)

// op is one in-flight piece of I/O. Its context is cancelled by esc; a result
// that arrives for an op no longer in the table is dropped, so a cancelled
// request can never overwrite the screen (issue 6 "No hangs").
type op struct {
	id       int
	label    string
	ctx      context.Context
	cancel   context.CancelFunc
	progress string
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

// newest is the op started last: the one the spinner line describes and the
// one esc cancels first.
func (t *opTable) newest() *op {
	var best *op
	for _, o := range t.live {
		if best == nil || o.id > best.id {
			best = o
		}
	}
	return best
}

// cancelAll cancels every op and returns their labels.
func (t *opTable) cancelAll() []string {
	var labels []string
	ids := make([]int, 0, len(t.live))
	for id := range t.live {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		labels = append(labels, t.live[id].label)
		t.done(id)
	}
	return labels
}

// start registers an op and returns the command running fn under its
// context. The spinner starts ticking when the first op begins.
func (m *model) start(label string, timeout time.Duration, fn func(ctx context.Context, id int) tea.Msg) tea.Cmd {
	wasBusy := m.ops.busy()
	o := m.ops.add(label, timeout)
	cmd := m.safe(o.id, func() tea.Msg { return fn(o.ctx, o.id) })
	if !wasBusy {
		return tea.Batch(cmd, m.spin.Tick)
	}
	return cmd
}

// step continues a multi-step op (load all pages, search) with the same
// context, so one esc cancels the whole run.
func (m *model) step(id int, fn func(ctx context.Context, id int) tea.Msg) tea.Cmd {
	o := m.ops.get(id)
	if o == nil {
		return nil
	}
	return m.safe(id, func() tea.Msg { return fn(o.ctx, id) })
}

// safe turns a panic inside a command into an errMsg; the stack goes to the
// log, the user sees one line, and the program keeps running.
func (m *model) safe(id int, fn func() tea.Msg) tea.Cmd {
	log := m.opt.Logger
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				log.Error("panic in command", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				msg = errMsg{opID: id, err: fmt.Errorf("internal error: %v", r), panic: true}
			}
		}()
		return fn()
	}
}

// isCancel reports errors that mean the user pressed esc.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled)
}
