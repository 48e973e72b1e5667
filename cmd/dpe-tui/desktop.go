package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// lsDesktop is `ls desktop [--computer C] [--json]`: the window://
// resources of each computer's desktop (client:get_desktop), read-only.
// A computer whose desktop cannot be read is noted on stderr and skipped;
// nothing listed at all is an error.
func lsDesktop(ctx context.Context, f *lsFlags, stdout, stderr io.Writer) error {
	log, closeLog, err := f.logger()
	if err != nil {
		return err
	}
	defer closeLog()
	t, err := resolveTarget(ctx, &f.globalFlags, log)
	if err != nil {
		return err
	}
	defer t.Close()
	c, err := dial(ctx, &f.globalFlags, t, log)
	if err != nil {
		return err
	}
	defer c.Close()
	if note := versionNote(c); note != "" {
		fmt.Fprintln(stderr, note)
	}
	computers := []string{f.Computer}
	if f.Computer == "" {
		sessions, err := c.Computers(ctx)
		if err != nil {
			return fmt.Errorf("list computers: %w", err)
		}
		if len(sessions) == 0 {
			return fmt.Errorf("office %s has no computers (check --office)", sanitize.Line(t.Office))
		}
		computers = computers[:0]
		for _, s := range sessions {
			computers = append(computers, s.Name)
		}
	}
	out := newTable(stdout, f.JSON)
	defer out.flush()
	out.header("COMPUTER", "WINDOW", "TEXT")
	listed, failed := 0, 0
	for _, comp := range computers {
		d, err := c.Desktop(ctx, comp)
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "dpe-tui: skipped computer %s: %s\n", sanitize.Line(comp), sanitize.Line(sanitize.URLsIn(err.Error())))
			continue
		}
		for _, w := range d.Windows {
			listed++
			out.row(lsWindow{Computer: sanitize.Text(comp), URI: sanitize.Text(w.URI), Text: sanitize.Text(w.Body), Truncated: w.Truncated},
				sanitize.Line(comp), sanitize.Line(w.URI), firstLine(w.Body, 80))
		}
		if d.Skipped > 0 {
			what := "entries were not windows and are"
			if d.Skipped == 1 {
				what = "entry was not a window and is"
			}
			fmt.Fprintf(stderr, "dpe-tui: computer %s: %d desktop %s not shown\n", sanitize.Line(comp), d.Skipped, what)
		}
	}
	if listed == 0 && failed > 0 {
		return errors.New("no desktop could be read")
	}
	return nil
}

// lsWindow is one JSON line of ls desktop --json.
type lsWindow struct {
	Computer  string `json:"computer"`
	URI       string `json:"uri"`
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
}

// firstLine is the first line of s, sanitized, cut to n runes.
func firstLine(s string, n int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	line = sanitize.Line(line)
	if r := []rune(line); len(r) > n {
		line = string(r[:n-1]) + "…"
	}
	return line
}

// versionNote is the one stderr line saying which A2C-SMCP version the
// server chose when its 4008 made the client reconnect with another one,
// and what that version lacks; "" when nothing was negotiated.
func versionNote(c *client.Client) string {
	if !c.Renegotiated() {
		return ""
	}
	note := "dpe-tui: the server speaks A2C-SMCP " + sanitize.Line(c.Version()) + "; connected with it"
	if !protocol.HasGetDPE(c.Version()) {
		note += " (it has no client:get_dpe: dpe:// resources are listed but cannot be opened)"
	}
	return note
}
