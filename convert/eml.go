package convert

import (
	"bytes"
	"context"
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"time"

	"github.com/jhillyerd/enmime/v2"
)

// EML reader (github.com/jhillyerd/enmime/v2): one page per message. The
// Subject is a Title (depth 0); From, To, Cc and Reply-To addresses are
// EmailAddress elements (ele_metadata field: "from"/"to"/…, name); the
// HTML body, when there is one, goes through the HTML reader onto the
// same page (no page splits), else the text body is NarrativeText
// paragraphs;
// each attachment is a ListItem "name (type, size)", and image
// attachments and inline images are also Image elements. Page metadata
// sent_from / sent_to / subject ride on the Title.

func openEML(ctx context.Context, src *Source, env *Env) (Pages, error) {
	data, err := src.Bytes()
	if err != nil {
		return nil, err
	}
	if err := emlPrecheck(data); err != nil {
		return nil, err
	}
	msg, err := enmime.NewParser(enmime.MaxStoredPartErrors(10)).ReadEnvelope(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not a readable e-mail message: %w", err)
	}
	subject := strings.TrimSpace(msg.GetHeader("Subject"))
	bk := NewBook(env)
	bk.StartPage(subject)
	var info Info
	info.Title = subject
	if t, err := msg.Date(); err == nil {
		info.LastModified = t.UTC().Format(time.RFC3339)
	}

	fields := []struct{ header, key string }{{"From", "from"}, {"To", "to"}, {"Cc", "cc"}, {"Reply-To", "reply_to"}}
	addrs := map[string][]*mail.Address{}
	for _, f := range fields {
		list, _ := msg.AddressList(f.header)
		addrs[f.key] = list
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
		bk.Add("Title", subject, tm)
	}
	for _, f := range fields {
		for _, a := range addrs[f.key] {
			m := Meta{"field": f.key}
			if a.Name != "" {
				m["name"] = a.Name
			}
			bk.Add("EmailAddress", a.Address, m)
		}
	}
	if d := msg.GetHeader("Date"); d != "" {
		bk.Add("Text", "Date: "+d, Meta{"field": "date"})
	}

	// An HTML body keeps structure (lists, tables) that its text
	// alternative flattens, so it wins when both exist.
	if msg.HTML != "" {
		h := &htmlConv{env: env, bk: bk}
		if _, err := h.convert(ctx, []byte(msg.HTML), ""); err != nil {
			return nil, fmt.Errorf("HTML body: %w", err)
		}
	} else {
		for _, para := range splitParagraphs(msg.Text) {
			bk.Add("NarrativeText", para, nil)
		}
	}

	parts := append(append([]*enmime.Part{}, msg.Inlines...), msg.Attachments...)
	for _, p := range parts {
		name := p.FileName
		if name == "" {
			name = "(unnamed)"
		}
		bk.Add("ListItem", fmt.Sprintf("%s (%s, %d bytes)", name, p.ContentType, len(p.Content)), Meta{"category_depth": 0, "attachment": true})
		if strings.HasPrefix(strings.ToLower(p.ContentType), "image/") {
			bk.Current().AddImage(p.Content, p.ContentType, name, Meta{"image_path": name})
		}
	}
	if err := bk.Err(); err != nil {
		return nil, err
	}
	return bk.Pages(info), nil
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
