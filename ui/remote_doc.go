package ui

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
)

// remoteDocScreen is a remote document's skeleton (http §4.3): the
// document's fields, its pages (title, page_metadata) and the selected
// page's elements by content hash, with their category and first line
// where this machine can read their content. enter opens the page in the
// document view (the one document viewer), through remoteSource.
type remoteDocScreen struct {
	e    *env
	conn *remoteConn
	row  remoteRow
	sk   *dpev1.Skeleton
	list scroller
	op   int
	err  string
	// content is what was read of each page's elements (nil: not yet).
	content map[int][]remoteElement
	// contentOp is the read of the selected page's content in flight.
	contentOp, contentPage int
}

// remoteElement is one element of a page as far as it is known here.
type remoteElement struct {
	hash string
	el   *wire.Element // nil: no content here
	from string        // "remote" or "cache"
	err  string
	// blob is an Image's bytes (read only for the document view), or
	// why they are not here.
	blob    []byte
	blobErr string
}

type remoteSkelMsg struct {
	id  int
	res *dpev1.SkeletonResult
	err error
}

func (m remoteSkelMsg) opID() int { return m.id }

type remoteContentMsg struct {
	id   int
	page int
	els  []remoteElement
}

func (m remoteContentMsg) opID() int { return m.id }

func newRemoteDocScreen(e *env, conn *remoteConn, row remoteRow) *remoteDocScreen {
	return &remoteDocScreen{e: e, conn: conn, row: row, content: map[int][]remoteElement{}, contentPage: -1}
}

// load reads the skeleton; etag is the doc_hash held, so an unchanged
// document answers 304 (http §4.3).
func (d *remoteDocScreen) load(etag string) tea.Cmd {
	c, uri := d.conn.c, d.row.uri
	id, cmd := d.e.start("get_skeleton "+sanitizeLine(displayName(uri)), d.e.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		res, err := c.GetSkeleton(ctx, uri, etag)
		return remoteSkelMsg{id: id, res: res, err: err}
	})
	d.op = id
	return cmd
}

// readContent reads page i's elements: the cache first (verified by its
// hash), then the read extension when the remote offers it.
func (d *remoteDocScreen) readContent(i int) tea.Cmd {
	if d.sk == nil || i < 0 || i >= len(d.sk.Pages) {
		return nil
	}
	if _, ok := d.content[i]; ok || d.contentPage == i {
		return nil
	}
	hashes := d.sk.Pages[i].Elements
	rc := d.conn
	id, cmd := d.e.start(fmt.Sprintf("reading page %d's content", i+1), d.e.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		return remoteContentMsg{id: id, page: i, els: readElements(ctx, rc, hashes, false)}
	})
	d.contentOp, d.contentPage = id, i
	return cmd
}

// readElements is the content of hashes as far as this machine can read
// it: never text it did not get from the remote or its own cache. With
// blobs, an Image's blob is read too, from the same two places.
func readElements(ctx context.Context, rc *remoteConn, hashes []string, blobs bool) []remoteElement {
	out := readObjects(ctx, rc, hashes)
	if !blobs {
		return out
	}
	for j := range out {
		if el := out[j].el; el != nil && el.Blob != nil && ctx.Err() == nil {
			out[j].blob, out[j].blobErr = readBlob(ctx, rc, *el.Blob)
		}
	}
	return out
}

// readBlob is the blob of ref: the cache first (verified by its sha256),
// then the read extension (which verifies it too).
func readBlob(ctx context.Context, rc *remoteConn, ref string) ([]byte, string) {
	if rc.cache != nil {
		if b, ok := rc.cache.GetBlob(ref); ok {
			return b, ""
		}
	}
	if !rc.readObjects() {
		return nil, "its image (" + ref + ") is not on this machine and the remote has no read extension"
	}
	b, err := rc.c.ReadObject(ctx, ref)
	if err != nil {
		return nil, oneLine(err)
	}
	return b, ""
}

