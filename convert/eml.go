package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jhillyerd/enmime/v2"

	"github.com/dpe-tui/dpe-tui/internal/plural"
)

// EML reader (github.com/jhillyerd/enmime/v2). A message is a page: the
// Subject is a Title (depth 0); From, To, Cc and Reply-To addresses are
// EmailAddress elements (ele_metadata field: "from"/"to"/…, name); the
// HTML body, when there is one, goes through the HTML reader onto the
// same page (no page splits), else the text body is NarrativeText
// paragraphs; each attachment is a ListItem "name (type, size)", and
// image attachments and inline images are also Image elements. Page
// metadata sent_from / sent_to / subject ride on the Title.
//
// An attached message (message/rfc822, or an attachment that sniffs as
// one) is read the same way onto pages of its own after its parent's, and
// an attachment in another supported format is converted onto further
// pages, within emlAttachmentBudget; its ListItem names the first of them
// (attachment_page_index) or why it was not converted
// (attachment_error). Those pages carry page metadata "attachment" (the
// name).

// emlAttachmentBudget bounds the attachment work of one message file:
// messages inside messages at most maxNesting deep, at most maxConverted
// attachments converted (PDF, DOCX, …: each costs a reader) in the whole
// file. Pages, elements, output and inflated bytes stay within the
// document's own limits, which attachments share with the message.
var emlAttachmentBudget = struct{ maxNesting, maxConverted int }{4, 16}

type emlConv struct {
	c         *Converter
	env       *Env
	bk        *Book
	converted int // attachments converted so far (messages not counted)
}

func (c *Converter) openEML(ctx context.Context, src *Source, env *Env) (Pages, error) {
	data, err := src.Bytes()
	if err != nil {
		return nil, err
	}
	msg, err := readEnvelope(data)
	if err != nil {
		return nil, err
	}
	m := &emlConv{c: c, env: env, bk: NewBook(env)}
	info, err := m.message(ctx, msg, 0)
	if err != nil {
		return nil, err
	}
	if err := m.bk.Err(); err != nil {
		return nil, err
	}
	return m.bk.Pages(info), nil
}

func readEnvelope(data []byte) (*enmime.Envelope, error) {
	if err := emlPrecheck(data); err != nil {
		return nil, err
	}
	msg, err := enmime.NewParser(enmime.MaxStoredPartErrors(10)).ReadEnvelope(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not a readable e-mail message: %w", err)
	}
	return msg, nil
}

