package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// screen is one screen or overlay. It owns its state, changes it only in
// Update, and talks to the root with the request messages below. Adding a
// screen is one file plus the place that opens it.
type screen interface {
	// Update handles a message; key and mouse messages reach only the
	// top screen (or the overlay), others reach every screen so each can
	// pick out the answers to its own ops.
	Update(msg tea.Msg) (screen, tea.Cmd)
	// View draws the body: exactly h lines of at most w cells.
	View(w, h int) []string
	// Keys is the screen's keymap for the footer and the help.
	Keys() screenKeys
	// Crumb is this screen's part of the breadcrumb ("" for none).
	Crumb() string
}

// stopper is a screen with background work to stop on quit.
type stopper interface{ stop() }

// Requests from a screen to the root.

type pushMsg struct{ s screen }

type popMsg struct{}

type overlayMsg struct{ s screen }

type closeOverlayMsg struct{}

// openURIMsg asks the root to resolve and open a dpe:// URI. res is the
// listing row it came from (nil when typed), origin the listing page.
type openURIMsg struct {
	uri      string
	res      *client.Resource
	origin   *pageRecord
	computer string
	// at is where to show the document (a Finder hit), nil: page 1.
	at *hitPlace
	// over: the document opens over the one shown, so esc goes back to
	// it (o and : open another document; r and history moves replace).
	over bool
}

// promptMsg opens the prompt; validate (optional) gives the live hint.
type promptMsg struct {
	mode     barMode
	value    string
	validate func(string) (hint string, ok bool)
	// overlay: the answer goes to the overlay that asked, not the screen.
	overlay bool
}

// promptDoneMsg is the prompt's value on enter (or "" with cancelled on
// esc), sent to the top screen.
type promptDoneMsg struct {
	mode      barMode
	value     string
	cancelled bool
}

// promptChangedMsg is sent to the top screen as the user types a filter.
type promptChangedMsg struct {
	mode  barMode
	value string
}

// copyMenuMsg opens the y menu with what can be copied here.
// path is the JSON path under the raw view's cursor ("" elsewhere).
type copyMenuMsg struct{ resURI, access, text, json, path string }

// jumpMsg asks the document screen to show page, element.
type jumpMsg struct{ page, el int }

// cancelledMsg tells every screen that esc cancelled op id.
type cancelledMsg struct{ id int }

// ask queues a request for the root, which handles it right after the
// screen's Update returns, before the next message: a key typed just after
// `/` reaches the prompt it opened.
func (e *env) ask(msg tea.Msg) tea.Cmd {
	e.asks = append(e.asks, msg)
	return nil
}

// Op answers. Each carries the id start returned; the root drops an answer
// whose op is gone (cancelled) and finishes the op before handing it on,
// unless the message is a chained step (the screen decides).

type opAnswer interface{ opID() int }

type chained interface{ chained() }

type errMsg struct {
	id    int
	what  string
	err   error
	panic bool
	trace []traceEntry
}

type connectedMsg struct {
	id    int
	agent Agent
}

type connectFailedMsg struct {
	id  int
	err error
}

// agentEventMsg is an event of the agent of generation gen (closed: its
// events ended). The generation counts agents installed by profile
// switches: a replaced agent's listener, still blocked on its channel,
// answers with an old gen and is dropped.
type agentEventMsg struct {
	gen    int
	ev     client.Event
	closed bool
}

type computersMsg struct {
	id        int
	computers []protocol.SessionInfo
}

type configMsg struct {
	id       int
	computer string
	cfg      *client.Config
	err      error
}

type resourcesPageMsg struct {
	id       int
	computer string
	server   protocol.ServerKey
	cursor   string
	page     *client.ResourcePage
	all      bool // part of "load all"
	duration time.Duration
}

type openedMsg struct {
	id       int
	opened   *dpe.Opened
	res      *client.Resource
	origin   *pageRecord
	uri      string
	target   string // open mode: the file or URL
	duration time.Duration
	opener   *dpe.Opener
	trace    []traceEntry
	// first is page 0, decoded by the open command (nil on error).
	first    *dpe.Page
	firstErr error
	// src converts the pages of a local file (nil: fetched as DPE).
	src PageSource
	at  *hitPlace
	// over is openURIMsg's: shown over the document on top, not in its
	// place.
	over bool
	// skill is set when the document is a skill's SKILL.md: its links
	// open the package's other files.
	skill *skillPkg
	// skillFrom and skillRel: the document is that file of a skill's
	// package (an image L opened).
	skillFrom *skillPkg
	skillRel  string
}

// pagesMsg answers a page load: the pages decoded (copies; the shared
// document is never modified by the UI), the ones that failed, and where
// a multi-page run continues.
type pagesMsg struct {
	id  int
	doc *dpe.Opened
	// reopened replaces doc when a load called get_dpe again (nil: none);
	// pages then belong to its document.
	reopened *dpe.Opened
	pages    map[int]*dpe.Page
	errs     map[int]error
	trace    []traceEntry
	// next is the page a load-all run continues at (-1: done).
	next int
	// jump is the element to select once the page is shown (-1: top).
	jump int
	kind loadKind
}

type loadKind int

const (
	loadView  loadKind = iota // the page on screen
	loadAll                   // every page, for an export
	loadRetry                 // a failed page, again
)

type searchStepMsg struct {
	id  int
	doc *dpe.Opened
	// reopened: as in pagesMsg.
	reopened *dpe.Opened
	query    string
	next     int // -1: done
	hits     []hit
	pages    map[int]*dpe.Page
	errs     map[int]error
	trace    []traceEntry
	// scanned is how many pages were looked at (prefilter included).
	scanned int
}

type validatedMsg struct {
	id       int
	doc      *dpe.Opened
	findings []dpe.Finding
	duration time.Duration
	trace    []traceEntry
}

type savedMsg struct {
	id   int
	path string
	what string
}

type contentRenderedMsg struct {
	id    int
	lines []string
	width int
}

func (m errMsg) opID() int             { return m.id }
func (m connectedMsg) opID() int       { return m.id }
func (m connectFailedMsg) opID() int   { return m.id }
func (m computersMsg) opID() int       { return m.id }
func (m configMsg) opID() int          { return m.id }
func (m resourcesPageMsg) opID() int   { return m.id }
func (m openedMsg) opID() int          { return m.id }
func (m pagesMsg) opID() int           { return m.id }
func (m searchStepMsg) opID() int      { return m.id }
func (m validatedMsg) opID() int       { return m.id }
func (m savedMsg) opID() int           { return m.id }
func (m contentRenderedMsg) opID() int { return m.id }

func (resourcesPageMsg) chained() {}
func (pagesMsg) chained()         {}
func (searchStepMsg) chained()    {}

func (m skillsMsg) opID() int { return m.id }
