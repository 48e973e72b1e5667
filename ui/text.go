package ui

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/internal/plural"
	"github.com/dpe-tui/dpe-tui/render"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// maxShown caps one untrusted string on a list row or status line; the
// inspector shows it complete (SECURITY.md, "string length shown").
const maxShown = 512

// sanitizeLine makes an untrusted string safe for one line.
func sanitizeLine(s string) string {
	if len(s) > 4*maxShown {
		s = s[:4*maxShown]
	}
	return sanitize.Truncate(sanitize.Line(s), maxShown)
}

// oneLine is the user-facing form of an error: one sanitized line.
func oneLine(err error) string {
	if err == nil {
		return ""
	}
	return sanitizeLine(sanitize.URLsIn(err.Error()))
}

// fit truncates or pads s (ANSI-aware) to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		// A wide character that does not fit whole is left out, which
		// leaves the cut one cell short: pad it, or every later column
		// of the row shifts left.
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	return s + strings.Repeat(" ", w-sw)
}

// took is how long something took, for a status line: whole
// milliseconds (rounded up, so a fast open never reads "0s") under a
// second, seconds to two decimals above.
func took(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(int64((d+time.Millisecond-1)/time.Millisecond), 10) + "ms"
	}
	return d.Round(10 * time.Millisecond).String()
}

// counted is "1 match" or "3 matches": n and the word in its number.
var counted = plural.Count

// clip truncates s to at most w cells without padding.
func clip(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		return ansi.Truncate(s, w, "…")
	}
	return s
}

// box lays lines out as exactly h lines of at most w cells.
func box(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := 0; i < h; i++ {
		if i < len(lines) {
			out[i] = clip(lines[i], w)
		}
	}
	return out
}

// padLines returns exactly h lines, trusting their widths.
func padLines(lines []string, h int) []string {
	if len(lines) >= h {
		return lines[:h]
	}
	return append(lines, make([]string, h-len(lines))...)
}

// column is one column of a table-like list.
type column struct {
	title string
	width int
}

func joinCols(cols []column, cells []string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString("  ")
		}
		cell := ""
		if i < len(cells) {
			cell = cells[i]
		}
		b.WriteString(fit(cell, c.width))
	}
	return b.String()
}

func colHeader(cols []column) []string {
	cells := make([]string, len(cols))
	for i, c := range cols {
		cells[i] = c.title
	}
	return cells
}

// redactJSONURLs masks credentials in every URL string of a JSON text.
func redactJSONURLs(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				t[k] = walk(e)
			}
		case []any:
			for i, e := range t {
				t[i] = walk(e)
			}
		case string:
			if strings.Contains(t, "://") {
				return sanitize.URL(t)
			}
		}
		return v
	}
	b, err := json.Marshal(walk(v))
	if err != nil {
		return s
	}
	return string(b)
}

// wrapCells wraps plain text to w cells (words first, then hard).
func wrapCells(s string, w int) []string {
	if s == "" {
		return []string{""}
	}
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}

// jsonLines is a JSON value pretty-printed and coloured for an overlay,
// with credentials in URLs masked and every string sanitized by
// render.JSON.
func jsonLines(raw []byte, w int, theme string) []string {
	return render.JSON([]byte(redactJSONURLs(string(raw))), w-2, render.NewTheme(theme), nil)
}