// message adds msg's page (and after it its attachments' pages) and
// returns what it says about itself.
func (m *emlConv) message(ctx context.Context, msg *enmime.Envelope, nesting int) (Info, error) {
	bk := m.bk
	subject := strings.TrimSpace(msg.GetHeader("Subject"))
	pb := bk.StartPage(subject)
	var info Info
	info.Title = subject
	if t, err := msg.Date(); err == nil {
		info.LastModified = t.UTC().Format(time.RFC3339)
	}

	fields := []struct{ header, key string }{{"From", "from"}, {"To", "to"}, {"Cc", "cc"}, {"Reply-To", "reply_to"}}
	addrs := map[string][]*mail.Address{}
	unread := map[string]addressRest{}
	for _, f := range fields {
		addrs[f.key], unread[f.key] = addressList(rawHeader(msg, f.header))
	}
	// The Title element holds the subject whole; its metadata copy, like
	// the document and page titles, is a display line (displayLine).
	tm := Meta{"category_depth": 0, "subject": displayLine(subject, maxTitleBytes)}
	if from := addrStrings(addrs["from"]); len(from) > 0 {
		tm["sent_from"] = from
	}
	if to := addrStrings(append(append([]*mail.Address{}, addrs["to"]...), addrs["cc"]...)); len(to) > 0 {
		tm["sent_to"] = to
	}
	if subject != "" {
		pb.Add("Title", subject, tm)
	}
	for _, f := range fields {
		for _, a := range addrs[f.key] {
			mm := Meta{"field": f.key}
			if a.Name != "" {
				mm["name"] = a.Name
			}
			pb.Add("EmailAddress", a.Address, mm)
		}
		if r := unread[f.key]; len(r.raw) > 0 {
			// What the mail library cannot read is kept as written, in
			// one line that says so once.
			pb.Add("Text", f.header+": "+strings.Join(r.raw, ", "), Meta{"field": f.key, "unparsed": r.raw,
				"warning": fmt.Sprintf("%s: %s not read as an address (%v), kept as written", f.header, plural.Count(len(r.raw), "entry", "entries"), r.err)})
		}
	}
	if d := msg.GetHeader("Date"); d != "" {
		pb.Add("Text", "Date: "+d, Meta{"field": "date"})
	}

	// An HTML body keeps structure (lists, tables) that its text
	// alternative flattens, so it wins when both exist.
	shown := map[*enmime.Part]bool{} // parts the HTML body shows (cid:)
	if msg.HTML != "" {
		// A picture the body shows (<img src="cid:…">) is the part with
		// that Content-ID: the Image element where the body has it, with
		// the picture's data, and not an attachment again after the body.
		h := &htmlConv{env: m.env, bk: bk, resolve: func(ref string) ([]byte, string, bool) {
			p := contentPart(msg, ref)
			if p == nil {
				return nil, "", false
			}
			shown[p] = true
			return p.Content, p.ContentType, true
		}}
		if _, err := h.convert(ctx, []byte(msg.HTML), ""); err != nil {
			return info, fmt.Errorf("HTML body: %w", err)
		}
	} else {
		for _, para := range splitParagraphs(msg.Text) {
			pb.Add("NarrativeText", para, nil)
		}
	}

	parts := append(append([]*enmime.Part{}, msg.Inlines...), msg.Attachments...)
	// A message/rfc822 part without Content-Disposition is neither an
	// attachment nor inline to the MIME parser, but it is a message all
	// the same.
	for _, p := range msg.OtherParts {
		if strings.EqualFold(p.ContentType, "message/rfc822") {
			parts = append(parts, p)
		}
	}
	for _, p := range parts {
		if err := ctx.Err(); err != nil {
			return info, err
		}
		if shown[p] {
			continue
		}
		name := p.FileName
		ctype := strings.ToLower(p.ContentType)
		lm := Meta{"category_depth": 0, "attachment": true}
		var sub *enmime.Envelope
		kind := KindUnknown
		if !strings.HasPrefix(ctype, "image/") {
			kind, _ = SniffBytes(name, p.Content)
		}
		if ctype == "message/rfc822" || kind == KindEML {
			var err error
			if sub, err = readEnvelope(p.Content); err != nil {
				lm["attachment_error"] = err.Error()
			} else if name == "" {
				name = strings.TrimSpace(sub.GetHeader("Subject"))
			}
		}
		if name == "" {
			name = "(unnamed)"
		}
		first := bk.Len()
		var err error
		switch {
		case sub != nil && nesting+1 > emlAttachmentBudget.maxNesting:
			err = limitErr("nesting depth of attached messages", int64(emlAttachmentBudget.maxNesting), int64(nesting+1))
		case sub != nil && bk.Len() >= m.env.Limits.MaxPages:
			err = limitErr("page count", int64(m.env.Limits.MaxPages), int64(bk.Len()+1))
		case sub != nil:
			if _, err = m.message(ctx, sub, nesting+1); err == nil {
				bk.pages[first].SetPageMeta("attachment", name)
			}
		case kind != KindUnknown && m.c.formats[kind] != nil && lm["attachment_error"] == nil:
			err = m.attachment(ctx, name, kind, p.Content)
		}
		if err != nil {
			if ctx.Err() != nil {
				return info, ctx.Err()
			}
			lm["attachment_error"] = err.Error()
		} else if bk.Len() > first {
			lm["attachment_page_index"] = first
		}
		label := fmt.Sprintf("%s (%s, %d bytes", name, p.ContentType, len(p.Content))
		switch {
		case lm["attachment_error"] != nil:
			label += "; not converted: " + lm["attachment_error"].(string)
		case lm["attachment_page_index"] != nil:
			label += fmt.Sprintf(", page %d", first+1)
		}
		pb.Add("ListItem", label+")", lm)
		if strings.HasPrefix(ctype, "image/") {
			pb.AddImage(p.Content, p.ContentType, name, Meta{"image_path": name})
		}
	}
	return info, nil
}

