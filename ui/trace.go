package ui

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

var errNoResolver = errors.New("no resolver for this computer")

// traceLog records how a document was obtained: the listing page the
// resource came from, every get_dpe request and answer, every fetch, the
// decode and the validation (issue 4 "resolver trace"). Commands append to
// it while they run, so it has its own lock.
type traceLog struct {
	mu         sync.Mutex
	uri        string
	computer   string
	origin     *client.Resource
	originPage *pageRecord
	entries    []traceEntry
	failed     string
	// recorded is set when get_dpe calls go through recordingResolver.
	recorded bool
}

type traceEntry struct {
	ev     dpe.TraceEvent
	getDPE *getDPECall
}

type getDPECall struct {
	uri, computer string
	access        dpe.Access
	err           string
}

func newTraceLog(uri, computer string) *traceLog {
	return &traceLog{uri: uri, computer: computer}
}

// add is the dpe.Opener OnTrace hook. get_dpe events are recorded richer by
// recordingResolver; the opener's own get_dpe/refetch events still carry
// why a re-call happened, so they are kept when they say something.
func (t *traceLog) add(ev dpe.TraceEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ev.Kind == dpe.TraceGetDPE && t.recorded {
		return // recordingResolver has the request and the whole answer
	}
	t.entries = append(t.entries, traceEntry{ev: ev})
}

func (t *traceLog) addGetDPE(at time.Time, uri, computer string, a dpe.Access, d time.Duration, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	call := &getDPECall{uri: uri, computer: computer, access: a}
	ev := dpe.TraceEvent{At: at, Kind: "get_dpe", URI: a.URI, Duration: d}
	if err != nil {
		call.err = err.Error()
		ev.Err = err.Error()
	}
	if a.Computer != "" {
		call.computer = a.Computer
	}
	t.entries = append(t.entries, traceEntry{ev: ev, getDPE: call})
}

func (t *traceLog) fail(at time.Time, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = err.Error()
}

func (t *traceLog) snapshot() ([]traceEntry, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]traceEntry(nil), t.entries...), t.failed
}

// traceView draws a traceLog.
type traceView struct {
	yoff int
}

func (v *traceView) handleKey(m *model, msg tea.KeyPressMsg) tea.Cmd {
	lines := m.traceLines(m.width)
	h := m.bodyHeight()
	l := listCursor{cur: v.yoff, top: v.yoff}
	switch msg.String() {
	case "up", "k":
		v.yoff--
	case "down", "j":
		v.yoff++
	case "pgup", "ctrl+b", "ctrl+u":
		v.yoff -= h - 1
	case "pgdown", "ctrl+f", "ctrl+d", "space":
		v.yoff += h - 1
	case "g", "home":
		v.yoff = 0
	case "G", "end":
		v.yoff = len(lines)
	case "y":
		m.copyMenu = true
		return nil
	case "x":
		m.overlay = overlayNone
	}
	_ = l
	v.yoff = max(0, min(v.yoff, len(lines)-h))
	return nil
}

func (m *model) currentTrace() *traceLog {
	if m.doc != nil && (m.screen == screenDocument) {
		return m.doc.trace
	}
	if m.content != nil && m.screen == screenContent {
		return m.content.trace
	}
	return m.lastTrace
}

