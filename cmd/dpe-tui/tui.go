package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/ui"
)

type tuiFlags struct {
	globalFlags
	Theme string
	Mouse bool
}

func (f *tuiFlags) register(fs *flag.FlagSet) {
	f.globalFlags.register(fs)
	fs.StringVar(&f.Theme, "theme", envOr("DPE_TUI_THEME", ""), "dark or light (default: from the terminal background)")
	fs.BoolVar(&f.Mouse, "mouse", false, "enable mouse (wheel scrolls, click selects)")
}

func runOpen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f tuiFlags
	fs := flag.NewFlagSet("open", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("open needs exactly one file path or URL")
	}
	if err := checkLocalInput(pos[0]); err != nil {
		return err // before any TUI starts
	}
	return startTUI(ctx, &f, pos[0])
}

func runTUI(ctx context.Context, args []string, stdout, stderr io.Writer, _ string) error {
	var f tuiFlags
	fs := flag.NewFlagSet("dpe-tui", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	f.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("unknown command %q", pos[0])
	}
	return startTUI(ctx, &f, "")
}

func startTUI(ctx context.Context, f *tuiFlags, openTarget string) error {
	if err := f.validate(); err != nil {
		return err
	}
	switch f.Theme {
	case "", "dark", "light":
	default:
		return usageErrorf("--theme must be dark or light, not %q", f.Theme)
	}
	log, closeLog, err := f.logger()
	if err != nil {
		return err
	}
	defer closeLog()

	opt := ui.Options{
		Theme:  f.Theme,
		Mouse:  f.Mouse,
		Limits: dpe.DefaultLimits(),
		Logger: log,
	}
	if os.Getenv("NO_COLOR") != "" {
		opt.Theme = "notty"
	}

	var tgt *target
	defer func() {
		if tgt != nil {
			tgt.Close()
		}
	}()
	if openTarget != "" {
		access := openTarget
		if !strings.Contains(openTarget, "://") {
			access = absFileURI(openTarget)
		}
		opt.OpenTarget = access
		opt.Fetcher = fetcher(&f.globalFlags, "")
		opt.Fetcher.AllowFile = true
		// Files that are not DPE JSON (PDF, Office, HTML, mail, EPUB, …)
		// convert in-process, page by page as they are viewed.
		conv := convert.New(convert.Options{})
		defer conv.Close()
		opt.OpenFile = func(ctx context.Context, path string) (ui.PageSource, error) {
			return conv.OpenFile(ctx, path)
		}
	} else {
		opt.Fetcher = fetcher(&f.globalFlags, f.URL)
		// Connect runs inside a tea.Cmd, so the UI shows a spinner while the
		// demo stack starts and the agent joins, and can offer a retry.
		opt.Connect = func(ctx context.Context) (ui.Agent, error) {
			if tgt == nil {
				t, err := resolveTarget(ctx, &f.globalFlags, log)
				if err != nil {
					return nil, err
				}
				tgt = t
			}
			c, err := dial(ctx, &f.globalFlags, tgt, log)
			if err != nil {
				return nil, err
			}
			return c, nil
		}
	}

	p := tea.NewProgram(ui.New(opt), tea.WithContext(ctx))
	_, err = p.Run()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("terminal UI: %w", err)
	}
	if errors.Is(err, tea.ErrProgramKilled) && errors.Is(err, tea.ErrProgramPanic) {
		return fmt.Errorf("terminal UI crashed; see --log for details")
	}
	return nil
}

func absFileURI(path string) string {
	abs, err := absPath(path)
	if err != nil {
		return path
	}
	return "file://" + abs
}