// contentPart is the part of msg a cid: URL names (RFC 2392: its
// Content-ID, percent-decoded, without the angle brackets), nil for
// none or for a ref that is no cid: URL.
func contentPart(msg *enmime.Envelope, ref string) *enmime.Part {
	if len(ref) < 4 || !strings.EqualFold(ref[:4], "cid:") {
		return nil
	}
	id := ref[4:]
	if u, err := url.PathUnescape(id); err == nil {
		id = u
	}
	id = strings.Trim(strings.TrimSpace(id), "<>")
	if id == "" {
		return nil
	}
	for _, list := range [][]*enmime.Part{msg.Inlines, msg.OtherParts, msg.Attachments} {
		for _, p := range list {
			if strings.Trim(p.ContentID, "<>") == id {
				return p
			}
		}
	}
	return nil
}

// attachment converts data (a file named name, sniffed as kind) onto new
// pages of the book, as the reader of its format reads it, with the
// pages, output and inflated bytes the message has left.
func (m *emlConv) attachment(ctx context.Context, name string, kind Kind, data []byte) (err error) {
	if m.converted >= emlAttachmentBudget.maxConverted {
		return limitErr("attachments converted", int64(emlAttachmentBudget.maxConverted), int64(m.converted+1))
	}
	m.converted++
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error in the converter: %v", r)
		}
	}()
	lim := m.env.Limits
	lim.MaxPages = lim.MaxPages - m.bk.Len()
	lim.MaxOutputBytes = m.env.out.maxBytes - m.env.out.bytes
	lim.MaxCells = m.env.out.maxCells - m.env.out.cells
	lim.MaxDecompressed = lim.MaxDecompressed - m.env.inflated.Load()
	if lim.MaxPages <= 0 || lim.MaxOutputBytes <= 0 || lim.MaxCells <= 0 || lim.MaxDecompressed <= 0 {
		return limitErr("page count", int64(m.env.Limits.MaxPages), int64(m.bk.Len()+1))
	}
	sub := &Env{Limits: lim, out: newOutputBudget(lim)}
	defer func() { m.env.inflated.Add(sub.inflated.Load()) }()
	src := BytesSource(name, data)
	src.lim = lim.MaxFileSize
	pages, err := m.c.formats[kind](ctx, &src, sub)
	if err != nil {
		return err
	}
	defer pages.Close()
	info := pages.Info().bounded()
	titles := info.PageTitles
	if len(titles) == 0 {
		titles = []string{""}
	}
	if len(titles) > lim.MaxPages {
		return limitErr("page count", int64(m.env.Limits.MaxPages), int64(m.bk.Len()+len(titles)))
	}
	// Each page is read into a page builder of its own index, as the
	// document would read it; when all of them are read and fit what the
	// message has left, they move to the book's pages with the element
	// ids (and the references to them) renumbered.
	out := newOutputBudget(lim)
	read := make([]*PageBuilder, len(titles))
	var size int64
	for i := range titles {
		read[i] = newPageBuilder(i, "", lim, out)
		if err := pages.Page(ctx, i, read[i]); err != nil {
			return fmt.Errorf("page %d: %w", i+1, err)
		}
		if read[i].err != nil {
			return read[i].err
		}
		for _, el := range read[i].els {
			size += elementSize(el.Text, el.Metadata)
		}
	}
	if left := m.env.out.maxBytes - m.env.out.bytes; size > left {
		return limitErr("output size", m.env.Limits.MaxOutputBytes, m.env.out.bytes+size)
	}
	base := m.bk.Len()
	for i, r := range read {
		title := name
		if t := titles[i]; t != "" && t != name {
			title = name + " · " + t
		}
		pb := m.bk.StartPage(displayLine(title, maxTitleBytes))
		pb.SetPageMeta("attachment", name)
		for k, v := range r.meta {
			pb.SetPageMeta(k, v)
		}
		for _, el := range r.els {
			pb.Add(el.Category, el.Text, renumber(el.Metadata, base))
		}
	}
	return nil
}

// elementRef is an element id as PageBuilder writes it.
var elementRef = regexp.MustCompile(`^p([0-9]+)-e([0-9]+)$`)

// renumber returns meta with the element ids it refers to (parent_id,
// related_ids) moved from page i to page base+i.
func renumber(meta Meta, base int) Meta {
	move := func(id string) string {
		s := elementRef.FindStringSubmatch(id)
		if s == nil {
			return id
		}
		i, err := strconv.Atoi(s[1])
		if err != nil {
			return id
		}
		return fmt.Sprintf("p%d-e%s", base+i, s[2])
	}
	out := make(Meta, len(meta))
	for k, v := range meta {
		switch k {
		case "parent_id":
			if s, ok := v.(string); ok {
				v = move(s)
			}
		case "related_ids":
			if ids, ok := v.([]string); ok {
				moved := make([]string, len(ids))
				for j, id := range ids {
					moved[j] = move(id)
				}
				v = moved
			}
		}
		out[k] = v
	}
	return out
}

