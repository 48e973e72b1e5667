package ui

import (
	"context"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Accessors for tests: the screen of a kind nearest the top of the stack.

func findScreen[T screen](m *model) T {
	var zero T
	for i := len(m.stack) - 1; i >= 0; i-- {
		if s, ok := m.stack[i].(T); ok {
			return s
		}
	}
	return zero
}

func (m *model) docS() *documentScreen    { return findScreen[*documentScreen](m) }
func (m *model) resS() *resourcesScreen   { return findScreen[*resourcesScreen](m) }
func (m *model) officeS() *officeScreen   { return findScreen[*officeScreen](m) }
func (m *model) serversS() *serversScreen { return findScreen[*serversScreen](m) }
func (m *model) contentS() *contentScreen { return findScreen[*contentScreen](m) }
func (m *model) errorS() *errorScreen     { return findScreen[*errorScreen](m) }
func overlayIs[T screen](m *model) bool   { _, ok := m.overlay.(T); return ok }
func (m *model) statusText() string       { return m.e.status.text }

// pushResources puts computer/server's resources screen on top, loading
// its first page.
func pushResources(t *testing.T, m *model, computer, server string) *resourcesScreen {
	t.Helper()
	r := newResourcesScreen(m.e, computer, protocol.ServerKey(server), server)
	m.stack = append(m.stack, r)
	run(t, m, r.loadNext(false))
	return r
}

// pushServers puts computer's servers screen on top and loads its config.
func pushServers(t *testing.T, m *model, computer string) *serversScreen {
	t.Helper()
	s := newServersScreen(m.e, computer, nil)
	m.stack = append(m.stack, s)
	run(t, m, loadConfig(m.e, computer))
	return s
}

// listOffice runs list_room on the office screen.
func listOffice(t *testing.T, m *model) {
	t.Helper()
	run(t, m, m.officeS().load())
}

// openedFor is the message the open command answers with.
func openedFor(m *model, id int, op *dpe.Opened, uri string) openedMsg {
	msg := openedMsg{id: id, opened: op, uri: uri, opener: &dpe.Opener{Limits: m.e.opt.Limits, Now: m.e.opt.Now}}
	if op.Doc != nil && len(op.Doc.Pages) > 0 {
		msg.first, _, msg.firstErr = loadPageCopy(context.Background(), msg.opener, &traceBuf{}, op, 0)
	}
	return msg
}
