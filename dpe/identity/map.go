package identity

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// Map builds the hash input of a decoded document by the table in the
// package doc. body is the document JSON d was decoded from (the top
// level and page headers are read from it, so that absent, null and ""
// stay distinct as the contract needs); d supplies the elements, which
// for a manifest page were fetched from its uri. Every page of d must be
// decoded (Page.Decoded) — a page that is not is a Problem.
func Map(body []byte, d *dpe.Document) *Input {
	in := &Input{}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		in.Problems = append(in.Problems, Problem{"$", CodeValidation, "document JSON: " + err.Error()})
		return in
	}
	var src []json.RawMessage
	if err := json.Unmarshal(top["pages"], &src); err != nil {
		in.Problems = append(in.Problems, Problem{"$.pages", CodeValidation, "pages is not an array"})
		return in
	}
	delete(top, "pages")

	if raw, ok := top["file_type"]; ok {
		var s *string
		if json.Unmarshal(raw, &s) != nil {
			in.Problems = append(in.Problems, Problem{"$.file_type", CodeValidation, "file_type is not a string"})
		} else {
			in.FileType = s
		}
	}
	if in.FileType != nil {
		if v1, keep, ok := mappedFileType(*in.FileType); ok {
			// The table's rows for formats the enum has no value of: the
			// v0.2 value is kept in doc_metadata, so it is still content.
			if _, dup := top[sourceFileTypeKey]; keep && dup {
				in.Problems = append(in.Problems, Problem{"$" + pathKey(sourceFileTypeKey), CodeValidation,
					"field " + strconv.Quote(sourceFileTypeKey) + " is also where the v0.2 file_type " + strconv.Quote(*in.FileType) + " goes"})
			} else {
				if keep {
					orig, _ := json.Marshal(*in.FileType)
					top[sourceFileTypeKey] = orig
				}
				in.FileType = &v1
			}
		}
	}
	in.DocMetadata = in.merge("$", top, "doc_metadata", docDropped())

	if raw, ok := top["title"]; ok {
		if json.Unmarshal(raw, &in.Title) != nil {
			in.Problems = append(in.Problems, Problem{"$.title", CodeValidation, "title is not a string"})
		}
	}

	// Pages are in reading order: by page_index (or the kernel "number"),
	// as Decode sorted them; the index itself is not hashed (a page's
	// position is its place, core §2.2).
	models := pairPages(src, d)
	order := make([]int, len(src))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ia, ib := pageOrder(models[a], a), pageOrder(models[b], b)
		return cmp.Compare(ia, ib)
	})
	for _, j := range order {
		raw := src[j]
		path := fmt.Sprintf("$.pages[%d]", j)
		var pm map[string]json.RawMessage
		if err := json.Unmarshal(raw, &pm); err != nil {
			in.Problems = append(in.Problems, Problem{path, CodeValidation, "page is not an object"})
			continue
		}
		p := InputPage{Path: path}
		for _, k := range []string{"number", "page_index"} {
			if nr, ok := pm[k]; ok {
				if _, err := integer(nr); err != nil {
					in.Problems = append(in.Problems, Problem{path + "." + k, CodeValidation, err.Error()})
				}
			}
		}
		if tr, ok := pm["title"]; ok {
			if json.Unmarshal(tr, &p.Title) != nil {
				in.Problems = append(in.Problems, Problem{path + ".title", CodeValidation, "title is not a string"})
			}
		}
		p.PageMetadata = in.merge(path, pm, "page_metadata", pageDropped())
		m := models[j]
		switch {
		case m == nil || !m.Decoded:
			in.Problems = append(in.Problems, Problem{path, CodeValidation, "page not loaded: its elements cannot be hashed"})
		default:
			for k, el := range m.Elements {
				p.Elements = append(p.Elements, in.element(fmt.Sprintf("%s.elements[%d]", path, k), el))
			}
		}
		in.Pages = append(in.Pages, p)
	}
	return in
}

// sourceFileTypeKey is the doc_metadata key that keeps a v0.2 file_type
// the enum has no value of.
const sourceFileTypeKey = "source_file_type"

