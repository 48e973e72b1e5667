package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
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
		return slog.New(uniqueKeys(slog.NewJSONHandler(out, opts))), closeFn, nil
	}
	if f, ok := out.(*os.File); ok && term.IsTerminal(f.Fd()) {
		cl := charmlog.NewWithOptions(out, charmlog.Options{Level: charmlog.Level(level), ReportTimestamp: true})
		if noColor {
			cl.SetColorProfile(colorprofile.NoTTY)
		}
		return slog.New(uniqueKeys(cl)), closeFn, nil
	}
	return slog.New(uniqueKeys(slog.NewTextHandler(out, opts))), closeFn, nil
}

// uniqueHandler writes each key once per line: loggers are narrowed in
// layers (the stack says component=server, the server component=smcp-
// server; the stack and the computer both say computer=alpha), and the
// innermost, most specific value wins. Attributes are held back until a
// group opens or a record is written, so a later one can replace them.
type uniqueHandler struct {
	inner slog.Handler
	attrs []slog.Attr
}

func uniqueKeys(h slog.Handler) slog.Handler { return &uniqueHandler{inner: h} }

func (h *uniqueHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *uniqueHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &uniqueHandler{inner: h.inner, attrs: mergeAttrs(h.attrs, as)}
}

func (h *uniqueHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	inner := h.inner
	if len(h.attrs) > 0 {
		inner = inner.WithAttrs(h.attrs)
	}
	return &uniqueHandler{inner: inner.WithGroup(name)}
}

func (h *uniqueHandler) Handle(ctx context.Context, r slog.Record) error {
	if len(h.attrs) == 0 {
		return h.inner.Handle(ctx, r)
	}
	own := make([]slog.Attr, 0, r.NumAttrs())
	r.Attrs(func(a slog.Attr) bool { own = append(own, a); return true })
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	out.AddAttrs(mergeAttrs(h.attrs, own)...)
	return h.inner.Handle(ctx, out)
}

// mergeAttrs is base then more, a key of more replacing base's in place.
func mergeAttrs(base, more []slog.Attr) []slog.Attr {
	out := slices.Clone(base)
	for _, a := range more {
		i := slices.IndexFunc(out, func(b slog.Attr) bool { return b.Key == a.Key })
		if i >= 0 {
			out[i] = a
		} else {
			out = append(out, a)
		}
	}
	return out
}
