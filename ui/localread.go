package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// LocalServers is the computer that fronts the user's own MCP servers and
// folders (dpe-tui --mcp-config / --docs). It runs in this process, so the
// UI can show how each server's start goes and read resources of any
// scheme with MCP resources/read: A2C-SMCP has an event for neither, so a
// remote office offers neither. cmd adapts the stack's Local to it.
type LocalServers interface {
	// Computer is the name of the local computer in the office.
	Computer() string
	// States is every server's state, in the order to show them.
	States() []LocalServerState
	// Changed receives (coalesced) whenever a state changed.
	Changed() <-chan struct{}
	// Started is closed once no server is starting any more.
	Started() <-chan struct{}
	// ReadResource reads uri on server ("" → the server that lists it)
	// and says which server answered.
	ReadResource(ctx context.Context, server, uri string) (string, []LocalContent, error)
}

// LocalNotes is what a LocalServers may also offer: one-line remarks that
// are not errors — a config file that defines no servers, a folder that
// leaves files out ("docs: 3 files skipped: …"). The servers screen shows
// them, one line each. The text is the user's files' names: untrusted,
// sanitized where shown.
type LocalNotes interface {
	Notes() []string
}

// maxLocalNotes bounds the notes a watch carries (the screen shows fewer).
const maxLocalNotes = 32

// localNotesOf is l's notes, bounded, or nil when it has none.
func localNotesOf(l LocalServers) []string {
	n, ok := l.(LocalNotes)
	if !ok {
		return nil
	}
	notes := n.Notes()
	if len(notes) > maxLocalNotes {
		notes = notes[:maxLocalNotes]
	}
	return notes
}

// The states a local server goes through.
const (
	LocalStarting = "starting"
	LocalReady    = "ready"
	LocalFailed   = "failed"
	LocalDisabled = "disabled"
)

// LocalServerState is one local server's start-up state. Every string is
// the server's or its config's: untrusted, sanitized where shown.
type LocalServerState struct {
	Name, Type string
	Status     string // LocalStarting, LocalReady, LocalFailed or LocalDisabled
	// Err is why a failed server failed; StderrTail is the end of its
	// stderr (secrets masked by the computer).
	Err, StderrTail string
	// NoResources: ready, but without the resources capability.
	NoResources bool
}

// LocalContent is one item of a resources/read answer: text or a blob.
type LocalContent struct {
	URI, MIMEType string
	Text          string
	Blob          []byte
	IsBlob        bool
	// FileName is the safe name to save it under, from its URI's last
	// segment (the same rule as get -o).
	FileName string
}

// localPoll re-checks the states this often even without a change
// notice, so a watch never waits unbounded.
const localPoll = time.Second

// localFor is the local computer when computer is it, else nil.
func (e *env) localFor(computer string) LocalServers {
	if l := e.opt.Local; l != nil && l.Computer() == computer {
		return l
	}
	return nil
}

// localStatesMsg carries a fresh copy of the states to the screen that
// asked (owner); done: no server is starting any more.
type localStatesMsg struct {
	owner  any
	states []LocalServerState
	notes  []string // LocalNotes, read with the states
	done   bool
}

// watchLocal reads the states, after the next change (or localPoll) unless
// now is set. The screen that owns the watch re-arms it from Update while
// it is on the stack and servers are starting, so a popped screen's watch
// ends by itself.
func watchLocal(e *env, l LocalServers, owner any, now bool) tea.Cmd {
	return e.safe(0, func() tea.Msg {
		if !now {
			t := time.NewTimer(localPoll)
			defer t.Stop()
			select {
			case <-l.Changed():
			case <-l.Started():
			case <-t.C:
			}
		}
		// Done first: once it is closed the states read next are final.
		done := false
		select {
		case <-l.Started():
			done = true
		default:
		}
		return localStatesMsg{owner: owner, states: l.States(), notes: localNotesOf(l), done: done}
	})
}

// localReadMsg answers a resources/read that is shown as text or offered
// for saving (an image opens as a document instead: openedMsg).
type localReadMsg struct {
	id       int
	uri      string
	server   string
	content  LocalContent
	count    int
	opened   *dpe.Opened
	duration time.Duration
	// from says where the content came from when it was not a
	// resources/read of server (a skill's file).
	from string
	// via names the requests that read it, when not resources/read.
	via string
}

func (m localReadMsg) opID() int { return m.id }

// remoteNonDPE is what enter on a non-dpe resource says when the computer
// is not this process's.
const remoteNonDPE = "A2C-SMCP has no event for reading non-dpe resources; only your own MCP servers (dpe-tui --mcp-config FILE) can be read here"

// readLocal reads a non-dpe resource through MCP resources/read on the
// local computer, off the loop. Text comes back as localReadMsg; an image
// as an openedMsg of a one-image document, so the document view's preview
// code draws it.
func readLocal(e *env, l LocalServers, server, uri string) tea.Cmd {
	lim, now := e.opt.Limits, e.opt.Now
	_, cmd := e.start("reading "+sanitizeLine(uri), 0, func(ctx context.Context, id int) tea.Msg {
		t0 := now()
		srv, contents, err := l.ReadResource(ctx, server, uri)
		if err != nil {
			return errMsg{id: id, what: "resources/read " + sanitizeLine(uri), err: err}
		}
		if len(contents) == 0 {
			return errMsg{id: id, what: "resources/read " + sanitizeLine(uri), err: fmt.Errorf("MCP server %s returned no contents", sanitizeLine(srv))}
		}
		c := contents[0]
		if c.URI == "" {
			c.URI = uri
		}
		if c.IsBlob && isImage(c) {
			msg, err := imageDocument(ctx, id, uri, "read from MCP server "+srv, c, lim, now)
			if err != nil {
				return errMsg{id: id, what: "image " + sanitizeLine(uri), err: err}
			}
			msg.duration = now().Sub(t0)
			return msg
		}
		return localReadMsg{id: id, uri: uri, server: srv, content: c, count: len(contents), opened: localOpened(uri, c), duration: now().Sub(t0)}
	})
	return cmd
}