// traceLines renders the trace as sections: where the resource came from,
// the timeline (get_dpe / fetch / decode / validate with timings), and the
// access details of every get_dpe answer.
func (m *model) traceLines(w int) []string {
	st := m.st
	t := m.currentTrace()
	if t == nil {
		return []string{"", st.dim.Render("  Nothing opened yet: open a dpe:// resource to see how it was resolved.")}
	}
	entries, failed := t.snapshot()
	now := m.opt.Now()
	var out []string
	section := func(s string) {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, " "+st.title.Render(s))
	}
	kv := func(k, v string) {
		out = append(out, "   "+st.label.Render(fit(k, 13))+" "+v)
	}
	if failed != "" {
		out = append(out, " "+st.errText.Render("✗ open failed: "+sanitizeLine(failed)), "")
	}
	section("Resource")
	kv("uri", sanitizeLine(t.uri))
	if t.computer != "" {
		kv("computer", sanitizeLine(t.computer))
	}
	if o := t.origin; o != nil {
		kv("listed by", sanitizeLine(o.Computer)+" / "+sanitizeLine(o.Server))
		if p := t.originPage; p != nil {
			cur := "(first page, no cursor)"
			if p.Cursor != "" {
				cur = "cursor " + quote(p.Cursor)
			}
			next := "next_cursor: none (last page)"
			if p.Next != "" {
				next = "next_cursor " + quote(p.Next)
			}
			kv("get_resources", fmt.Sprintf("page %d · %s · %d resources · %s · %s", p.No, cur, p.Count, humanBytes(int64(p.RawBytes)), p.Duration.Round(time.Millisecond)))
			kv("", next)
		}
		if o.MimeType != "" {
			kv("mimeType", sanitizeLine(o.MimeType))
		}
	} else {
		kv("listed by", st.dim.Render("— (opened by URI)"))
	}

	var calls0, fetches, refetches int
	var bytesIn int64
	for _, e := range entries {
		switch {
		case e.getDPE != nil:
			calls0++
		case e.ev.Kind == dpe.TraceFetch || e.ev.Kind == dpe.TraceFetchPage:
			fetches++
			bytesIn += e.ev.Bytes
		case e.ev.Kind == dpe.TraceRefetch:
			refetches++
		}
	}
	summary := fmt.Sprintf("Timeline · %d get_dpe · %d fetches · %s", calls0, fetches, humanBytes(bytesIn))
	if refetches > 0 {
		summary += fmt.Sprintf(" · %d re-resolve", refetches)
	}
	section(summary)
	if len(entries) == 0 {
		out = append(out, "   "+st.dim.Render("no events yet"))
	}
	var t0 time.Time
	for i, e := range entries {
		if i == 0 {
			t0 = e.ev.At
		}
		out = append(out, m.traceEventLine(e, t0, i, entries))
	}

	calls := 0
	for _, e := range entries {
		if e.getDPE == nil {
			continue
		}
		calls++
		c := e.getDPE
		title := "get_dpe"
		if calls > 1 {
			title = fmt.Sprintf("get_dpe (re-call %d)", calls-1)
		}
		section(title)
		kv("request", fmt.Sprintf("computer %s · uri %s", sanitizeLine(orDash(c.computer)), sanitizeLine(c.uri)))
		if c.err != "" {
			kv("error", st.errText.Render(sanitizeLine(c.err)))
			continue
		}
		a := c.access
		kv("access uri", sanitizeLine(sanitize.URL(a.URI)))
		kv("mime_type", sanitizeLine(orDash(a.MimeType)))
		size := "—"
		if a.Size >= 0 {
			size = humanBytes(a.Size) + fmt.Sprintf(" (%d bytes)", a.Size)
		}
		kv("size", size)
		exp := "— (no expiry)"
		if !a.ExpiresAt.IsZero() {
			exp = a.ExpiresAt.UTC().Format(time.RFC3339)
			if a.Expired(now) {
				exp += " " + st.errText.Render("expired "+now.Sub(a.ExpiresAt).Round(time.Second).String()+" ago")
			} else {
				exp += " " + st.okText.Render("valid for "+a.ExpiresAt.Sub(now).Round(time.Second).String())
			}
		}
		kv("expires_at", exp)
		kv("etag", sanitizeLine(orDash(a.ETag)))
		if len(a.RawJSON) > 0 {
			kv("response", st.dim.Render(clip(sanitizeLine(redactJSONURLs(string(a.RawJSON))), max(10, w-20))))
		}
	}
	return out
}

func (m *model) traceEventLine(e traceEntry, t0 time.Time, i int, all []traceEntry) string {
	st := m.st
	ev := e.ev
	rel := fmt.Sprintf("+%5dms", ev.At.Sub(t0).Milliseconds())
	mark := st.okText.Render("✓")
	switch {
	case ev.Kind == dpe.TraceRefetch:
		mark = st.warnText.Render("↻") // Err says why, it is not a failure
	case ev.Err != "":
		mark = st.errText.Render("✗")
	}
	kind := ev.Kind
	if e.getDPE != nil {
		n := 0
		for _, p := range all[:i] {
			if p.getDPE != nil {
				n++
			}
		}
		if n > 0 {
			kind = "get_dpe ↻"
		}
	}
	var parts []string
	if ev.Status != 0 {
		parts = append(parts, fmt.Sprintf("HTTP %d", ev.Status))
	}
	if ev.Bytes > 0 {
		parts = append(parts, humanBytes(ev.Bytes))
	}
	if ev.Duration > 0 || ev.Kind == "decode" || ev.Kind == "fetch" || ev.Kind == "get_dpe" {
		parts = append(parts, ev.Duration.Round(time.Microsecond*100).String())
	}
	// detail (which page, why a re-call) before the long URI
	if ev.Detail != "" {
		parts = append(parts, sanitizeLine(ev.Detail))
	}
	if ev.Err != "" {
		parts = append(parts, st.errText.Render(sanitizeLine(ev.Err)))
	}
	if ev.URI != "" {
		parts = append(parts, sanitizeLine(sanitize.URL(ev.URI)))
	}
	kindStyle := st.key
	if ev.Kind == "refetch" || strings.HasSuffix(kind, "↻") {
		kindStyle = st.warnText
	}
	return "   " + st.dim.Render(rel) + " " + mark + " " + kindStyle.Render(fit(kind, 11)) + " " + strings.Join(parts, " · ")
}

func (m *model) traceView(w, h int) []string {
	lines := m.traceLines(w)
	m.trace.yoff = max(0, min(m.trace.yoff, len(lines)-h))
	return box(lines[min(m.trace.yoff, len(lines)):], w, h)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func quote(s string) string { return fmt.Sprintf("%q", sanitizeLine(s)) }

func countFindings(f []dpe.Finding) (violations, warnings int) {
	for _, x := range f {
		if x.Severity == dpe.Violation {
			violations++
		} else {
			warnings++
		}
	}
	return
}