func addrStrings(list []*mail.Address) []string {
	var out []string
	for _, a := range list {
		out = append(out, a.Address)
	}
	return out
}

// splitParagraphs splits a text body at blank lines.
func splitParagraphs(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// The MIME parser reads a whole message tree before anything can be
// charged, and takes minutes on 250,000 parts or 10,000 nested
// multiparts, so both are counted first in one linear pass. Real mail has
// a handful of each.
const (
	emlMaxMultiparts = 256    // multipart containers (boundary parameters)
	emlMaxParts      = 10_000 // boundary delimiter lines
)

var emlBoundary = regexp.MustCompile(`(?i)boundary\s*=\s*"?([^";\r\n]+)`)

func emlPrecheck(data []byte) error {
	found := emlBoundary.FindAllSubmatch(data, emlMaxMultiparts+1)
	if len(found) > emlMaxMultiparts {
		n := len(emlBoundary.FindAllIndex(data, -1))
		return limitErr("MIME multipart count", emlMaxMultiparts, int64(n))
	}
	bounds := make(map[string]bool, len(found))
	for _, m := range found {
		bounds[strings.TrimSpace(string(m[1]))] = true
	}
	parts := 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		b, ok := bytes.CutPrefix(line, []byte("--"))
		if !ok {
			continue
		}
		b = bytes.TrimSuffix(bytes.TrimRight(b, " \t\r"), []byte("--"))
		if bounds[string(b)] {
			parts++
		}
	}
	if parts > emlMaxParts {
		return limitErr("MIME part count", emlMaxParts, int64(parts))
	}
	return nil
}

// rawHeader is a header field as the message writes it (RFC 2047
// encoded words still encoded: the address parser decodes them within
// each name, as Envelope.AddressList does).
func rawHeader(msg *enmime.Envelope, key string) string {
	if msg.Root == nil {
		return ""
	}
	return msg.Root.Header.Get(key)
}

// addressRest is what addressList could not read: the entries as written
// and the first error.
type addressRest struct {
	raw []string
	err error
}

// addressList reads an address header. A list the mail library refuses
// whole (one bad entry fails net/mail's whole list) is read entry by
// entry: the entries that parse are kept, the others come back as
// written.
func addressList(header string) ([]*mail.Address, addressRest) {
	if strings.TrimSpace(header) == "" {
		return nil, addressRest{}
	}
	list, err := enmime.ParseAddressList(header)
	if err == nil || errors.Is(err, mail.ErrHeaderNotPresent) {
		return list, addressRest{}
	}
	list = nil
	var rest addressRest
	for _, entry := range splitAddressList(header) {
		one, err := enmime.ParseAddressList(entry)
		if err != nil || len(one) != 1 {
			if err == nil {
				err = errors.New("not one address")
			}
			if d, derr := (&mime.WordDecoder{}).DecodeHeader(entry); derr == nil {
				entry = d // shown as read: =?utf-8?…?= decoded
			}
			rest.raw = append(rest.raw, entry)
			if rest.err == nil {
				rest.err = err
			}
			continue
		}
		list = append(list, one[0])
	}
	return list, rest
}

// splitAddressList splits an address header at the commas between its
// entries (RFC 5322 §3.4): not inside a quoted string, a comment or an
// angle-bracketed address. Empty entries are dropped.
func splitAddressList(s string) []string {
	var out []string
	quoted, escaped := false, false
	comment, angle := 0, 0
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case c == '\\' && (quoted || comment > 0):
			escaped = true
		case c == '"' && comment == 0:
			quoted = !quoted
		case quoted:
		case c == '(':
			comment++
		case c == ')' && comment > 0:
			comment--
		case comment > 0:
		case c == '<':
			angle++
		case c == '>' && angle > 0:
			angle--
		case c == ',' && angle == 0:
			if e := strings.TrimSpace(s[start:i]); e != "" {
				out = append(out, e)
			}
			start = i + 1
		}
	}
	if e := strings.TrimSpace(s[start:]); e != "" {
		out = append(out, e)
	}
	return out
}