func readObjects(ctx context.Context, rc *remoteConn, hashes []string) []remoteElement {
	out := make([]remoteElement, len(hashes))
	for j, h := range hashes {
		out[j].hash = h
		if rc.cache != nil {
			if obj, ok := rc.cache.Get(h); ok {
				if el, got, v := wire.ParseElement(obj); v == nil && got == h {
					out[j].el, out[j].from = el, "cache"
					continue
				}
			}
		}
		if !rc.readObjects() || ctx.Err() != nil {
			continue
		}
		obj, err := rc.c.ReadObject(ctx, h)
		if err != nil {
			out[j].err = oneLine(err)
			continue
		}
		switch el, got, v := wire.ParseElement(obj); {
		case v != nil:
			out[j].err = "the remote's object: " + oneLine(v)
		case got != h:
			// Only what hashes to the skeleton's hash is this element.
			out[j].err = "the remote's object hashes to " + shortHash(identity.Hash(got)) + ", not to this hash"
		default:
			out[j].el, out[j].from = el, "remote"
		}
	}
	return out
}

func (d *remoteDocScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case remoteSkelMsg:
		if msg.id != d.op {
			return d, nil
		}
		d.op = 0
		if msg.err != nil {
			d.err = oneLine(msg.err)
			return d, d.e.setErr("get_skeleton "+sanitizeLine(displayName(d.row.uri)), msg.err)
		}
		if msg.res.NotModified {
			return d, d.e.info("unchanged on the remote (304)")
		}
		d.sk, d.err = msg.res.Skeleton, ""
		d.row.remote = msg.res.DocHash
		d.content = map[int][]remoteElement{}
		d.contentPage = -1
		d.list.clamp(len(d.sk.Pages), d.pagesHeight())
		return d, d.readContent(d.list.cur)
	case remoteContentMsg:
		if msg.id == d.contentOp {
			d.contentOp, d.contentPage = 0, -1
		}
		d.content[msg.page] = msg.els
		return d, d.readContent(d.list.cur)
	case cancelledMsg:
		switch msg.id {
		case d.op:
			d.op, d.err = 0, "cancelled"
		case d.contentOp:
			d.contentOp, d.contentPage = 0, -1
		}
	case errMsg:
		if msg.id == d.op {
			d.op, d.err = 0, oneLine(msg.err)
		}
	case tea.KeyPressMsg:
		return d, d.key(msg)
	case tea.MouseWheelMsg:
		if d.sk != nil {
			d.list.wheel(msg.Button == tea.MouseWheelUp, len(d.sk.Pages), d.pagesHeight())
			return d, d.readContent(d.list.cur)
		}
	}
	return d, nil
}

func (d *remoteDocScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	k := d.e.keys
	if d.sk != nil && d.list.nav(k, msg, len(d.sk.Pages), d.pagesHeight()) {
		return d.readContent(d.list.cur)
	}
	switch {
	case matches(msg, k.Back, k.Left):
		return d.e.ask(popMsg{})
	case matches(msg, k.Refresh):
		if d.sk == nil {
			return d.load("")
		}
		return d.load(d.sk.DocHash)
	case matches(msg, k.Enter, k.Right):
		if d.sk == nil || len(d.sk.Pages) == 0 {
			return nil
		}
		return d.openPage(d.list.cur)
	}
	return nil
}

// openPage opens the document view on page i, its pages read through
// remoteSource as the view visits them.
func (d *remoteDocScreen) openPage(i int) tea.Cmd {
	src := &remoteSource{rc: d.conn, sk: d.sk, uri: d.row.uri, lim: d.e.opt.Limits}
	if _, err := src.skeletonDoc(); err != nil {
		return d.e.setErr("open "+sanitizeLine(displayName(d.row.uri)), err)
	}
	_, cmd := d.e.start("reading page content", d.e.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		return src.opened(ctx, d.e.opt, id, i)
	})
	return cmd
}

