package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// resourcesScreen pages one server's resources. server is the key every
// request names; name is only shown.
type resourcesScreen struct {
	e              *env
	computer, name string
	server         protocol.ServerKey

	all []client.Resource
	// hay is what the filter matches per resource, lowercased field by
	// field and capped, built once per page, so 10,000 rows with
	// 10k-character names stay fast.
	hay      []hayFields
	dpeCount int
	// pages records, per get_resources page, the cursor sent and the raw
	// ack size, for the trace view ("the page the resource came from").
	pages []pageRecord

	// walk holds the cursor rules (client.Paging, shared with ls): the
	// cursor to send, the cursors seen, the page, resource and byte caps.
	walk *client.Paging
	done bool
	// stop is why paging ended early (repeated cursor, page cap).
	stop string

	showAll bool
	// applied is the query the visible rows were ranked for.
	applied string
	visible []int
	list    rowList
	detail  bool
	// detailBig gives the detail pane most of the screen (d cycles
	// small → large → hidden), so every _meta field can be read.
	detailBig bool
	// loadOp is the get_resources op in flight (0: none); loadingAll is
	// set while it is a load-all run.
	loadOp     int
	loadingAll bool
	gone       bool
	// nameWidth, uriWidth and mimeWidth are the widest name (as
	// shownName shows it), URI and short MIME type loaded (capped), for
	// the columns.
	nameWidth, uriWidth, mimeWidth int
	// titles counts the loaded resources per title: a title two share is
	// shown with each one's name (shownName).
	titles map[string]int
}

type pageRecord struct {
	No       int
	Cursor   string
	Next     string
	Count    int
	RawBytes int
	Duration time.Duration
	At       time.Time
}

func newResourcesScreen(e *env, computer string, server protocol.ServerKey, name string) *resourcesScreen {
	maxRes, maxBytes := listingBudget(e.opt)
	walk := client.NewPaging(computer, server, client.PagerOptions{MaxResources: maxRes, MaxBytes: maxBytes})
	return &resourcesScreen{e: e, computer: computer, server: server, name: name, walk: walk, detail: true}
}

func (v *resourcesScreen) reload() tea.Cmd {
	fresh := newResourcesScreen(v.e, v.computer, v.server, v.name)
	fresh.showAll, fresh.list.filter, fresh.detail, fresh.detailBig = v.showAll, v.list.filter, v.detail, v.detailBig
	if v.loadOp != 0 {
		v.e.ops.done(v.loadOp)
	}
	*v = *fresh
	return v.loadNext(false)
}

// loadNext asks for the next cursor page. With all set, each page answer
// chains the next request under the same op, so esc stops the whole run.
func (v *resourcesScreen) loadNext(all bool) tea.Cmd {
	e := v.e
	if v.done || e.agent == nil {
		if v.done {
			return e.info("all pages loaded (" + v.endText() + ")")
		}
		return nil
	}
	if v.loadOp != 0 {
		return nil
	}
	v.loadingAll = all
	label := fmt.Sprintf("get_resources page %d", len(v.pages)+1)
	var id int
	var cmd tea.Cmd
	if all {
		id, cmd = e.startLong("loading all resource pages", v.fetch(all))
	} else {
		id, cmd = e.start(label, 0, v.fetch(all))
	}
	v.loadOp = id
	return cmd
}

func (v *resourcesScreen) fetch(all bool) func(ctx context.Context, id int) tea.Msg {
	e := v.e
	a, computer, server, name, cursor, timeout, now := e.agent, v.computer, v.server, v.name, v.walk.Cursor(), e.opt.RequestTimeout, e.opt.Now
	return func(ctx context.Context, id int) tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		t0 := now()
		p, err := a.Resources(ctx, computer, server, cursor)
		var refused *client.CursorError
		if err != nil && !(p != nil && errors.As(err, &refused)) {
			return errMsg{id: id, what: "get_resources " + sanitizeLine(name), err: err}
		}
		msg := resourcesPageMsg{id: id, computer: computer, server: server, cursor: cursor, page: p, all: all, duration: now().Sub(t0)}
		if refused != nil {
			return refusedCursorMsg{msg, err}
		}
		return msg
	}
}

// refusedCursorMsg is a page whose next_cursor the client refused (too
// long): the page is kept and the listing stops with why.
type refusedCursorMsg struct {
	resourcesPageMsg
	refused error
}

// stopLoading forgets the op in flight: after a cancel or a failure m and
// M work again, and what was loaded stays.
func (v *resourcesScreen) stopLoading() {
	v.loadOp, v.loadingAll = 0, false
}

func (v *resourcesScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case resourcesPageMsg:
		if msg.id != v.loadOp {
			return v, nil
		}
		return v, v.onPage(msg, nil)
	case refusedCursorMsg:
		if msg.id != v.loadOp {
			return v, nil
		}
		return v, v.onPage(msg.resourcesPageMsg, msg.refused)
	case errMsg:
		if msg.id == v.loadOp {
			v.stopLoading()
		}
	case cancelledMsg:
		if msg.id == v.loadOp {
			v.stopLoading()
		}
	case client.NotifyEvent:
		switch {
		case msg.Name == protocol.NotifyLeaveOffice && msg.Computer == v.computer:
			v.gone = true
		case msg.Name == protocol.NotifyEnterOffice && msg.Computer == v.computer:
			v.gone = false
		}
	case reconnectedMsg:
		return v, v.reload()
	case promptChangedMsg, promptDoneMsg:
		if v.list.onFilter(msg) {
			v.refilter()
		}
	case tea.KeyPressMsg:
		return v, v.key(msg)
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		v.list.mouse(msg, mouseY(msg)-v.head(), len(v.visible))
	}
	return v, nil
}