func baseMIME(mt string) string {
	base, _, err := mime.ParseMediaType(mt)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(mt))
	}
	return base
}

func isImage(c LocalContent) bool {
	mt := baseMIME(c.MIMEType)
	if mt == "" || mt == "application/octet-stream" {
		mt = http.DetectContentType(c.Blob)
	}
	return strings.HasPrefix(mt, "image/")
}

func isJSONMIME(mt string) bool {
	mt = baseMIME(mt)
	return mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json")
}

// localOpened is a text or blob content in the shape the content view
// shows: Markdown by type (or a .md name), JSON pretty-printed, other text
// as text, a blob as binary to save.
func localOpened(uri string, c LocalContent) *dpe.Opened {
	op := &dpe.Opened{Access: dpe.Access{URI: uri}, MimeType: c.MIMEType}
	if c.IsBlob {
		op.Kind, op.Body = dpe.KindBinary, c.Blob
		return op
	}
	op.Kind, op.Body = dpe.KindText, []byte(c.Text)
	mt := baseMIME(c.MIMEType)
	switch {
	case isJSONMIME(mt) || (mt == "" && json.Valid(op.Body)):
		var buf bytes.Buffer
		if json.Indent(&buf, op.Body, "", "  ") == nil {
			op.Body = buf.Bytes()
		}
	case mt == "text/markdown" || mt == "text/x-markdown" || (mt == "" && strings.EqualFold(path.Ext(c.URI), ".md")):
		op.Kind = dpe.KindMarkdown
	}
	return op
}

// imageDocument wraps an image blob in a one-page DPE document with one
// Image element, decoded here (off the loop) with the UI's limits, so the
// document view previews it like any document image.
// from says where it was read ("read from MCP server docs").
func imageDocument(ctx context.Context, id int, uri, from string, c LocalContent, lim dpe.Limits, now func() time.Time) (openedMsg, error) {
	if lim == (dpe.Limits{}) {
		lim = dpe.DefaultLimits()
	}
	mt := baseMIME(c.MIMEType)
	if !strings.HasPrefix(mt, "image/") {
		mt = http.DetectContentType(c.Blob)
	}
	name := c.FileName
	if name == "" {
		name = "image"
	}
	doc := map[string]any{
		"doc_ref": name, "title": name, "page_count": 1,
		"pages": []any{map[string]any{
			"page_index": 0, "title": name, "doc_ref": name,
			"elements": []any{map[string]any{
				"element_id": "image-1", "category": "Image", "doc_ref": name, "page_index": 0,
				"text": uri + ", " + from,
				// uri names the file s proposes: the URI's last segment.
				"ele_metadata": map[string]any{"image_base64": c.Blob, "image_mime_type": mt, "uri": uri},
			}},
		}},
	}
	data, err := json.Marshal(doc) // []byte marshals as base64
	if err != nil {
		return openedMsg{}, err
	}
	d, err := dpe.Decode(data, lim)
	if err != nil {
		return openedMsg{}, err
	}
	op := &dpe.Opened{Access: dpe.Access{URI: uri, Size: int64(len(data))}, Kind: dpe.KindDocument, Doc: d, Body: data, MimeType: protocol.MimeDPEInline}
	opener := &dpe.Opener{Limits: lim, Now: now}
	msg := openedMsg{id: id, opened: op, uri: uri, opener: opener}
	if len(d.Pages) > 0 {
		msg.first, _, msg.firstErr = loadPageCopy(ctx, opener, &traceBuf{}, op, 0)
	}
	return msg, nil
}

// onLocalRead shows a resources/read content: text in the content view; a
// blob that is not an image there too, with the save prompt open on the
// name from its URI.
func (m *model) onLocalRead(msg localReadMsg) tea.Cmd {
	e := m.e
	m.overlay = nil
	c := newLocalContentScreen(e, msg)
	m.stack = append(m.stack, c)
	cmds := []tea.Cmd{c.render()}
	// A blob shows its page, which says which key saves it; the prompt
	// opens on that key, so the key is never typed into a prompt the
	// page does not mention.
	if msg.opened.Kind != dpe.KindBinary {
		from := " from MCP server " + sanitizeLine(msg.server)
		if msg.from != "" {
			from = "" // a skill file: its name says whose it is
		}
		cmds = append(cmds, e.setStatus(statusOK, fmt.Sprintf("read %s%s in %s", sanitizeTrunc(msg.uri, 60), from, took(msg.duration))))
	}
	return tea.Batch(cmds...)
}

// isNonDPEURI: a URI with a scheme other than dpe.
func isNonDPEURI(v string) bool {
	u, err := url.Parse(strings.TrimSpace(v))
	return err == nil && u.Scheme != "" && !strings.EqualFold(u.Scheme, "dpe")
}

// openValidate is the open bar's check with the local computer: besides a
// dpe:// URI it takes any URI, read with resources/read (a server's
// resource templates are not listed, so this is how their URIs are
// reached). nil without it: the bar's own dpe:// check.
func (m *model) openValidate() func(string) (string, bool) {
	if m.e.opt.Local == nil {
		return nil
	}
	return func(v string) (string, bool) {
		if isNonDPEURI(v) {
			return "enter reads it from your MCP servers (resources/read)", true
		}
		return uriHint(v, "type or paste a dpe:// URI, or any URI of your MCP servers")
	}
}