// opened is the document view's openedMsg for the skeleton on page i.
func (s *remoteSource) opened(ctx context.Context, opt Options, id, i int) tea.Msg {
	doc, err := s.skeletonDoc()
	if err != nil {
		return errMsg{id: id, what: "open " + sanitizeLine(displayName(s.uri)), err: err}
	}
	now := opt.Now
	t0 := now()
	buf := &traceBuf{}
	op := &dpe.Opened{Access: dpe.Access{URI: s.uri}, Kind: dpe.KindDocument, Doc: doc}
	opener := &dpe.Opener{Fetcher: opt.Fetcher, Limits: opt.Limits, Now: now}
	msg := openedMsg{id: id, opened: op, uri: s.uri, target: s.uri, opener: opener, src: s, at: &hitPlace{page: i + 1}}
	if i == 0 {
		msg.first, msg.firstErr = convertPage(ctx, s, buf, now, 0)
	}
	msg.duration = now().Sub(t0)
	msg.trace = buf.entries
	return msg
}

// reopen is r on a loaded page of a remote document: the skeleton read
// again from the remote (the document may have changed since) and the
// document view opened on it at the same page, in place of this one.
func (s *remoteSource) reopen(e *env, page int) tea.Cmd {
	c, uri, opt := s.rc.c, s.uri, e.opt
	what := "get_skeleton " + sanitizeLine(displayName(uri))
	_, cmd := e.start(what, opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		res, err := c.GetSkeleton(ctx, uri, "")
		if err != nil {
			return errMsg{id: id, what: what, err: err}
		}
		fresh := &remoteSource{rc: s.rc, sk: res.Skeleton, uri: uri, lim: s.lim}
		return fresh.opened(ctx, opt, id, min(page, max(0, len(res.Skeleton.Pages)-1)))
	})
	return cmd
}

// pageRows is the height of the page list; the selected page's elements
// are shown under it.
func (d *remoteDocScreen) pagesHeight() int { return max(3, (d.e.bodyHeight()-remoteDocHead)/2) }

const remoteDocHead = 5

func (d *remoteDocScreen) View(w, h int) []string {
	e, st := d.e, d.e.st
	lines := []string{st.title.Render(clip("  "+displayName(d.row.uri), w))}
	if d.sk == nil {
		if d.err != "" {
			return append(lines, "", st.errText.Render(clip("  "+d.err, w)), st.dim.Render("  r retries · esc back"))
		}
		return append(lines, "", "  "+e.spin.View()+" reading the skeleton…")
	}
	doc := d.sk.Document
	title := "(no title)"
	if doc.Title != nil {
		title = sanitizeLine(*doc.Title)
	}
	lines = append(lines,
		clip(fmt.Sprintf("  %s · %s · %s · %s", sanitizeLine(doc.FileType), title, counted(len(d.sk.Pages), "page", "pages"), sanitizeLine(d.sk.DocHash)), w),
		st.dim.Render(clip("  doc_metadata "+metaLine(doc.DocMetadata), w)),
		st.dim.Render(clip("  "+d.conn.contentLine(), w)),
		"  "+st.colHead.Render(clip("PAGE  TITLE · ELEMENTS · PAGE_METADATA", w-2)))
	ph := d.pagesHeight()
	d.list.clamp(len(d.sk.Pages), ph)
	for i := d.list.top; i < len(d.sk.Pages) && i < d.list.top+ph; i++ {
		p := d.sk.Pages[i]
		pt := "(no title)"
		if p.Title != nil {
			pt = sanitizeLine(*p.Title)
		}
		row := fmt.Sprintf("%4d  %s · %s · %s", i+1, pt, counted(len(p.Elements), "element", "elements"), metaLine(p.PageMetadata))
		lines = append(lines, listRow(st, row, i == d.list.cur, false, w))
	}
	for len(lines) < remoteDocHead+ph {
		lines = append(lines, "")
	}
	return append(lines, d.elementLines(w, h-len(lines))...)
}

