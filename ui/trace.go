package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// traceLog records how a document was obtained: the listing page the
// resource came from, every get_dpe request and answer, every fetch, the
// decode and the validation. Commands collect their events in a traceBuf
// of their own and hand it back in their message; Update appends it here,
// so the log needs no lock.
type traceLog struct {
	uri        string
	computer   string
	origin     *client.Resource
	originPage *pageRecord
	entries    []traceEntry
	failed     string
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

// maxTraceEntries bounds the log: a session that pages through a huge
// manifest document keeps the last ones.
const maxTraceEntries = 5000

func (t *traceLog) add(es ...traceEntry) {
	t.entries = append(t.entries, es...)
	if n := len(t.entries); n > maxTraceEntries {
		t.entries = append(t.entries[:0:0], t.entries[n-maxTraceEntries:]...)
	}
}

// traceBuf collects one command's trace; only that command touches it
// until it returns.
type traceBuf struct{ entries []traceEntry }

// event is the dpe.Opener OnTrace hook. Its get_dpe events are dropped
// unless they carry a warning: recordingResolver records each call once,
// with the whole answer.
func (b *traceBuf) event(ev dpe.TraceEvent) {
	if ev.Kind == dpe.TraceGetDPE && (ev.Err != "" || ev.Detail == "" || strings.HasPrefix(ev.Detail, "→")) {
		return
	}
	b.entries = append(b.entries, traceEntry{ev: ev})
}

func (b *traceBuf) getDPE(at time.Time, uri, computer string, a dpe.Access, d time.Duration, err error) {
	call := &getDPECall{uri: uri, computer: computer, access: a}
	ev := dpe.TraceEvent{At: at, Kind: dpe.TraceGetDPE, URI: a.URI, Duration: d}
	if err != nil {
		call.err = err.Error()
		ev.Err = err.Error()
	}
	if a.Computer != "" {
		call.computer = a.Computer
	}
	b.entries = append(b.entries, traceEntry{ev: ev, getDPE: call})
}

// answeredBy is the computer that answered the first get_dpe, or "".
func (t *traceLog) answeredBy() string {
	if t == nil {
		return ""
	}
	for _, e := range t.entries {
		if e.getDPE != nil && e.getDPE.err == "" && e.getDPE.computer != "" {
			return e.getDPE.computer
		}
	}
	return t.computer
}

// traceOverlay draws a traceLog; enter expands the raw get_dpe responses.
type traceOverlay struct {
	e        *env
	t        *traceLog
	sc       scroller
	expanded bool
}

func newTraceOverlay(e *env, t *traceLog) *traceOverlay {
	return &traceOverlay{e: e, t: t, sc: scroller{lines: true}}
}

func (v *traceOverlay) Update(msg tea.Msg) (screen, tea.Cmd) {
	k := v.e.keys
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case matches(msg, k.Back, k.Trace):
			return v, v.e.ask(closeOverlayMsg{})
		case matches(msg, k.Expand):
			v.expanded = !v.expanded
			return v, nil
		case matches(msg, k.Copy):
			if v.t != nil {
				return v, v.e.ask(copyMenuMsg{resURI: v.t.uri})
			}
		}
		v.sc.nav(k, msg, len(v.lines(v.e.width)), v.e.bodyHeight())
	case tea.MouseWheelMsg:
		v.sc.wheel(msg.Button == tea.MouseWheelUp, len(v.lines(v.e.width)), v.e.bodyHeight())
	}
	return v, nil
}

func (v *traceOverlay) View(w, h int) []string { return v.sc.window(v.lines(w), w, h) }

func (v *traceOverlay) Keys() screenKeys {
	k := v.e.keys
	return screenKeys{
		short: []key2{k.Up, k.Down, k.Expand, k.Copy, withHelp(k.Back, "close")},
		full:  [][]key2{k.navKeys(), {k.Expand, k.Copy}, k.globalKeys()},
	}
}

func (v *traceOverlay) Crumb() string { return "resolver trace" }

// traceLines renders the trace as sections: where the resource came from,
// the timeline (get_dpe / fetch / decode / validate with timings), and the
// access details of every get_dpe answer.
func (v *traceOverlay) lines(w int) []string {
	st := v.e.st
	t := v.t
	if t == nil {
		return []string{"", st.dim.Render("  Nothing opened yet: open a dpe:// resource to see how it was resolved.")}
	}
	entries, failed := t.entries, t.failed
	now := v.e.opt.Now()
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
		kv("listed by", sanitizeLine(o.Computer)+" / "+sanitizeLine(string(o.Server)))
		if p := t.originPage; p != nil {
			cur := "(first page, no cursor)"
			if p.Cursor != "" {
				cur = "cursor " + quote(p.Cursor)
			}
			next := "next_cursor: none (last page)"
			if p.Next != "" {
				next = "next_cursor " + quote(p.Next)
			}
			kv("get_resources", fmt.Sprintf("page %d · %s · %s · %s · %s", p.No, cur, counted(p.Count, "resource", "resources"), humanBytes(int64(p.RawBytes)), p.Duration.Round(time.Millisecond)))
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
	summary := fmt.Sprintf("Timeline · %d get_dpe · %s · %s", calls0, counted(fetches, "fetch", "fetches"), humanBytes(bytesIn))
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
		out = append(out, traceEventLine(st, e, t0, i, entries))
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
			if !v.expanded {
				kv("response", st.dim.Render(clip(sanitizeLine(redactJSONURLs(string(a.RawJSON))), max(10, w-20)))+st.dim.Render("  (enter expands)"))
				continue
			}
			kv("response", "")
			out = append(out, jsonLines(a.RawJSON, w, v.e.theme)...)
		}
	}
	return out
}

func traceEventLine(st styles, e traceEntry, t0 time.Time, i int, all []traceEntry) string {
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

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func quote(s string) string { return fmt.Sprintf("%q", sanitizeLine(s)) }

// countFindings counts findings by severity, as check's summary does.
func countFindings(f []dpe.Finding) (violations, warnings, notes int) {
	for _, x := range f {
		switch x.Severity {
		case dpe.Violation:
			violations++
		case dpe.Warning:
			warnings++
		default:
			notes++
		}
	}
	return
}