// onPage appends one page and applies the cursor rules: an empty next
// cursor is the end; a cursor seen before or the page cap stops with a
// message, so the list never pretends to be complete.
func (v *resourcesScreen) onPage(msg resourcesPageMsg, refused error) tea.Cmd {
	e := v.e
	p := msg.page
	if p == nil {
		p = &client.ResourcePage{}
	}
	stopped := v.walk.Add(p, refused) // numbers p's resources
	no := v.walk.Pages()
	v.pages = append(v.pages, pageRecord{No: no, Cursor: shortCursor(msg.cursor), Next: shortCursor(p.NextCursor), Count: len(p.Resources), RawBytes: len(p.Raw), Duration: msg.duration, At: e.opt.Now()})
	for _, r := range p.Resources {
		if r.Computer == "" {
			r.Computer = v.computer
		}
		if r.Server == "" {
			r.Server = v.server
		}
		v.all = append(v.all, r)
		if v.titles == nil {
			v.titles = map[string]int{}
		}
		v.titles[r.Title]++
		v.hay = append(v.hay, haystack(r))
		v.nameWidth = max(v.nameWidth, cellWidth(v.shownName(r)))
		v.uriWidth = max(v.uriWidth, cellWidth(r.URI))
		v.mimeWidth = max(v.mimeWidth, cellWidth(shortMime(r.MimeType)))
		if r.IsDPE() {
			v.dpeCount++
		}
	}
	v.done = v.walk.Done()
	if stopped != nil {
		v.stop = stopText(stopped)
	}
	v.refilter()
	var cmd tea.Cmd
	if v.stop != "" && v.done {
		cmd = e.setStatus(statusErr, v.stop)
	}
	if msg.all && !v.done {
		e.progress(msg.id, fmt.Sprintf("page %d · %d loaded", len(v.pages), len(v.all)))
		return tea.Batch(cmd, e.step(msg.id, v.fetch(true)))
	}
	e.ops.done(msg.id)
	v.stopLoading()
	return cmd
}

const (
	defaultMaxListedResources = 200_000
	defaultMaxListedBytes     = 256 << 20
)

func listingBudget(opt Options) (int, int64) {
	r, b := opt.MaxListedResources, opt.MaxListedBytes
	if r <= 0 {
		r = defaultMaxListedResources
	}
	if b <= 0 {
		b = defaultMaxListedBytes
	}
	return r, b
}

// stopText is the screen's short line for why client.Paging stopped the
// listing early.
func stopText(err error) string {
	var ce *client.CursorError
	if !errors.As(err, &ce) {
		return oneLine(err)
	}
	switch {
	case errors.Is(ce.Err, client.ErrRepeatedCursor):
		return fmt.Sprintf("server repeated cursor %q at page %d; stopped", sanitizeLine(ce.Cursor), ce.Pages)
	case errors.Is(ce.Err, client.ErrResourceBudget):
		return fmt.Sprintf("listing budget reached: %d resources (limit %d); stopped", ce.Loaded, ce.Limit)
	case errors.Is(ce.Err, client.ErrByteBudget):
		return fmt.Sprintf("listing budget reached: %s listed (limit %s); stopped", humanBytes(ce.Bytes), humanBytes(int64(ce.Limit)))
	case errors.Is(ce.Err, client.ErrPageCap):
		return "page cap reached (" + counted(ce.Limit, "page", "pages") + "); stopped"
	case errors.Is(ce.Err, client.ErrCursorTooLong):
		return fmt.Sprintf("server sent a next_cursor of %d bytes (limit %d); stopped", len(ce.Cursor), ce.Limit)
	}
	return oneLine(err)
}

// shortCursor is a cursor as kept for the trace and messages: a hostile
// server's megabyte cursor is not stored a thousand times.
func shortCursor(c string) string {
	const maxCursorShown = 128
	if len(c) <= maxCursorShown {
		return c
	}
	return c[:maxCursorShown] + fmt.Sprintf("… (%d bytes)", len(c))
}

func (v *resourcesScreen) endText() string {
	switch {
	case v.stop != "":
		return "stopped"
	case v.done:
		return "end"
	}
	return "more available"
}

// flattenJSON turns a JSON value into sorted (path, value) pairs.
func flattenJSON(prefix string, raw json.RawMessage) [][2]string {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return [][2]string{{prefix, "(invalid JSON: " + err.Error() + ")"}}
	}
	var out [][2]string
	var walk func(p string, v any, depth int)
	walk = func(p string, v any, depth int) {
		if depth > 16 {
			out = append(out, [2]string{p, "(nested too deep)"})
			return
		}
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(p+"."+k, t[k], depth+1)
			}
		case []any:
			allScalar := true
			for _, e := range t {
				switch e.(type) {
				case map[string]any, []any:
					allScalar = false
				}
			}
			if allScalar {
				parts := make([]string, len(t))
				for i, e := range t {
					parts[i] = fmt.Sprint(e)
				}
				out = append(out, [2]string{p, "[" + strings.Join(parts, ", ") + "]"})
				return
			}
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", p, i), e, depth+1)
			}
		case nil:
			out = append(out, [2]string{p, "null"})
		default:
			out = append(out, [2]string{p, fmt.Sprint(t)})
		}
	}
	walk(prefix, v, 0)
	return out
}

func humanBytes(n int64) string {
	switch {
	case n < 0:
		return "?"
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1f MiB", float64(n)/1024/1024)
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/1024/1024/1024)
}

// shortMime drops the prefixes every DPE resource shares, so the column
// shows what differs (the detail pane has the full type).
func shortMime(s string) string {
	s = strings.TrimPrefix(s, "application/")
	return strings.TrimPrefix(s, "vnd.a2c.")
}
