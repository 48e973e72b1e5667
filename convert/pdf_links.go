package convert

import (
	"strings"

	"github.com/klippa-app/go-pdfium/requests"
)

// pdfMaxLinks bounds the link annotations read on one page, and
// pdfMaxURL a link's address.
const (
	pdfMaxLinks = 1024
	pdfMaxURL   = 2048
)

// pdfLink is a URI link annotation: its address and the area it covers,
// in PDF user space.
type pdfLink struct {
	url                      string
	left, bottom, right, top float64
}

// pageLinks reads page i's URI links (links inside the document are left
// out: they are navigation, not addresses).
func (p *pdfReader) pageLinks(i int) []pdfLink {
	var out []pdfLink
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: p.doc.Document, Index: i}}
	pos := 0
	for n := 0; n < pdfMaxLinks; n++ {
		l, err := p.inst.FPDFLink_Enumerate(&requests.FPDFLink_Enumerate{Page: page, StartPos: pos})
		if err != nil || l.Link == nil || l.NextStartPos == nil || *l.NextStartPos <= pos {
			break
		}
		pos = *l.NextStartPos
		a, err := p.inst.FPDFLink_GetAction(&requests.FPDFLink_GetAction{Link: *l.Link})
		if err != nil || a.Action == nil {
			continue
		}
		u, err := p.inst.FPDFAction_GetURIPath(&requests.FPDFAction_GetURIPath{Document: p.doc.Document, Action: *a.Action})
		if err != nil || u.URIPath == nil {
			continue
		}
		url := strings.TrimSpace(*u.URIPath)
		if url == "" || len(url) > pdfMaxURL {
			continue
		}
		r, err := p.inst.FPDFLink_GetAnnotRect(&requests.FPDFLink_GetAnnotRect{Link: *l.Link})
		if err != nil || r.Rect == nil {
			continue
		}
		out = append(out, pdfLink{url: url,
			left: float64(min(r.Rect.Left, r.Rect.Right)), right: float64(max(r.Rect.Left, r.Rect.Right)),
			bottom: float64(min(r.Rect.Top, r.Rect.Bottom)), top: float64(max(r.Rect.Top, r.Rect.Bottom))})
	}
	return out
}

// linkMeta adds link_urls and link_texts for the links whose area holds
// words of lines: the URL once per link, its text the words it covers.
func linkMeta(links []pdfLink, lines []*pdfLine, meta Meta) {
	var urls, texts []string
	for _, ln := range links {
		var words []string
		for _, l := range lines {
			for _, r := range l.runs {
				cx, cy := (r.left+r.right)/2, (r.bottom+r.top)/2
				if cx >= ln.left-1 && cx <= ln.right+1 && cy >= ln.bottom-1 && cy <= ln.top+1 {
					words = append(words, r.text)
				}
			}
		}
		if len(words) > 0 {
			urls = append(urls, ln.url)
			texts = append(texts, strings.Join(words, " "))
		}
	}
	if len(urls) > 0 {
		meta["link_urls"] = urls
		meta["link_texts"] = texts
	}
}