// mappedFileType is the v1 file_type of a v0.2 value our converters emit
// that is not itself in the enum (ok false: the value stays as it is, and
// a value outside the enum is a Problem). keep: the v0.2 value goes to
// doc_metadata.source_file_type, because the v1 value loses it.
//   - jpeg is the enum's jpg, the same format spelled otherwise;
//   - source code (the file's extension) is plain text: txt;
//   - ods, odp and gif have no enum value: unk, the enum's own word for
//     a format it does not name.
//
// The list is closed, like the enum.
func mappedFileType(ft string) (v1 string, keep, ok bool) {
	switch ft {
	case "jpeg":
		return "jpg", false, true
	case "go", "py", "js", "mjs", "ts", "tsx", "rs", "java", "c", "h", "cc", "cpp", "hpp",
		"sh", "bash", "sql", "rb", "kt", "swift", "lua", "yaml", "yml", "toml", "css":
		return "txt", true, true
	case "ods", "odp", "gif":
		return "unk", true, true
	}
	return "", false, false
}

// Fields that carry no content of their own: identities (file_uri is the
// contract's; uri and doc_ref name the same document), positions the
// skeleton already expresses, and transport hints; and last_modified,
// which in a v0.2 document cannot be told apart from a file system's time
// of one copy (convert writes the mod time when a file carries no date of
// its own, and push does not hash mod times), so that a file and its
// convert output have one identity. Each is named in the package doc's
// table.
// (Functions, not package variables: nothing can change the table.)
func docDropped() []string {
	return []string{"file_type", "title", "file_uri", "uri", "doc_ref", "page_count", "last_modified"}
}

func pageDropped() []string {
	return []string{"number", "page_index", "title", "elements", "uri", "element_count", "doc_ref"}
}

func elementDropped() []string {
	return []string{"id", "element_id", "doc_ref", "page_index", "category", "text",
		"text_as_html", "blob", "mime_type"}
}

// merge builds a metadata object: the object under key (v1 shape) plus
// every field of obj not named in dropped (v0.2 fields that have no
// place of their own). A key in both is a Problem.
func (in *Input) merge(path string, obj map[string]json.RawMessage, key string, dropped []string) []byte {
	out := map[string]json.RawMessage{}
	if raw, ok := obj[key]; ok && string(bytes.TrimSpace(raw)) != "null" {
		if err := json.Unmarshal(raw, &out); err != nil {
			in.Problems = append(in.Problems, Problem{path + "." + key, CodeValidation, key + " is not an object"})
			return nil
		}
	}
	for k, v := range obj {
		if k == key || contains(dropped, k) {
			continue
		}
		if _, dup := out[k]; dup {
			in.Problems = append(in.Problems, Problem{path + pathKey(k), CodeValidation, "field " + strconv.Quote(k) + " is also in " + key})
			continue
		}
		out[k] = v
	}
	b, err := json.Marshal(out)
	if err != nil {
		in.Problems = append(in.Problems, Problem{path, CodeValidation, err.Error()})
		return nil
	}
	return b
}

