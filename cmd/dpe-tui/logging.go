package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	charmlog "charm.land/log/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/pflag"
)

// logFlags are the logging flags of the long-running commands (serve,
// computer); where the log goes is the global --log.
type logFlags struct {
	Format  string
	Level   string
	Verbose bool
}

func (l *logFlags) define(fs *pflag.FlagSet) {
	fs.StringVar(&l.Format, "log-format", "text", "log format: text (styled on a terminal) or json")
	bindEnv(fs, "log-format", "DPE_TUI_LOG_FORMAT")
	fs.StringVar(&l.Level, "log-level", "info", "log level: debug, info, warn or error")
	bindEnv(fs, "log-level", "DPE_TUI_LOG_LEVEL")
	fs.BoolVarP(&l.Verbose, "verbose", "v", false, "debug logging (same as --log-level debug)")
}

// logger builds the command's logger: to file (--log) or stderr; JSON with
// --log-format json; on a terminal, text through charm log, else slog's
// plain text. The returned func closes the file.
func (l *logFlags) logger(file string, stderr io.Writer, noColor bool) (*slog.Logger, func(), error) {
	var level slog.Level
	switch strings.ToLower(l.Level) {
	case "debug":
		level = slog.LevelDebug
	case "info", "":
		level = slog.LevelInfo
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		return nil, nil, usageErrorf("--log-level must be debug, info, warn or error, not %q", l.Level)
	}
	if l.Verbose {
		level = slog.LevelDebug
	}
	if l.Format != "text" && l.Format != "json" {
		return nil, nil, usageErrorf("--log-format must be text or json, not %q", l.Format)
	}
	out, closeFn := stderr, func() {}
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("open log file: %w", err)
		}
		out, closeFn = f, func() { f.Close() }
	}
	opts := &slog.HandlerOptions{Level: level}
	if l.Format == "json" {
		return slog.New(slog.NewJSONHandler(out, opts)), closeFn, nil
	}
	if f, ok := out.(*os.File); ok && term.IsTerminal(f.Fd()) {
		cl := charmlog.NewWithOptions(out, charmlog.Options{Level: charmlog.Level(level), ReportTimestamp: true})
		if noColor {
			cl.SetColorProfile(colorprofile.NoTTY)
		}
		return slog.New(cl), closeFn, nil
	}
	return slog.New(slog.NewTextHandler(out, opts)), closeFn, nil
}
