package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// errorInfo is one error as the user sees it: the status line gets the
// first sentence; the detail view (E) gets all of it, the protocol code
// and 4013 category, and what to try. Protocol details never get here
// (protocol.Error.Error leaves them out).
type errorInfo struct {
	what     string
	full     string
	summary  string
	more     bool
	code     int
	codeName string
	category string
	// said is the peer's own message when the error's text leaves it out
	// (a resolve error says the cause in its own words).
	said string
	hint string
	// conversion: the computer has the file but it does not convert;
	// the summary is the converter's own line.
	conversion bool
}

// maxErrorText bounds the full text kept for the detail view.
const maxErrorText = 16 << 10

func newErrorInfo(what string, err error) *errorInfo {
	full := ""
	if err != nil {
		full = err.Error()
	}
	if len(full) > maxErrorText {
		full = full[:maxErrorText] + "…"
	}
	full = displayText(sanitize.URLsIn(full))
	// Say each thing once: an error that already names what failed
	// ("open URI: …") is not prefixed with it again.
	if what != "" && !strings.HasPrefix(full, what+":") {
		if verb, obj, ok := strings.Cut(what, " "); ok && obj != "" && strings.HasPrefix(full, obj+":") {
			// "open FILE" of an error that starts "FILE: …" (a
			// converter's, an *os.PathError's): the file is named once.
			full = verb + " " + full
		} else {
			full = what + ": " + full
		}
	}
	info := &errorInfo{what: what, full: full}
	info.summary = firstSentence(sanitizeLine(full))
	var re *client.ResolveError
	if errors.As(err, &re) {
		if c := re.ConversionCause(); c != "" {
			// The cause is what the line is for: the converter names
			// the file; the URI and the computer are in the details.
			if len(c) > maxErrorText {
				c = c[:maxErrorText] + "…"
			}
			verb, _, _ := strings.Cut(what, " ")
			info.summary = firstSentence(sanitizeLine(strings.TrimSpace(verb + " " + displayText(sanitize.URLsIn(c)))))
			info.conversion = true
		}
	}
	info.more = info.summary != sanitizeLine(full)
	var pe *protocol.Error
	if errors.As(err, &pe) {
		info.code, info.codeName, info.category = pe.Code, protocol.CodeName(pe.Code), sanitizeLine(pe.Category)
		info.more = true
		msg := pe.Message
		if len(msg) > maxErrorText {
			msg = msg[:maxErrorText] + "…"
		}
		if msg = strings.TrimSpace(displayText(sanitize.URLsIn(msg))); msg != "" && !strings.Contains(full, msg) {
			info.said = msg
		}
	}
	info.hint = hintFor(err, info)
	if info.hint != "" {
		info.more = true
	}
	return info
}

// firstSentence cuts s after its first ". " (or at 160 cells), so the
// status line says what happened and the rest waits for E.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i+1]
	}
	if len([]rune(s)) > 160 {
		r := []rune(s)
		s = string(r[:159]) + "…"
	}
	return s
}

// hintFor says what to try, from what is known about the cause.
func hintFor(err error, info *errorInfo) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return "The peer did not answer in time. Try again (r), or raise --timeout."
	case errors.Is(err, dpe.ErrFileRefused):
		return "The document is a local file:// path offered by a computer dpe-tui did not start. Restart with --allow-file-uri if you trust it."
	}
	if info.conversion {
		return "The file itself does not convert (the same bytes fail the same way): fix or replace it on that computer."
	}
	switch info.code {
	case protocol.CodeResolutionFailed:
		switch info.category {
		case protocol.CategoryUpstreamUnavailable:
			return "The resolver's upstream is unavailable; this is retryable: press r in a moment."
		case protocol.CategoryInvalidDPEMime:
			return "The resource is not a DPE document. Open it from the resources screen to see what it is."
		case protocol.CategoryResolverReturnedInvalid:
			return "The computer's resolver answered with something invalid; its log has the details."
		case protocol.CategoryResolverError:
			return "The resolver failed; check the computer's log, then retry (r)."
		}
		if dpe.Retryable(err) {
			return "The document could not be resolved; retry (r) or check the computer's log."
		}
		return "The document could not be resolved; the computer's log has the cause."
	case protocol.CodeResolverNotConfig:
		return "That computer has no DPE resolver; open the URI on another computer."
	case protocol.CodeInvalidDPEURI:
		return "Check the URI: dpe://host/doc-ref with no query or fragment."
	case protocol.CodeMCPServerNotFound:
		return "No computer in the office serves this URI's host; check the host name."
	case protocol.CodeNotFound:
		return "The computer does not know this resource; refresh the list (r)."
	case protocol.CodeTimeout:
		return "The computer timed out; retry (r)."
	}
	return ""
}

func (i *errorInfo) lines(w int, st styles) []string {
	out := []string{" " + st.title.Render("Error"), ""}
	for _, l := range strings.Split(i.full, "\n") {
		for _, c := range wrapCells(l, max(10, w-4)) {
			out = append(out, "  "+st.errText.Render(c))
		}
	}
	if i.said != "" {
		out = append(out, "", " "+st.title.Render("The peer said"))
		for _, l := range strings.Split(i.said, "\n") {
			for _, c := range wrapCells(l, max(10, w-4)) {
				out = append(out, "  "+c)
			}
		}
	}
	if i.code != 0 {
		out = append(out, "", "  "+st.label.Render(fit("code", 10))+" "+fmt.Sprintf("%d %s", i.code, i.codeName))
	}
	if i.category != "" {
		cat := i.category
		if !protocol.KnownCategory(i.category) {
			cat += " (not a known category: treated as a generic failure)"
		}
		out = append(out, "  "+st.label.Render(fit("category", 10))+" "+cat)
	}
	if i.hint != "" {
		out = append(out, "", " "+st.title.Render("What to try"))
		for _, c := range wrapCells(i.hint, max(10, w-4)) {
			out = append(out, "  "+c)
		}
	}
	return out
}