// element maps one element (see the package doc's table).
func (in *Input) element(path string, el *dpe.Element) InputElement {
	e := InputElement{Path: path}
	fail := func(field, code, msg string) InputElement {
		in.Problems = append(in.Problems, Problem{path + field, code, msg})
		e.Unmappable = true
		return e
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(el.Raw, &m); err != nil {
		return fail("", CodeValidation, "element is not an object")
	}
	str := func(k string) (*string, bool) {
		raw, ok := m[k]
		if !ok {
			return nil, true
		}
		var s *string
		return s, json.Unmarshal(raw, &s) == nil
	}
	cat, ok := str("category")
	if !ok || cat == nil {
		return fail(".category", CodeCategoryUnknown, "category is missing or not a string")
	}
	e.Category = *cat
	if e.Category == dpe.CategoryText {
		// The v0.2 generic text element is the contract's UncategorizedText
		// (the proposal's appendix B spells it so).
		e.Category = "UncategorizedText"
	}
	kind, known := categoryOf(e.Category)
	if !known {
		return fail(".category", CodeCategoryUnknown, "category "+strconv.Quote(*cat)+" is not in the dpe1 category set")
	}
	if e.Text, ok = str("text"); !ok {
		return fail(".text", CodeValidation, "text is not a string")
	}
	meta := map[string]json.RawMessage{}
	for _, k := range []string{"metadata", "ele_metadata"} {
		raw, has := m[k]
		if !has || string(bytes.TrimSpace(raw)) == "null" {
			continue
		}
		var part map[string]json.RawMessage
		if json.Unmarshal(raw, &part) != nil {
			return fail("."+k, CodeValidation, k+" is not an object")
		}
		for pk, pv := range part {
			if _, dup := meta[pk]; dup {
				return fail("."+k+pathKey(pk), CodeValidation, "key "+strconv.Quote(pk)+" is in both metadata and ele_metadata")
			}
			meta[pk] = pv
		}
	}
	for k, v := range m {
		if k == "metadata" || k == "ele_metadata" || contains(elementDropped(), k) {
			continue
		}
		if _, dup := meta[k]; dup {
			return fail(pathKey(k), CodeValidation, "field "+strconv.Quote(k)+" is also in the element's metadata")
		}
		meta[k] = v
	}
	if e.TextAsHTML, ok = str("text_as_html"); !ok {
		return fail(".text_as_html", CodeValidation, "text_as_html is not a string")
	}
	if e.Blob, ok = str("blob"); !ok {
		return fail(".blob", CodeValidation, "blob is not a string")
	}
	if e.MimeType, ok = str("mime_type"); !ok {
		return fail(".mime_type", CodeValidation, "mime_type is not a string")
	}
	// v0.2 keeps these in ele_metadata; the contract gives them segments.
	take := func(k string) (*string, bool) {
		raw, has := meta[k]
		if !has {
			return nil, true
		}
		var s *string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		delete(meta, k)
		return s, true
	}
	switch kind {
	case kindHTML:
		if e.TextAsHTML == nil {
			if e.TextAsHTML, ok = take("text_as_html"); !ok {
				return fail(".ele_metadata.text_as_html", CodeValidation, "text_as_html is not a string")
			}
		}
	case kindImage:
		if e.Blob == nil {
			b64, ok := take("image_base64")
			if !ok {
				return fail(".ele_metadata.image_base64", CodeValidation, "image_base64 is not a string")
			}
			if b64 != nil && *b64 != "" {
				data, err := decodeBase64(*b64)
				if err != nil {
					return fail(".ele_metadata.image_base64", CodeValidation, "image_base64 is not valid base64")
				}
				sum := sha256.Sum256(data)
				ref := "sha256:" + hex.EncodeToString(sum[:])
				e.Blob = &ref
			}
		}
		if e.MimeType == nil {
			if e.MimeType, ok = take("image_mime_type"); !ok {
				return fail(".ele_metadata.image_mime_type", CodeValidation, "image_mime_type is not a string")
			}
		}
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return fail("", CodeValidation, err.Error())
	}
	e.Metadata = b
	return e
}

// decodeBase64 accepts standard base64, padded or not, with line breaks
// (what encoders wrap at 76 columns).
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
	return base64.StdEncoding.DecodeString(strings.TrimRight(s, "=") + strings.Repeat("=", (4-len(strings.TrimRight(s, "="))%4)%4))
}

// integer reads an integer literal; beyond ±(2^53−1) or not an integer
// is an error.
// pageOrder is where a source page goes in reading order: its decoded
// page's index, else (not decoded: a Problem anyway) its source position.
func pageOrder(m *dpe.Page, pos int) int {
	if m == nil {
		return pos
	}
	return m.Index
}

func integer(raw json.RawMessage) (int64, error) {
	lit := strings.TrimSpace(string(raw))
	if strings.ContainsAny(lit, ".eE") || lit == "" || lit[0] == '"' || lit == "null" {
		return 0, fmt.Errorf("page number %s is not an integer", truncate(lit, 40))
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil || n > MaxSafeInteger || n < -MaxSafeInteger {
		return 0, fmt.Errorf("page number %s is beyond ±(2^53−1)", truncate(lit, 40))
	}
	return n, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pairPages finds, for each source page, the decoded page of d built from
// it: Decode keeps each page's bytes in Raw and orders pages by index, so
// the page at the same position usually matches; otherwise the first
// unused page with the same bytes does.
func pairPages(src []json.RawMessage, d *dpe.Document) []*dpe.Page {
	out := make([]*dpe.Page, len(src))
	if d == nil {
		return out
	}
	used := make([]bool, len(d.Pages))
	compact := func(b []byte) []byte {
		var buf bytes.Buffer
		if json.Compact(&buf, b) != nil {
			return b
		}
		return buf.Bytes()
	}
	for j, raw := range src {
		if j < len(d.Pages) && !used[j] && bytes.Equal(raw, d.Pages[j].Raw) {
			out[j], used[j] = d.Pages[j], true
			continue
		}
		cr := compact(raw)
		for k, p := range d.Pages {
			if !used[k] && bytes.Equal(cr, compact(p.Raw)) {
				out[j], used[k] = p, true
				break
			}
		}
	}
	return out
}
