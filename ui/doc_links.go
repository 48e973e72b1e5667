package ui

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// linkAt is the link tab chose: link i (dpe.Element.Links) of element
// el on page page. It is the chosen one only while that element is the
// selected one on the page shown, so moving the selection (↑/↓, a jump,
// another page) puts it away without a word.
type linkAt struct {
	on          bool
	page, el, i int
	// fromTop: the next tab starts at the page's first link (tab left
	// the last one for the sidebar).
	fromTop bool
	// wrapped says the move went round the page's end (the status line
	// says so, as a search does).
	wrapped string
}

// pageLink is one link of the page shown, in reading order.
type pageLink struct{ el, i int }

// pageLinks are the links of the page shown, in reading order.
func (d *documentScreen) pageLinks() []pageLink {
	if d.page < 0 || d.page >= len(d.pages) {
		return nil
	}
	return d.pages[d.page].links
}

// curLink is the link tab chose, when it is still the selected element's.
func (d *documentScreen) curLink() (dpe.Link, bool) {
	l := d.link
	if !l.on || l.page != d.page || l.el != d.sel {
		return dpe.Link{}, false
	}
	el := d.selected()
	if el == nil {
		return dpe.Link{}, false
	}
	links := el.Links()
	if l.i < 0 || l.i >= len(links) {
		return dpe.Link{}, false
	}
	return links[l.i], true
}

// linkKey is tab, shift+tab and enter while the body has focus and the
// page has links; ok is false for every other key (tab then gives the
// sidebar focus, enter inspects).
func (d *documentScreen) linkKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := d.e.keys
	if d.sideFocus {
		return nil, false
	}
	switch {
	case matches(msg, k.FollowLink):
		l, ok := d.curLink()
		if !ok {
			return nil, false
		}
		return d.follow(l), true
	case matches(msg, k.NextLink):
		return d.stepLink(1)
	case matches(msg, k.PrevLink):
		return d.stepLink(-1)
	}
	return nil, false
}

// stepLink moves to the next (dir 1) or previous (-1) link of the page:
// from the one chosen, else from the selected element. Past the last
// link tab gives the sidebar focus (the sidebar's tab gives it back, and
// the next tab starts at the first link), or, with no sidebar, wraps and
// says so; shift+tab before the first wraps to the last and says so.
func (d *documentScreen) stepLink(dir int) (tea.Cmd, bool) {
	e := d.e
	links := d.pageLinks()
	if len(links) == 0 {
		return nil, false
	}
	pos := -1
	_, active := d.curLink()
	switch {
	case active:
		pos = sort.Search(len(links), func(j int) bool {
			return links[j].el > d.link.el || links[j].el == d.link.el && links[j].i >= d.link.i
		}) + dir
	case d.link.fromTop && dir > 0:
		pos = 0
	case dir > 0:
		pos = sort.Search(len(links), func(j int) bool { return links[j].el >= d.sel })
	default:
		pos = sort.Search(len(links), func(j int) bool { return links[j].el > d.sel }) - 1
	}
	wrapped := ""
	switch {
	case pos >= len(links):
		if sw, _ := d.layout(e.width); sw > 0 {
			d.link = linkAt{fromTop: true}
			d.sideFocus = true
			d.side.cur = d.sidebarIndexOfPage(d.page)
			return e.info("past the last link: the sidebar has focus · " + e.keys.SideFocus.Help().Key + " comes back to the page"), true
		}
		pos, wrapped = 0, "wrapped to the first"
	case pos < 0:
		pos, wrapped = len(links)-1, "wrapped to the last"
	}
	// The status line is the link's now (linkStatus): an older message
	// would hide where enter goes.
	e.dropStatus()
	l := links[pos]
	d.link = linkAt{on: true, page: d.page, el: l.el, i: l.i, wrapped: wrapped}
	d.sel = l.el
	d.reveal(true)
	return nil, true
}

