package wire

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/gowebpki/jcs"
)

// Violation is a refused object or request: its code, the RFC 6901
// pointer of the first violation (core §2.8) and a short reason. The
// pointer is for diagnostics; the HTTP problem body does not carry it.
type Violation struct {
	Code    Code
	Pointer string
	Msg     string
}

func (v *Violation) Error() string {
	if v.Pointer == "" {
		return string(v.Code) + ": " + v.Msg
	}
	return fmt.Sprintf("%s at %s: %s", v.Code, v.Pointer, v.Msg)
}

func violation(c Code, ptr, format string, a ...any) *Violation {
	return &Violation{Code: c, Pointer: ptr, Msg: fmt.Sprintf(format, a...)}
}

// CheckIJSON is core §2.8 step 0 on a whole body: valid Unicode without
// lone surrogates and no duplicate key in an object. (gowebpki/jcs refuses
// both; it also refuses a number beyond a double, which step 4 would
// refuse with the same code.)
func CheckIJSON(body []byte) *Violation {
	if _, err := jcs.Transform(body); err != nil {
		return violation(CodeValidation, "", "not I-JSON: %v", err)
	}
	return nil
}

// members decodes an object into its members (step 1's "is an object").
func members(raw []byte) (map[string]json.RawMessage, *Violation) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, violation(CodeValidation, "", "not a JSON object")
	}
	return m, nil
}

func isNull(r json.RawMessage) bool { return r == nil || string(r) == "null" }

// present is a member that is there and not null (null is absent,
// contract 1 §3.2).
func present(m map[string]json.RawMessage, k string) bool {
	r, ok := m[k]
	return ok && !isNull(r)
}

// closed refuses the first member outside allowed (the smallest key in
// UTF-16 code-unit order, core §2.8 step 3). A disallowed member is
// refused even when null.
func closed(m map[string]json.RawMessage, allowed []string) *Violation {
	var bad []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.SortFunc(bad, func(a, b string) int { return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b))) })
	return violation(CodeValidation, "/"+escapePointer(bad[0]), "undefined field")
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func optString(m map[string]json.RawMessage, k string) (*string, *Violation) {
	if !present(m, k) {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(m[k], &s); err != nil {
		return nil, violation(CodeValidation, "/"+k, "not a string")
	}
	return &s, nil
}

func optMeta(m map[string]json.RawMessage, k string) (json.RawMessage, *Violation) {
	if !present(m, k) {
		return nil, nil
	}
	r := m[k]
	if r[0] != '{' {
		return nil, violation(CodeValidation, "/"+k, "not a JSON object")
	}
	if err := checkMeta(r); err != nil {
		return nil, violation(CodeValidation, "/"+k, "%v", err)
	}
	return r, nil
}

// CheckHash checks one child hash (core §2.8 step 4's four sub-steps).
func CheckHash(v json.RawMessage, ptr string) (string, *Violation) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", violation(CodeValidation, ptr, "not a string")
	}
	prefix, hexpart, ok := strings.Cut(s, ":")
	if !ok || prefix != Contract {
		return "", violation(CodeContractUnsupported, ptr, "not a %s hash", Contract)
	}
	if !lowerHex64(hexpart) {
		return "", violation(CodeValidation, ptr, "not 64 lowercase hex digits")
	}
	return s, nil
}

// ValidHash reports whether s is a well-formed dpe1 hash value.
func ValidHash(s string) bool {
	h, ok := strings.CutPrefix(s, HashPrefix)
	return ok && lowerHex64(h)
}

// ValidBlobRef reports whether s is "sha256:<64 lowercase hex>".
func ValidBlobRef(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	return ok && lowerHex64(h)
}

func lowerHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func hashList(m map[string]json.RawMessage, k string) ([]string, *Violation) {
	var items []json.RawMessage
	if err := json.Unmarshal(m[k], &items); err != nil {
		return nil, violation(CodeValidation, "/"+k, "not an array")
	}
	out := make([]string, len(items))
	for i, it := range items {
		h, v := CheckHash(it, fmt.Sprintf("/%s/%d", k, i))
		if v != nil {
			return nil, v
		}
		out[i] = h
	}
	return out, nil
}

