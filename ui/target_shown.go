package ui

import (
	"net/url"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/dpe-tui/dpe-tui/sanitize"
)

// targetHolder is a screen showing a document opened from a target
// (a local file or a URL), which the header of `dpe-tui open` names.
type targetHolder interface{ openedFrom() string }

func (d *documentScreen) openedFrom() string { return d.target }

// shownTarget is the file or URL the header names: the one the topmost
// document on the stack was opened from (o and links open others over
// the first), as the user reads it — a file:// URI as its decoded path
// in NFC (not %E6%97%A5… nor NFD's split accents), and open -'s copy as
// OpenTargetName.
func (m *model) shownTarget() string {
	t := m.e.opt.OpenTarget
	for i := len(m.stack) - 1; i >= 0; i-- {
		if h, ok := m.stack[i].(targetHolder); ok && h.openedFrom() != "" {
			t = h.openedFrom()
			break
		}
	}
	if t == m.e.opt.OpenTarget && m.e.opt.OpenTargetName != "" {
		return m.e.opt.OpenTargetName
	}
	return displayTarget(t)
}

// displayTarget is a target as a person reads it: a file:// URI's path
// decoded, in NFC; another URL redacted as everywhere (no query, no
// credentials: a signed URL's token is no name).
func displayTarget(t string) string {
	u, err := url.Parse(t)
	switch {
	case err == nil && strings.EqualFold(u.Scheme, "file") && (u.Host == "" || u.Host == "localhost"):
		return norm.NFC.String(u.Path)
	case err == nil && u.Scheme != "":
		return sanitize.URL(t)
	}
	return norm.NFC.String(t)
}
