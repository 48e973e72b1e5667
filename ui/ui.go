// Package ui is the interactive browser. The root model owns the message
// loop, a stack of screens and one overlay slot; each screen owns its state
// and changes it only in Update. Every piece of I/O runs in a tea.Cmd that
// answers with a typed message carrying its result (decoded pages, search
// hits, trace events), so no state is shared with a goroutine: Update never
// blocks, every wait is cancellable with esc, and a panic in a command is
// caught and shown as an error.
package ui

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/config"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Agent is what the UI needs from the SMCP agent. *client.Client satisfies
// it; tests use an in-memory fake.
type Agent interface {
	Events() <-chan client.Event
	State() client.StateEvent
	URL() string
	Office() string
	Name() string
	Computers(ctx context.Context) ([]protocol.SessionInfo, error)
	Config(ctx context.Context, computer string) (*client.Config, error)
	Resources(ctx context.Context, computer string, server protocol.ServerKey, cursor string) (*client.ResourcePage, error)
	Resolver(computer string) dpe.Resolver
}

// Options configure the browser. The zero value of every field is usable.
type Options struct {
	// Agent is the connected agent; nil in `open` mode or when Connect is set.
	Agent Agent
	// Connect dials (again) when Agent is nil, and on retry after a failure.
	Connect func(ctx context.Context) (Agent, error)
	// Profiles is the loaded configuration file; with ConnectProfile set
	// and at least one profile in it, P opens the profile picker.
	Profiles *config.File
	// Profile is the name of the profile Agent (or Connect) is for; ""
	// when none. The office screen shows it.
	Profile string
	// ConnectProfile dials the named profile of Profiles (switching with
	// P, bounded by RequestTimeout and cancelled by esc). The agent it
	// replaces is closed by the UI when it has a Close method.
	ConnectProfile func(ctx context.Context, name string) (Agent, error)
	// OpenTarget is a file path or URL for `dpe-tui open`: the document view
	// opens straight on it, with no server.
	OpenTarget string
	// OpenTargetName is what the header calls OpenTarget when its path
	// is not the user's ("stdin" for the copy open - reads); "": the path.
	OpenTargetName string
	// Watch reads a document opened from a local file again when the
	// file changes on disk (open FILE --watch), at the same place, with
	// what changed marked as D marks it.
	Watch bool
	// Keys is config.toml's [keys]: a preset and rebound actions, checked
	// with CheckKeys before (a refused one leaves the default keymap).
	Keys config.Keys
	// StateFile is where the places documents were left are kept, to
	// reopen them there (cmd passes positions.json under StateDir); "":
	// none kept.
	StateFile string
	// OpenFile converts an OpenTarget that is a local file other than DPE
	// JSON (PDF, Office, HTML, e-mail, …); nil → every target is fetched
	// as DPE JSON.
	OpenFile OpenFileFunc
	// ConvertFetched converts a target fetched from a URL whose content
	// is not DPE but a file convert reads (a PDF, DOCX, a web page … at
	// http(s)://), page by page as OpenFile does; handled is false for
	// content it does not read, which is shown as it is. nil: fetched
	// content is shown as it is.
	ConvertFetched func(ctx context.Context, fetched *dpe.Opened) (src PageSource, handled bool, err error)
	// Theme is "dark", "light", "notty" or "" (from the terminal background).
	Theme string
	// NoColor forces the colourless theme (NO_COLOR is also read from the
	// environment by New).
	NoColor bool
	// Mouse turns on mouse support (wheel scrolls, click selects).
	Mouse bool
	// Fetcher fetches access URIs; nil → a default dpe.Fetcher.
	Fetcher *dpe.Fetcher
	// Limits are the decode limits; zero → dpe defaults.
	Limits dpe.Limits
	// Width and Height preset the size (tests); a WindowSizeMsg overrides.
	Width, Height int
	// Now is the clock (tests fix it); nil → time.Now.
	Now func() time.Time
	// Logger receives diagnostics, including the stack of a recovered panic.
	Logger *slog.Logger
	// SaveDir is where exports and saved images go when the typed name is
	// relative; "" → the working directory.
	SaveDir string
	// RequestTimeout bounds one agent request; zero → 30s.
	RequestTimeout time.Duration
	// ImagePagePixels and ImageDocPixels bound the declared width×height
	// of the images previewed on one page and in one document (zero → 64
	// and 256 megapixels); past them an image shows a line saying so.
	ImagePagePixels, ImageDocPixels int64
	// ImageDecoders bounds how many image previews decode at once (zero →
	// 3).
	ImageDecoders int
	// MaxListedResources and MaxListedBytes bound one server's resource
	// listing (load all, M): paging stops, with a message naming the
	// budget, at this many resources or bytes of listing acks (zero →
	// 200,000 and 256 MiB).
	MaxListedResources int
	MaxListedBytes     int64
	// StatusTimeout is how long a transient status message stays; zero →
	// 4s (10s for errors); negative → until replaced (golden tests).
	StatusTimeout time.Duration
	// Local is the computer of the user's own MCP servers and folders,
	// running in this process (--mcp-config, --docs): its servers screen
	// shows each server's start-up state live, and enter on a non-dpe
	// resource reads it with MCP resources/read. nil: the office is not
	// this process's, and non-dpe resources cannot be read.
	Local LocalServers
	// ConvertMarkdown turns a skill's SKILL.md into a document (cmd passes
	// convert's Markdown reader); nil: SKILL.md shows as Markdown text.
	ConvertMarkdown MarkdownFunc
	// MaxSkillFile bounds one file of a skill package read with
	// get_skill/get_blob; zero → the client's default.
	MaxSkillFile int64
	// Images picks how image previews are drawn: "kitty" (graphics
	// protocol, Unicode placeholders), "sixel" (drawn as half-blocks: see
	// render.ImagesSixel), "blocks" (half-blocks) or "off"; "" or "auto"
	// asks the terminal at start (bounded; no answer → blocks).
	Images string
	// Remote is a DPE v1 remote to browse: the office lists it as an
	// entry, or, with RemoteOnly, the browser opens on it (no office).
	Remote     *Remote
	RemoteOnly bool
	// OpenURL opens an http(s) link of a document in the system's
	// browser, after the user confirmed the URL (cmd passes xdg-open or
	// open; tests a recorder, so nothing is ever launched); nil: the
	// confirmation says there is no opener.
	OpenURL func(ctx context.Context, url string) error
	// Hyperlinks makes the http(s) links of the body terminal hyperlinks
	// (OSC 8), their URLs checked by sanitize.HyperlinkURL; other schemes
	// never are. Off: links are marked text only.
	Hyperlinks bool
}