// elementLines are the selected page's elements: hash, category and the
// first line of the content, or what is missing.
func (d *remoteDocScreen) elementLines(w, h int) []string {
	st := d.e.st
	i := d.list.cur
	if h <= 0 || i >= len(d.sk.Pages) {
		return nil
	}
	p := d.sk.Pages[i]
	lines := []string{st.colHead.Render(clip(fmt.Sprintf("  PAGE %d ELEMENTS · enter shows the page", i+1), w))}
	els, ok := d.content[i]
	// The category column is as wide as the widest category shown
	// (UncategorizedText spilt past a fixed 14), within bounds.
	cw := 1
	for j := range p.Elements {
		if ok && els[j].el != nil {
			cw = max(cw, min(maxCategoryCol, len(sanitizeLine(els[j].el.Category))))
		}
	}
	cat := func(s string) string { return fit(s, cw) }
	for j, hash := range p.Elements {
		if len(lines) >= h-1 && j < len(p.Elements)-1 {
			// The last line says how many more (a 9-element page showed 7).
			lines = append(lines, st.dim.Render(clip(fmt.Sprintf("  … %d more · enter shows the page", len(p.Elements)-j), w)))
			break
		}
		if len(lines) >= h {
			break
		}
		if !ok {
			lines = append(lines, st.dim.Render(clip(fmt.Sprintf("  %s  %s  …", cat(""), hashCell(hash)), w)))
			continue
		}
		re := els[j]
		if re.el == nil {
			why := "no content on this machine"
			if re.err != "" {
				why = re.err
			}
			lines = append(lines, st.dim.Render(clip(fmt.Sprintf("  %s  %s  %s", cat("?"), hashCell(hash), why), w)))
			continue
		}
		lines = append(lines, clip(fmt.Sprintf("  %s  %s  %s", cat(sanitizeLine(re.el.Category)), hashCell(hash), elementExcerpt(re.el)), w))
	}
	if len(p.Elements) == 0 {
		lines = append(lines, st.dim.Render("  (no elements)"))
	}
	return lines
}

// maxCategoryCol bounds the category column (a peer's category may be long).
const maxCategoryCol = 24

func elementExcerpt(el *wire.Element) string {
	switch {
	case el.Text != nil:
		return firstLine(sanitizeLine(*el.Text))
	case el.Blob != nil:
		mt := "blob"
		if el.MimeType != nil {
			mt = *el.MimeType
		}
		return sanitizeLine(mt + " " + *el.Blob)
	}
	return ""
}

// metaLine is metadata as one sanitized line of JSON.
func metaLine(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	return sanitizeLine(string(raw))
}

func (d *remoteDocScreen) Keys() screenKeys {
	k := d.e.keys
	short := []key2{withHelp(k.Enter, "show page"), k.Refresh, k.Back, k.Up, k.Down}
	actions := []key2{withHelp(k.Enter, "show page"), withHelp(k.Refresh, "refresh (If-None-Match)"), k.Back}
	return screenKeys{short: short, full: [][]key2{k.navKeys(), actions, remoteGlobalKeys(d.e)},
		notes: []string{"An element shows its category and text only where this machine has its content:",
			"the remote's read extension, or what this machine converted or pushed."}}
}

func (d *remoteDocScreen) Crumb() string { return displayName(d.row.name) }

// remoteSource is a remote document as a PageSource for the document
// view: the skeleton's pages, each page's elements read as readElements
// reads them. Elements with no content here are left out of the page
// (their hashes are on the skeleton screen), never filled in.
type remoteSource struct {
	rc  *remoteConn
	sk  *dpev1.Skeleton
	uri string
	lim dpe.Limits
}

// v02 page and element shapes the document view decodes (dpe.md).
type srcPage struct {
	PageIndex int          `json:"page_index"`
	Title     string       `json:"title,omitempty"`
	URI       string       `json:"uri,omitempty"`
	Meta      any          `json:"page_metadata,omitempty"`
	Elements  []srcElement `json:"elements,omitempty"`
}

type srcElement struct {
	ElementID string         `json:"element_id"`
	Category  string         `json:"category"`
	Text      string         `json:"text"`
	Meta      map[string]any `json:"ele_metadata,omitempty"`
}

func (s *remoteSource) skeletonDoc() (*dpe.Document, error) {
	doc := s.sk.Document
	head := map[string]any{"file_uri": s.uri, "file_type": doc.FileType, "page_count": len(s.sk.Pages)}
	if doc.Title != nil {
		head["title"] = *doc.Title
	}
	pages := make([]srcPage, len(s.sk.Pages))
	for i, p := range s.sk.Pages {
		pages[i] = srcPage{PageIndex: i, URI: fmt.Sprintf("dpe1:page/%d", i)}
		if p.Title != nil {
			pages[i].Title = *p.Title
		}
	}
	head["pages"] = pages
	data, err := json.Marshal(head)
	if err != nil {
		return nil, err
	}
	return dpe.Decode(data, s.lim)
}

