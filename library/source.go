package library

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/url"
	"path"
	"strings"
	"time"
)

// Source kinds, chosen by file name.
type kind int

const (
	kindNone kind = iota
	kindDPE
	kindMarkdown
	kindCSV
	kindTSV
	kindCode
	kindText
)

// classify picks a converter from the file name; kindNone means "not a
// document" (images next to Markdown, binaries...).
func classify(name string) (kind, string) {
	lower := strings.ToLower(path.Base(name))
	if strings.HasSuffix(lower, ".dpe.json") {
		return kindDPE, "dpe"
	}
	ext := path.Ext(lower)
	switch ext {
	case ".md", ".markdown":
		return kindMarkdown, "md"
	case ".csv":
		return kindCSV, "csv"
	case ".tsv", ".tab":
		return kindTSV, "tsv"
	case ".txt", ".text", ".log":
		return kindText, "txt"
	}
	if _, ok := languageFor(ext); ok {
		return kindCode, strings.TrimPrefix(ext, ".")
	}
	return kindNone, ""
}

// docInfo is what resources/list needs about a converted document; it comes
// from the same conversion as the Document JSON so the two cannot drift
// (dpe.md §Document JSON: values should match Resource._meta).
type docInfo struct {
	Title, Summary, FileType, LastModified string
	Keywords                               []string
	PageCount                              int
}

// converted is one conversion result.
type converted struct {
	JSON []byte
	Info docInfo
}

// sourceRef names a file to convert: where it lives and how it is served.
type sourceRef struct {
	files   *folder // for images next to Markdown; may be nil
	path    string  // slash path inside files (also the doc_ref)
	uri     string  // dpe:// URI
	fileURI string  // file:// URI of the source
	modTime time.Time
}

// Convert converts one source file to DPE Document JSON. name picks the
// converter by extension (.md .csv .tsv .txt, source code, .dpe.json); uri is
// the dpe:// URI the document is served under (its path is the doc_ref; empty
// means doc_ref = name). *.dpe.json input is validated and returned as is.
// Convert never panics on hostile input.
func Convert(name string, data []byte, uri string) (json.RawMessage, error) {
	ref := sourceRef{path: name, uri: uri}
	c, err := convertSafe(ref, data)
	if err != nil {
		return nil, err
	}
	return c.JSON, nil
}

// convertSafe is convertSource behind a recover: a converter bug must turn
// into a read error, never take the MCP server down.
func convertSafe(ref sourceRef, data []byte) (c *converted, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("convert %s: internal error: %v", ref.path, r)
		}
	}()
	return convertSource(ref, data)
}

func convertSource(ref sourceRef, data []byte) (*converted, error) {
	k, fileType := classify(ref.path)
	if k == kindNone {
		return nil, fmt.Errorf("convert %s: unsupported file type", ref.path)
	}
	if k == kindDPE {
		return checkDPE(ref.path, data)
	}
	docRef := docRefOf(ref)
	b := &docBuilder{docRef: docRef, pageTitle: path.Base(ref.path)}
	info := docInfo{FileType: fileType, Title: path.Base(ref.path)}
	switch k {
	case kindMarkdown:
		fm, title := convertMarkdown(b, data, ref.files, ref.path)
		if title != "" {
			info.Title = title
		}
		info.Summary, info.Keywords, info.LastModified = fm.Summary, fm.Keywords, fm.LastModified
	case kindCSV, kindTSV:
		comma := ','
		if k == kindTSV {
			comma = '\t'
		}
		if err := convertCSV(b, data, comma); err != nil {
			return nil, fmt.Errorf("convert %s: %w", ref.path, err)
		}
	case kindCode:
		lang, _ := languageFor(path.Ext(ref.path))
		convertCode(b, data, lang, path.Base(ref.path))
		info.Keywords = pathKeywords(ref.path, fileType)
		if lang != fileType {
			info.Keywords = append(info.Keywords, lang)
		}
	case kindText:
		convertText(b, data)
	}
	pages := b.finish()
	if len(info.Keywords) == 0 {
		info.Keywords = pathKeywords(ref.path, fileType)
	}
	info.LastModified = lastModified(info.LastModified, ref)
	info.PageCount = len(pages)
	doc := DocumentJSON{
		DocRef:       docRef,
		URI:          ref.uri,
		FileURI:      ref.fileURI,
		FileType:     info.FileType,
		Title:        info.Title,
		Summary:      info.Summary,
		PageCount:    info.PageCount,
		Keywords:     info.Keywords,
		LastModified: info.LastModified,
		Pages:        pages,
	}
	out, err := marshalDoc(doc)
	if err != nil {
		return nil, fmt.Errorf("convert %s: encode: %w", ref.path, err)
	}
	return &converted{JSON: out, Info: info}, nil
}

