package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/config"
	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/internal/contentcache"
	"github.com/dpe-tui/dpe-tui/sanitize"
	"github.com/dpe-tui/dpe-tui/ui"
)

// tuiFlags are the flags of the TUI itself (the root command and open).
type tuiFlags struct {
	globalFlags
	Mouse  bool
	Images string
	// Hyperlinks makes a document's http(s) links clickable (OSC 8).
	Hyperlinks bool
	// targetName is what the header calls open's target when its path
	// is not the user's ("stdin" for open -'s copy).
	targetName string
	// Remote is a DPE v1 remote to browse instead of an office.
	Remote string
	// Watch (open --watch) reads the file again when it changes on disk.
	Watch bool
	// budgets are the limits of the folders --docs serves in this
	// process (embeddedFlags.budgets); globalFlags is copied over from
	// the root's for each run, so they are kept here.
	budgets budgetFlags
}

// define registers the TUI's own flags on fs (the root's and open's).
func (f *tuiFlags) define(fs *pflag.FlagSet) {
	fs.BoolVar(&f.Mouse, "mouse", false, "enable mouse (wheel scrolls, click selects)")
	bindEnv(fs, "mouse", "DPE_TUI_MOUSE")
	fs.StringVar(&f.Images, "images", "auto", "image previews: kitty, sixel, blocks, off or auto")
	bindEnv(fs, "images", "DPE_TUI_IMAGES")
	fs.BoolVar(&f.Hyperlinks, "hyperlinks", false, "make a document's http(s) links clickable terminal hyperlinks (OSC 8); other schemes never are")
	fs.StringVar(&f.Remote, "remote", "", "browse this DPE v1 remote (its documents by folder, skeletons, stale local files with --docs DIR)")
	// The folders of --docs are served in this process, with the limits
	// serve --docs takes.
	f.budgets.define(fs)
}

func (a *app) openCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "open FILE|URL|-",
		Short: "Open a document in the TUI's document view, without a server",
		Long: "open shows one document in the document view with no server: a DPE JSON file or URL,\n" +
			"or any file convert reads (PDF, Office, ODF, HTML, EPUB, e-mail, images), converted page by page.\n" +
			"- reads standard input: DPE JSON, or any file convert - reads.",
		Example: `  dpe-tui open report.dpe.json
  dpe-tui open slides.pptx --images kitty
  curl -s https://example.org/doc.dpe.json | dpe-tui open -`,
		Args: exactArgs(1, "open needs exactly one file path, URL or -"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runTUI(cmd, args[0])
		},
	}
	// The document view takes the TUI's own flags, as the root does.
	a.tf.define(cmd.Flags())
	cmd.Flags().BoolVar(&a.tf.Watch, "watch", false, "read the file again when it changes on disk, at the same place, marking what changed")
	// open shows one document; --remote is the root's (browse a remote),
	// and the budgets are those of a served folder.
	for _, name := range []string{"remote", "convert-timeout", "find-timeout", "find-max-expansion"} {
		_ = cmd.Flags().MarkHidden(name)
	}
	return cmd
}

// runTUI starts the TUI: on a server (openTarget "") or on one document.
func (a *app) runTUI(cmd *cobra.Command, openTarget string) error {
	f := &a.tf
	a.with(&f.globalFlags, cmd.Name())
	// Flag values first: a bad --images is a usage error whatever the
	// target.
	switch f.Images {
	case "kitty", "sixel", "blocks", "off", "auto":
	default:
		from := "--images"
		if fl := cmd.Flags().Lookup("images"); fl != nil && !fl.Changed && envSet(fl) {
			from = "DPE_TUI_IMAGES: --images"
		}
		return usageErrorf("%s must be kitty, sixel, blocks, off or auto, not %q", from, sanitize.Line(f.Images))
	}
	if strings.HasPrefix(strings.ToLower(openTarget), "dpe:") {
		// Not a file named "dpe:": it was read as a relative path.
		return usageErrorf("open shows a file or URL with no server; a dpe:// URI is resolved by a computer of an office: run 'dpe-tui' and press o to open it there, or 'dpe-tui get URI' to print it")
	}
	if openTarget != "" && f.Remote != "" {
		return usageErrorf("open shows one document; --remote URL browses a remote: run 'dpe-tui --remote URL'")
	}
	if f.Watch && (openTarget == "-" || (strings.Contains(openTarget, "://") && !strings.HasPrefix(openTarget, "file://"))) {
		return usageErrorf("--watch reads a local file again when it changes on disk; %q is not a local file", sanitize.Line(openTarget))
	}
	if openTarget == "-" {
		// Read and check before any TUI starts: a bad document is one
		// line and exit 1, not a screen.
		a.hintStdin()
		path, remove, err := stdinDocument(a.ctx, a.stdin, a.stderr)
		if err != nil {
			return err
		}
		defer remove()
		openTarget = path
		f.targetName = "stdin" // not the copy's temporary name
	} else if openTarget != "" {
		if err := checkLocalInput(openTarget); err != nil {
			return err // before any TUI starts
		}
	}
	return startTUI(a.ctx, f, openTarget, a.prof, a.remoteClient)
}