// follow opens a link: an #anchor is a heading of this document, a
// dpe:// URI and a relative link open over this document (esc comes
// back), an http(s) URL opens in the system's browser once the
// confirmation showing it is answered; any other scheme is named and
// left alone.
func (d *documentScreen) follow(l dpe.Link) tea.Cmd {
	e := d.e
	raw := strings.TrimSpace(l.URL)
	shown := sanitizeLine(raw)
	if strings.HasPrefix(raw, "#") {
		return d.followAnchor(raw[1:])
	}
	u, err := url.Parse(raw)
	if err != nil {
		return e.setStatus(statusErr, "link "+shown+": not a URL ("+oneLine(err)+")")
	}
	switch strings.ToLower(u.Scheme) {
	case "dpe":
		return e.ask(openURIMsg{uri: raw, over: true})
	case "http", "https":
		return e.ask(overlayMsg{s: newLinkConfirm(e, raw)})
	case "file":
		return e.ask(openFileMsg{target: raw, over: true})
	case "":
		if rel, ok := relLink(raw); ok && d.skill != nil {
			return openSkillFile(e, d.skill, rel) // a file of the skill's package, as L opens it
		}
		return d.followRelative(u, shown)
	}
	return e.info("link " + shown + ": not followed (only dpe://, http(s), file and relative links are)")
}

// followRelative opens a link relative to this document: beside the
// local file it was converted from, or beside its dpe:// URI (a served
// folder's other documents).
func (d *documentScreen) followRelative(u *url.URL, shown string) tea.Cmd {
	e := d.e
	if u.Path == "" {
		return d.followAnchor(u.Fragment)
	}
	if p, ok := localPath(d.target); ok && d.target != "" {
		rel := filepath.FromSlash(u.Path)
		if !filepath.IsAbs(rel) {
			rel = filepath.Join(filepath.Dir(p), rel)
		}
		return e.ask(openFileMsg{target: rel, over: true})
	}
	if base, err := url.Parse(d.uri); err == nil && strings.EqualFold(base.Scheme, "dpe") {
		next := base.ResolveReference(&url.URL{Path: u.Path})
		next.Fragment, next.RawFragment = "", ""
		return e.ask(openURIMsg{uri: next.String(), over: true})
	}
	return e.info("link " + shown + ": relative to " + sanitizeLine(d.uri) + ", which is neither a local file nor a dpe:// URI")
}

// anchorReturn is where an #anchor was followed from: the link, and the
// page the anchor led to.
type anchorReturn struct {
	from linkAt
	page int
}

// returnFromAnchor goes back to the link an #anchor was followed from,
// the link chosen again so tab goes on from it.
func (d *documentScreen) returnFromAnchor() tea.Cmd {
	b := d.anchorBack
	d.anchorBack = nil
	cmd := d.gotoPage(b.from.page, b.from.el)
	d.link = b.from
	d.link.wrapped = ""
	return tea.Batch(cmd, d.e.info("back at the link"))
}

// followAnchor selects the heading an #anchor names (Markdown's and
// HTML's heading ids, as GitHub and pandoc make them from the text): on
// the pages loaded, else a page whose title it names.
func (d *documentScreen) followAnchor(frag string) tea.Cmd {
	e := d.e
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	want := anchorSlug(frag)
	if want == "" {
		return e.info("link #: names no heading")
	}
	order := []int{d.page}
	for i := range d.pages {
		if i != d.page {
			order = append(order, i)
		}
	}
	for _, i := range order {
		pu := &d.pages[i]
		if !pu.loaded() {
			continue
		}
		for _, o := range pu.outline {
			if anchorSlug(pu.p.Elements[o.el].Text) != want {
				continue
			}
			d.anchorBack = &anchorReturn{from: d.link, page: i}
			if i != d.page {
				return d.gotoPage(i, o.el)
			}
			d.recordJump()
			d.sel = o.el
			d.reveal(true)
			return nil
		}
	}
	for i := range d.pages {
		if anchorSlug(d.pages[i].title) == want {
			d.anchorBack = &anchorReturn{from: d.link, page: i}
			return d.gotoPage(i, 0)
		}
	}
	return e.info("link #" + sanitizeLine(frag) + ": no heading of that name on the pages loaded")
}