// checkDPE validates a hand-written Document JSON minimally (a JSON object
// with a non-empty pages array, dpe.md §Document JSON) and keeps its bytes.
// The listing metadata is read leniently: a wrongly typed field is ignored,
// not fatal.
func checkDPE(name string, data []byte) (*converted, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("convert %s: Document JSON must be an object", name)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &top); err != nil {
		return nil, fmt.Errorf("convert %s: invalid JSON: %w", name, err)
	}
	var pages []json.RawMessage
	if err := json.Unmarshal(top["pages"], &pages); err != nil || pages == nil {
		return nil, fmt.Errorf("convert %s: Document JSON needs a pages array", name)
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("convert %s: pages is empty (page_count must be ≥ 1)", name)
	}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(top[k], &s)
		return s
	}
	info := docInfo{
		Title:        str("title"),
		Summary:      str("summary"),
		FileType:     strings.ToLower(str("file_type")),
		LastModified: str("last_modified"),
		PageCount:    len(pages),
	}
	var kws []any
	_ = json.Unmarshal(top["keywords"], &kws)
	for _, k := range kws {
		if s, ok := k.(string); ok {
			info.Keywords = append(info.Keywords, s)
		}
	}
	if info.FileType == "" {
		info.FileType = "dpe"
	}
	if info.Title == "" {
		info.Title = strings.TrimSuffix(path.Base(name), ".dpe.json")
	}
	return &converted{JSON: trimmed, Info: info}, nil
}

// docRefOf is the decoded path of the dpe URI, or the file path.
func docRefOf(ref sourceRef) string {
	if ref.uri != "" {
		if u, err := url.Parse(ref.uri); err == nil && u.Scheme == "dpe" {
			segs := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
			for i, s := range segs {
				if d, err := url.PathUnescape(s); err == nil {
					segs[i] = d
				}
			}
			if r := strings.Join(segs, "/"); r != "" {
				return r
			}
		}
	}
	return ref.path
}

// pathKeywords are the directory names plus the file type: cheap, honest
// keywords for files without their own.
func pathKeywords(p, fileType string) []string {
	var kws []string
	for _, d := range strings.Split(path.Dir(p), "/") {
		if d != "." && d != "" {
			kws = append(kws, d)
		}
	}
	return append(kws, fileType)
}

// baseDate anchors derived timestamps; a fixed instant keeps listings and
// goldens deterministic.
func baseDate() time.Time { return time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC) }

// lastModified picks, in order: the document's own RFC 3339 date, the
// file's mod time, or a date derived from the path hash (embed.FS has no
// mod times). annotations.lastModified must be ISO 8601 (seed 000 §校验规则 4).
func lastModified(own string, ref sourceRef) string {
	if t, err := time.Parse(time.RFC3339, own); err == nil {
		return t.UTC().Format(time.RFC3339)
	}
	if !ref.modTime.IsZero() {
		return ref.modTime.UTC().Truncate(time.Second).Format(time.RFC3339)
	}
	return derivedDate(ref.path)
}

func derivedDate(p string) string {
	h := fnv.New32a()
	h.Write([]byte(p))
	v := h.Sum32()
	t := baseDate().AddDate(0, 0, int(v%300)).Add(time.Duration(v>>9%(24*60)) * time.Minute)
	return t.Format(time.RFC3339)
}

// escapeDocRef builds dpe://host/<seg>/<seg> with every path segment
// percent-escaped on its own (dpe.md §校验规则 4: a%2Fb is one segment).
func escapeDocRef(host, docRef string) string {
	segs := strings.Split(docRef, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "dpe://" + host + "/" + strings.Join(segs, "/")
}

// fileURIOf is file://<root>/<path>, escaped by net/url.
func fileURIOf(root, p string) string {
	u := url.URL{Scheme: "file", Path: path.Join("/", root, p)}
	return u.String()
}

// marshalDoc encodes Document JSON without HTML escaping: text_as_html and
// code stay readable ("<td>", not "\u003ctd\u003e"); both are valid JSON.
func marshalDoc(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