// localBudgets checks the budget flags and hands them to the folders
// --docs serves in this process.
func (f *tuiFlags) localBudgets() error {
	if err := f.budgets.check(); err != nil {
		return err
	}
	f.Embedded.budgets = f.budgets
	return nil
}

// remoteDialer connects to a DPE v1 remote (app.remoteClient: the
// profile's token, capabilities first).
type remoteDialer func(ctx context.Context, url string) (*dpev1.Client, *wire.Capabilities, error)

func startTUI(ctx context.Context, f *tuiFlags, openTarget string, prof *profileState, dialRemote remoteDialer) error {
	notice := &tuiNotice{}
	opt, done, err := tuiOptions(f, openTarget, prof, dialRemote, notice)
	if err != nil {
		return err
	}
	defer done()
	// After the flags and config are checked: a usage error is said as
	// such from a script too.
	if err := needTerminal(); err != nil {
		return err
	}
	p := tea.NewProgram(ui.New(opt), tea.WithContext(ctx))
	notice.to(p)
	final, err := p.Run()
	closeCurrentAgent(final)
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("terminal UI: %w", err)
	}
	if errors.Is(err, tea.ErrProgramKilled) && errors.Is(err, tea.ErrProgramPanic) {
		return fmt.Errorf("terminal UI crashed; see --log for details")
	}
	if mm, ok := final.(ui.Model); ok {
		// open FILE that never opened exits as get FILE would: its
		// error, once, after the screen is gone.
		return mm.TargetError()
	}
	return nil
}