// imageMeta puts an Image's DPE v1 blob and mime_type into the v0.2
// element metadata the document view reads (identity's mapping run
// backwards: blob's bytes are image_base64, mime_type image_mime_type),
// keeping the reference itself beside them.
func imageMeta(meta map[string]any, re remoteElement) {
	if re.el.Blob == nil {
		return
	}
	meta["blob"] = *re.el.Blob
	if re.el.MimeType != nil {
		meta["mime_type"] = *re.el.MimeType
		meta["image_mime_type"] = *re.el.MimeType
	}
	if re.blob != nil {
		meta["image_base64"] = base64.StdEncoding.EncodeToString(re.blob)
	} else if re.blobErr != "" {
		meta["blob_problem"] = re.blobErr
	}
}

// identity is the inspector's dpe1 identity of element el on page i: the
// hashes the skeleton holds, each recomputed on arrival (DecodeSkeleton
// rehashes the document and every page object and compares them with what
// the remote stated; readElements keeps only an element object that
// hashes to the page's hash), and what was verified, in words.
func (s *remoteSource) identity(i int, el *dpe.Element) (content, page, doc, verified string) {
	doc = s.sk.DocHash
	page = "—"
	if i >= 0 && i < len(s.sk.Document.Pages) {
		page = s.sk.Document.Pages[i]
	}
	content = el.MetaString("dpe1_content_hash")
	from := "this machine's cache"
	if el.MetaString("dpe1_content_from") == "remote" {
		from = "the remote's read extension"
	}
	verified = "doc_hash and page_hash recomputed from the skeleton the remote sent (get_skeleton) and equal to what it stated"
	if content != "" {
		verified += "; this element's object, read from " + from + ", hashes to content_hash"
	} else {
		content = "—"
	}
	return sanitizeLine(content), sanitizeLine(page), sanitizeLine(doc), verified
}

func (s *remoteSource) Skeleton() *dpe.Document {
	d, err := s.skeletonDoc()
	if err != nil {
		return nil
	}
	return d
}

func (s *remoteSource) Page(ctx context.Context, i int) (*dpe.Page, error) {
	if i < 0 || i >= len(s.sk.Pages) {
		return nil, fmt.Errorf("page %d: no such page", i+1)
	}
	p := s.sk.Pages[i]
	out := srcPage{PageIndex: i, Elements: []srcElement{}}
	if p.Title != nil {
		out.Title = *p.Title
	}
	if len(p.PageMetadata) > 0 {
		out.Meta = json.RawMessage(p.PageMetadata)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	missing := 0
	for _, re := range readElements(ctx, s.rc, p.Elements, true) {
		if re.el == nil {
			missing++
			continue
		}
		el := srcElement{ElementID: re.hash, Category: re.el.Category, Meta: map[string]any{"dpe1_content_hash": re.hash, "dpe1_content_from": re.from}}
		if re.el.Text != nil {
			el.Text = *re.el.Text
		}
		if re.el.TextAsHTML != nil {
			el.Meta["text_as_html"] = *re.el.TextAsHTML
		}
		if len(re.el.Metadata) > 0 {
			el.Meta["metadata"] = json.RawMessage(re.el.Metadata)
		}
		imageMeta(el.Meta, re)
		out.Elements = append(out.Elements, el)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if missing > 0 && len(out.Elements) == 0 {
		return nil, &noContentError{fmt.Sprintf("page %d: none of its %s has content on this machine", i+1, counted(missing, "element", "elements"))}
	}
	// elements always written: an empty page is a page, not a manifest entry.
	data, err := json.Marshal(struct {
		srcPage
		Elements []srcElement `json:"elements"`
	}{out, out.Elements})
	if err != nil {
		return nil, err
	}
	return dpe.DecodePage(data, s.lim)
}

// noContentError is a remote page none of whose elements has content on
// this machine: what is missing, not a failure (no retry can fetch it).
type noContentError struct{ msg string }

func (e *noContentError) Error() string { return e.msg }