// Model is the root tea.Model. It wraps a pointer so that the value returned
// by New satisfies tea.Model while the state is mutated in one place.
type Model struct{ m *model }

// New builds the browser.
func New(opt Options) Model {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opt.Fetcher == nil {
		opt.Fetcher = &dpe.Fetcher{}
	}
	if opt.Limits == (dpe.Limits{}) {
		opt.Limits = dpe.DefaultLimits()
	}
	if opt.RequestTimeout <= 0 {
		opt.RequestTimeout = 30 * time.Second
	}
	if os.Getenv("NO_COLOR") != "" {
		opt.NoColor = true
	}
	e := &env{
		opt:    opt,
		agent:  opt.Agent,
		width:  opt.Width,
		height: opt.Height,
		keys:   keysOrDefault(opt.Keys),
		ops:    newOpTable(),
		spin:   spinner.New(spinner.WithSpinner(spinner.MiniDot)),
	}
	e.positions.path = opt.StateFile
	m := &model{e: e, help: help.New(), bar: newCmdBar()}
	m.help.SetWidth(opt.Width)
	theme := opt.Theme
	switch {
	case opt.NoColor:
		theme = "notty"
	case theme == "":
		theme = "dark"
	default:
		m.themeFixed = true
	}
	m.setTheme(theme)
	switch {
	case opt.OpenTarget != "":
		m.stack = []screen{newOpeningScreen(e, opt.OpenTarget)}
	case opt.Remote != nil && opt.RemoteOnly:
		m.stack = []screen{newRemoteScreen(e, opt.Remote)}
	case opt.Agent != nil:
		e.conn = opt.Agent.State()
		m.stack = []screen{newOfficeScreen(e)}
	default:
		m.stack = []screen{newConnectingScreen(e)}
	}
	return Model{m: m}
}

// Init starts the first I/O: connecting, listing the office or opening the
// target, and asks the terminal for its background colour.
func (mm Model) Init() tea.Cmd {
	m := mm.m
	cmds := []tea.Cmd{}
	if !m.themeFixed {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	cmds = append(cmds, m.startImageQuery(), m.e.positions.load())
	switch t := m.top().(type) {
	case targetOpening:
		cmds = append(cmds, m.startsLong(func() tea.Cmd { return m.openTarget(t.openingTarget(), nil) }))
	case firstLoader:
		cmds = append(cmds, m.listen(), t.firstLoad())
	default:
		cmds = append(cmds, m.connect())
	}
	return tea.Batch(cmds...)
}

// Update is the single message loop. A panic while handling a message is
// caught like one in a command: the stack goes to the log, the user sees
// one line, and the program keeps running instead of printing a stack
// trace over the terminal.
func (mm Model) Update(msg tea.Msg) (_ tea.Model, cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			mm.m.e.opt.Logger.Error("panic in update", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			cmd = mm.m.e.setStatus(statusErr, sanitizeLine(fmt.Sprintf("internal error: %v (details in --log)", r)))
		}
	}()
	return mm, mm.m.update(msg)
}

// View draws the current screen; a panic while drawing shows a one-line
// error screen instead.
func (mm Model) View() (v tea.View) {
	defer func() {
		if r := recover(); r != nil {
			mm.m.e.opt.Logger.Error("panic in view", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			v = tea.NewView(sanitizeLine(fmt.Sprintf("dpe-tui: internal error while drawing: %v (details in --log); press q to quit", r)))
			v.AltScreen = true
		}
	}()
	return mm.m.view()
}

// keysOrDefault is the keymap of kc, or the default one when kc is
// refused (CheckKeys told the caller before).
func keysOrDefault(kc config.Keys) keyMap {
	k, err := keysFrom(kc)
	if err != nil {
		return newKeyMap()
	}
	return k
}