// tuiOptions is the TUI's model as startTUI runs it: its converters,
// stacks and remote, their notices to notice. done closes what it made,
// after the program ends.
func tuiOptions(f *tuiFlags, openTarget string, prof *profileState, dialRemote remoteDialer, notice *tuiNotice) (_ ui.Options, _ func(), err error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	defer func() {
		if err != nil {
			closeAll() // the returns name no done
		}
	}()
	if err := f.validate(); err != nil {
		return ui.Options{}, nil, err
	}
	// config.toml's [keys]: a file that does not parse gives no keys, so
	// it is the browser's error too (open's as much as the office's),
	// one line naming the entry, before anything starts: the user's keys
	// never silently go missing.
	var keys config.Keys
	var pe *config.ParseError
	if errors.As(f.configErr, &pe) {
		return ui.Options{}, nil, f.configErr
	}
	if prof != nil && prof.file != nil {
		keys = prof.file.Keys()
		if err := ui.CheckKeys(keys); err != nil {
			var ke *ui.KeyConfigError
			if errors.As(err, &ke) {
				pe := prof.file.KeyError(ke.Action, ke.Msg)
				return ui.Options{}, nil, &usageError{msg: pe.Error(), err: pe}
			}
			return ui.Options{}, nil, err
		}
	}
	if err := f.localBudgets(); err != nil {
		return ui.Options{}, nil, err
	}
	if openTarget == "" {
		// Before the screen starts: a broken config file is one line.
		if err := f.configReady(); err != nil {
			return ui.Options{}, nil, err
		}
	}
	log, closeLog, err := f.logger()
	if err != nil {
		return ui.Options{}, nil, err
	}
	closers = append(closers, closeLog)

	opt := ui.Options{
		Theme:   f.Theme,
		NoColor: f.noColor(),
		Mouse:   f.Mouse,
		Watch:   f.Watch,
		Keys:    keys,
		// Where documents were left, to reopen them there.
		StateFile: positionsFile(),
		Limits:    dpe.DefaultLimits(),
		Logger:    log,
		Images:    f.Images,
		// A link's URL goes to the system's opener only after the
		// confirmation the TUI shows.
		OpenURL:    openURL,
		Hyperlinks: f.Hyperlinks,
	}
	if opt.NoColor {
		opt.Theme = "notty"
	}

	// Every converter the TUI makes, and the served folders' own, say
	// their notices (the PDF engine's first compile) on the status line.
	f.Embedded.notice = notice.send

	// A skill's SKILL.md is shown as a document through the converter's
	// Markdown reader (ui does not import convert).
	conv := convert.New(convert.Options{Notice: notice.send})
	closers = append(closers, func() { conv.Close() })
	opt.ConvertMarkdown = func(ctx context.Context, name string, body []byte) (ui.PageSource, error) {
		return conv.Open(ctx, convert.BytesSource(name, body))
	}

	// A DPE v1 remote: --remote alone opens the browser on it; a
	// profile's remote is an entry of the office; the demo has its own.
	profRemote := ""
	if prof != nil && prof.name != "" {
		if p, err := prof.file.Lookup(prof.name); err == nil {
			profRemote = p.Remote
		}
	}
	docsDir := ""
	if len(f.Embedded.DocsDirs) > 0 {
		docsDir = f.Embedded.DocsDirs[0]
	}
	switch {
	case openTarget != "":
	case f.Remote != "":
		url := f.Remote
		opt.Remote = tuiRemote(url, docsDir, notice.send, func(ctx context.Context) (*dpev1.Client, *wire.Capabilities, error) { return dialRemote(ctx, url) })
		opt.RemoteOnly = true
	case profRemote != "":
		opt.Remote = tuiRemote(profRemote, "", notice.send, func(ctx context.Context) (*dpev1.Client, *wire.Capabilities, error) {
			return dialRemote(ctx, profRemote)
		})
	case f.URL == "" && !f.Embedded.active():
		demo := &demoRemote{notice: notice.send}
		closers = append(closers, demo.stop)
		opt.Remote = &ui.Remote{Label: "the demo library, pushed to a remote of its own", Connect: demo.connect}
		if cache, err := contentcache.Default(); err == nil {
			opt.Remote.Cache = cache
		}
	}

	// tgt is set by Connect, in a command: closed after the program ends.
	var tgt *target
	closers = append(closers, func() {
		if tgt != nil {
			tgt.Close()
		}
	})
	// The targets of profiles switched to (P) are dialled in tea.Cmds;
	// each is closed when the TUI ends.
	var switched targets
	closers = append(closers, switched.close)
	if openTarget != "" {
		access := openTarget
		if !strings.Contains(openTarget, "://") {
			access = absFileURI(openTarget)
		}
		opt.OpenTarget, opt.OpenTargetName = access, f.targetName
		opt.Fetcher = fetcher(&f.globalFlags, "")
		opt.Fetcher.AllowFile = true
		// Files that are not DPE JSON (PDF, Office, HTML, mail, EPUB, …)
		// convert in-process, page by page as they are viewed.
		opt.OpenFile = func(ctx context.Context, path string) (ui.PageSource, error) {
			return openFileInTUI(ctx, conv, path)
		}
		opt.ConvertFetched = func(ctx context.Context, fetched *dpe.Opened) (ui.PageSource, bool, error) {
			return fetchedSource(ctx, conv, fetched)
		}
	} else {
		opt.Fetcher = fetcher(&f.globalFlags, f.URL)
		// The user's own servers run in this process: the UI shows their
		// start-up and reads their non-dpe resources.
		var local *tuiLocal
		if f.Embedded.active() {
			local = &tuiLocal{}
			opt.Local = local
		}
		// Connect runs inside a tea.Cmd, so the UI shows a spinner while the
		// demo stack starts and the agent joins, and can offer a retry.
		opt.Connect = func(ctx context.Context) (ui.Agent, error) {
			if tgt == nil {
				t, err := resolveTarget(ctx, &f.globalFlags, log)
				if err != nil {
					return nil, err
				}
				tgt = t
				if local != nil && t.demo != nil && t.demo.Local() != nil {
					local.set(t.demo.Local())
				}
			}
			c, err := dial(ctx, &f.globalFlags, tgt, log)
			if err != nil {
				return nil, err
			}
			return c, nil
		}
		if prof != nil {
			opt.Profiles, opt.Profile = prof.file, prof.name
			opt.ConnectProfile = func(ctx context.Context, name string) (ui.Agent, error) {
				g, _, err := prof.profileGlobals(name)
				if err != nil {
					return nil, err
				}
				t, err := resolveTarget(ctx, &g, log)
				if err != nil {
					return nil, err
				}
				switched.add(t)
				return dial(ctx, &g, t, log)
			}
		}
	}
	return opt, closeAll, nil
}