// anchorSlug is a heading's id as GitHub and pandoc make it: lower case,
// letters, digits, '-' and '_' kept, spaces become '-', the rest dropped.
func anchorSlug(s string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			sb.WriteRune(r)
		case unicode.IsSpace(r):
			sb.WriteByte('-')
		}
	}
	return sb.String()
}

// linkStatus is the status line's text while a link is chosen: where it
// goes, whole (sanitized, not redacted: this is what enter opens), and
// what enter does.
func (d *documentScreen) linkStatus(w int) string {
	l, ok := d.curLink()
	if !ok {
		return ""
	}
	st := d.e.st
	links := d.pageLinks()
	n := sort.Search(len(links), func(j int) bool {
		return links[j].el > d.link.el || links[j].el == d.link.el && links[j].i >= d.link.i
	})
	txt := " link " + strconv.Itoa(n+1) + "/" + strconv.Itoa(len(links))
	if d.link.wrapped != "" {
		txt += " (" + d.link.wrapped + ")"
	}
	txt += ": "
	if t := strings.TrimSpace(sanitizeLine(l.Text)); t != "" {
		txt += t + " → "
	}
	txt += sanitizeLine(strings.TrimSpace(l.URL))
	k := d.e.keys
	return clip(st.info.Render(txt)+st.dim.Render(" · "+k.FollowLink.Help().Key+" follows · "+k.NextLink.Help().Key+"/"+k.PrevLink.Help().Key+" move"), w)
}

// linkMark is one run of a link's text on one line of a block, in cells.
type linkMark struct {
	line, from, to int
	cur            bool
	href           string // an OSC 8 target, "" for none
}

// markLinks marks the link texts of element el in its rendered lines:
// each link's text is looked for after the one before it, in reading
// order, by its characters other than spaces, so a text the renderer
// wrapped over two lines is found and marked on both. A link whose text
// was not recorded or is not found is still reachable with tab (the
// status line shows it). With hyperlinks on, an http(s) link's runs are
// OSC 8 hyperlinks to its checked URL. The lines are the cache's: the
// result is a copy.
func (d *documentScreen) markLinks(lines []string, el *dpe.Element, elIdx int) []string {
	links := el.Links()
	if len(links) == 0 {
		return lines
	}
	type ch struct {
		r          rune
		line, a, b int
	}
	var seq []ch
	for li, l := range lines {
		col := 0
		for _, r := range ansi.Strip(l) {
			w := ansi.StringWidth(string(r))
			if !unicode.IsSpace(r) {
				seq = append(seq, ch{r, li, col, col + w})
			}
			col += w
		}
	}
	cur := -1
	if _, ok := d.curLink(); ok && d.link.el == elIdx {
		cur = d.link.i
	}
	var marks []linkMark
	at := 0
	for i, l := range links {
		var want []rune
		for _, r := range sanitizeLine(l.Text) {
			if !unicode.IsSpace(r) {
				want = append(want, r)
			}
		}
		if len(want) == 0 {
			continue
		}
		k := indexRunes(seq[at:], want, func(c ch) rune { return c.r })
		if k < 0 {
			continue
		}
		href := ""
		if d.e.opt.Hyperlinks {
			href, _ = sanitize.HyperlinkURL(strings.TrimSpace(l.URL))
		}
		start := at + k
		for j := start; j < start+len(want); {
			m := linkMark{line: seq[j].line, from: seq[j].a, to: seq[j].b, cur: i == cur, href: href}
			for j++; j < start+len(want) && seq[j].line == m.line; j++ {
				m.to = seq[j].b
			}
			marks = append(marks, m)
		}
		at = start + len(want)
	}
	if len(marks) == 0 {
		return lines
	}
	out := append([]string(nil), lines...)
	st := d.e.st
	byLine := map[int][]linkMark{}
	for _, m := range marks {
		byLine[m.line] = append(byLine[m.line], m)
	}
	for li, ms := range byLine {
		out[li] = applyMarks(out[li], ms, st.link, st.linkCur)
	}
	return out
}