// norm builds the hash preimage's members: present members only, each
// metadata field defaulting to {} (contract 1 §3.2).
func norm(m map[string]json.RawMessage, metaKey string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m)+1)
	for k, v := range m {
		if !isNull(v) {
			out[k] = v
		}
	}
	if _, ok := out[metaKey]; !ok {
		out[metaKey] = json.RawMessage("{}")
	}
	return out
}

func objectHash(m map[string]json.RawMessage, metaKey string) (string, *Violation) {
	h, err := hashObject(norm(m, metaKey))
	if err != nil {
		return "", violation(CodeValidation, "", "%v", err)
	}
	return h, nil
}

// ParseElement validates an element object (core §2.3, §2.8, the body is
// already I-JSON) and returns it with its content_hash.
func ParseElement(raw []byte) (*Element, string, *Violation) {
	m, v := members(raw)
	if v != nil {
		return nil, "", v
	}
	if !present(m, "category") {
		return nil, "", violation(CodeValidation, "", "no category")
	}
	var e Element
	if err := json.Unmarshal(m["category"], &e.Category); err != nil {
		return nil, "", violation(CodeValidation, "/category", "not a string")
	}
	fields, ok := contentFields(e.Category)
	if !ok {
		return nil, "", violation(CodeCategoryUnknown, "/category", "category %q is not in contract 1", trim(e.Category, 64))
	}
	if v := closed(m, append([]string{"category", "metadata"}, fields...)); v != nil {
		return nil, "", v
	}
	var err *Violation
	if e.Text, err = optString(m, "text"); err != nil {
		return nil, "", err
	}
	if e.TextAsHTML, err = optString(m, "text_as_html"); err != nil {
		return nil, "", err
	}
	if e.Blob, err = optString(m, "blob"); err != nil {
		return nil, "", err
	}
	if e.Blob != nil && !ValidBlobRef(*e.Blob) {
		return nil, "", violation(CodeValidation, "/blob", "not a sha256:<64 hex> reference")
	}
	if e.MimeType, err = optString(m, "mime_type"); err != nil {
		return nil, "", err
	}
	if e.Metadata, err = optMeta(m, "metadata"); err != nil {
		return nil, "", err
	}
	h, err := objectHash(m, "metadata")
	if err != nil {
		return nil, "", err
	}
	return &e, h, nil
}

// ParsePage validates a page object (core §2.2) and returns its page_hash.
func ParsePage(raw []byte) (*Page, string, *Violation) {
	m, v := members(raw)
	if v != nil {
		return nil, "", v
	}
	if !present(m, "elements") {
		return nil, "", violation(CodeValidation, "", "no elements")
	}
	if v := closed(m, []string{"title", "page_metadata", "elements"}); v != nil {
		return nil, "", v
	}
	var p Page
	var err *Violation
	if p.Title, err = optString(m, "title"); err != nil {
		return nil, "", err
	}
	if p.PageMetadata, err = optMeta(m, "page_metadata"); err != nil {
		return nil, "", err
	}
	if p.Elements, err = hashList(m, "elements"); err != nil {
		return nil, "", err
	}
	h, err := objectHash(m, "page_metadata")
	if err != nil {
		return nil, "", err
	}
	return &p, h, nil
}

// ParseDocument validates a document object (core §2.1) and returns its
// doc_hash.
func ParseDocument(raw []byte) (*Document, string, *Violation) {
	m, v := members(raw)
	if v != nil {
		return nil, "", v
	}
	if !present(m, "file_type") || !present(m, "pages") {
		return nil, "", violation(CodeValidation, "", "file_type and pages are required")
	}
	if v := closed(m, []string{"file_type", "title", "doc_metadata", "pages"}); v != nil {
		return nil, "", v
	}
	var d Document
	if err := json.Unmarshal(m["file_type"], &d.FileType); err != nil {
		return nil, "", violation(CodeValidation, "/file_type", "not a string")
	}
	if !fileTypeKnown(d.FileType) {
		return nil, "", violation(CodeValidation, "/file_type", "file_type %q is not in the enum", trim(d.FileType, 64))
	}
	var err *Violation
	if d.Title, err = optString(m, "title"); err != nil {
		return nil, "", err
	}
	if d.DocMetadata, err = optMeta(m, "doc_metadata"); err != nil {
		return nil, "", err
	}
	if d.Pages, err = hashList(m, "pages"); err != nil {
		return nil, "", err
	}
	h, err := objectHash(m, "doc_metadata")
	if err != nil {
		return nil, "", err
	}
	return &d, h, nil
}