// tuiNotice sends a converter's notices to the TUI's status line as
// ui.NoticeMsg through the program (tea.Program.Send, safe from any
// goroutine). A notice said before the program is known (a conversion
// the first frame starts) waits for it.
type tuiNotice struct {
	mu      sync.Mutex
	p       msgSender
	pending []string
}

// msgSender is tea.Program's Send (teatest's TestModel has it too).
type msgSender interface{ Send(tea.Msg) }

func (n *tuiNotice) to(p msgSender) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.p = p
	if pending := n.pending; len(pending) > 0 {
		n.pending = nil
		// Send waits for the program's loop, which may not run yet.
		go func() {
			for _, text := range pending {
				p.Send(ui.NoticeMsg{Text: text})
			}
		}()
	}
}

func (n *tuiNotice) send(text string) {
	n.mu.Lock()
	p := n.p
	if p == nil && len(n.pending) < 8 {
		n.pending = append(n.pending, text)
	}
	n.mu.Unlock()
	if p != nil {
		p.Send(ui.NoticeMsg{Text: text})
	}
}

// closeCurrentAgent closes the agent the TUI ended on, so it leaves the
// office: after a profile switch (P) it is not one this function dialled,
// and nothing else holds it. Closing an agent twice is harmless.
func closeCurrentAgent(final tea.Model) {
	mm, ok := final.(ui.Model)
	if !ok {
		return
	}
	if c, ok := mm.CurrentAgent().(io.Closer); ok && c != nil {
		_ = c.Close()
	}
}

func absFileURI(path string) string {
	abs, err := absPath(path)
	if err != nil {
		return path
	}
	// Escaped: a name with control characters or '%' must parse back to
	// itself (url.Parse refuses a raw control character).
	return (&url.URL{Scheme: "file", Path: abs}).String()
}

// targets are closed together; add is safe from any goroutine.
type targets struct {
	mu   sync.Mutex
	list []*target
}

func (ts *targets) add(t *target) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.list = append(ts.list, t)
}

func (ts *targets) close() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, t := range ts.list {
		t.Close()
	}
	ts.list = nil
}

// The browser lists skills only for an agent with the skill channel.
var _ ui.SkillAgent = (*client.Client)(nil)

// The computer screen shows the desktop only for an agent that reads it.
var _ ui.DesktopAgent = (*client.Client)(nil)

// positionsFile is the state file of the places documents were left:
// positions.json under the XDG state directory ("" without a home).
func positionsFile() string {
	if dir := ui.StateDir(); dir != "" {
		return filepath.Join(dir, "positions.json")
	}
	return ""
}

// needTerminal is the TUI's one precondition said in the user's terms:
// its keys come from a terminal (stdin, or /dev/tty when stdin is a pipe
// as in open -). From cron or a script without one, Bubble Tea failed
// with "error opening TTY: … no such device or address".
func needTerminal() error {
	if term.IsTerminal(os.Stdin.Fd()) || runtime.GOOS == "windows" {
		return nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return errors.New("the TUI needs a terminal, and none is attached; print a document with 'dpe-tui get FILE' instead")
	}
	return tty.Close()
}