// indexRunes is the first index of want in seq (by key), or -1.
func indexRunes[T any](seq []T, want []rune, key func(T) rune) int {
	for i := 0; i+len(want) <= len(seq); i++ {
		j := 0
		for j < len(want) && key(seq[i+j]) == want[j] {
			j++
		}
		if j == len(want) {
			return i
		}
	}
	return -1
}

// applyMarks restyles the runs of one line (in order, not overlapping),
// cutting the styled line by cells as render.Highlight does, so the
// width is unchanged.
func applyMarks(line string, ms []linkMark, normal, cur lipgloss.Style) string {
	var sb strings.Builder
	prev := 0
	for _, m := range ms {
		if m.from < prev {
			continue
		}
		sb.WriteString(ansi.Cut(line, prev, m.from))
		st := normal
		if m.cur {
			st = cur
		}
		text := st.Render(ansi.Strip(ansi.Cut(line, m.from, m.to)))
		if m.href != "" {
			text = ansi.SetHyperlink(m.href) + text + ansi.ResetHyperlink()
		}
		sb.WriteString(text)
		prev = m.to
	}
	sb.WriteString(ansi.Cut(line, prev, ansi.StringWidth(line)))
	return sb.String()
}

// openFileMsg asks the root to open a local file (a path or file:// URI)
// as `dpe-tui open FILE` does; over: above the screen shown, so esc comes
// back to it.
type openFileMsg struct {
	target string
	over   bool
}

// linkOpenedMsg answers the system opener.
type linkOpenedMsg struct {
	id  int
	url string
	err error
}

func (m linkOpenedMsg) opID() int { return m.id }

// newLinkConfirm asks before an http(s) link leaves dpe-tui: the URL
// whole (sanitized, wrapped, never cut nor redacted: it is what the
// browser gets), y opens it with the system's opener, esc or enter
// cancels.
func newLinkConfirm(e *env, raw string) *lineView {
	v := newLineView(e, "open link", func(w int) []string {
		st := e.st
		out := []string{" " + st.title.Render("Open this link in the system's browser?"), ""}
		for _, l := range wrapCells(sanitizeLine(raw), max(10, w-4)) {
			out = append(out, "  "+st.value.Render(l))
		}
		k := e.keys
		out = append(out, "", " "+st.dim.Render(k.OpenLink.Help().Key+" opens it · "+k.Back.Help().Key+" or "+k.Enter.Help().Key+" stays here"))
		if e.opt.OpenURL == nil {
			out = append(out, "", " "+st.warnText.Render("no system opener is set up: y says so and opens nothing"))
		}
		return out
	})
	v.extra = []keyBindingAction{{b: e.keys.OpenLink, run: func() tea.Cmd {
		open := e.opt.OpenURL
		if open == nil {
			return tea.Batch(e.ask(closeOverlayMsg{}), e.setStatus(statusErr, "open "+sanitizeLine(raw)+": no system opener (xdg-open or open) was found"))
		}
		_, cmd := e.start("opening the link in the system's browser", openTimeout, func(ctx context.Context, id int) tea.Msg {
			return linkOpenedMsg{id: id, url: raw, err: open(ctx, raw)}
		})
		return tea.Batch(e.ask(closeOverlayMsg{}), cmd)
	}}}
	return v
}

// onLinkOpened says how the system opener did.
func (d *documentScreen) onLinkOpened(msg linkOpenedMsg) tea.Cmd {
	if msg.err != nil {
		return d.e.setErr("open "+sanitizeLine(msg.url), msg.err)
	}
	return d.e.setStatus(statusOK, fmt.Sprintf("opened %s in the system's browser", sanitizeLine(msg.url)))
}
