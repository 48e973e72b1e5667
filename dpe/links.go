package dpe

import "encoding/json"

// Link is one hyperlink an element's text holds: ele_metadata link_urls
// and link_texts (unstructured's names) at the same index. Text is ""
// when the producer recorded only the URL (link_texts absent or
// shorter). Both are peer text: not sanitized.
type Link struct {
	URL, Text string
}

// maxLinks bounds the links read from one element: a hostile element
// with a million URLs must not become a million focus stops.
const maxLinks = 1000

// Links are the element's hyperlinks in reading order, the ones with an
// empty URL left out. It is the one reading of link_urls/link_texts: the
// exports write them and the browser moves between them.
func (e *Element) Links() []Link {
	urls := e.metaList("link_urls")
	if len(urls) == 0 {
		return nil
	}
	texts := e.metaList("link_texts")
	var out []Link
	for i, u := range urls {
		if u == "" {
			continue
		}
		l := Link{URL: u}
		if i < len(texts) {
			l.Text = texts[i]
		}
		out = append(out, l)
		if len(out) == maxLinks {
			break
		}
	}
	return out
}

// metaList is an ele_metadata field that is a list of strings, or a
// single string as a list of one.
func (e *Element) metaList(key string) []string {
	v, ok := e.metaRaw(key)
	if !ok {
		return nil
	}
	var ss []string
	if json.Unmarshal(v, &ss) == nil {
		return ss
	}
	var s string
	if json.Unmarshal(v, &s) == nil && s != "" {
		return []string{s}
	}
	return nil
}
