package dpe

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// metaRaw is field key of ele_metadata, or false when absent or null.
func (e *Element) metaRaw(key string) (json.RawMessage, bool) {
	if e == nil || e.Metadata == nil {
		return nil, false
	}
	v, ok := e.Metadata[key]
	if !ok || len(v) == 0 || string(v) == "null" {
		return nil, false
	}
	return v, true
}

// MetaString is ele_metadata field key as text: a JSON string decoded,
// any other value as its compact JSON, "" when absent or null. It is peer
// text: not sanitized.
func (e *Element) MetaString(key string) string {
	v, ok := e.metaRaw(key)
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) == nil {
		return buf.String()
	}
	return strings.TrimSpace(string(v))
}

// maxMetaInt bounds MetaInt: metadata integers are depths, counts and
// indexes, and a huge one must not turn into a huge allocation or loop.
const maxMetaInt = 1_000_000

// MetaInt is ele_metadata field key as an integer (a JSON number, or a
// string holding one), with ok false when absent, not a number, or beyond
// ±1,000,000.
func (e *Element) MetaInt(key string) (n int, ok bool) {
	v, ok := e.metaRaw(key)
	if !ok {
		return 0, false
	}
	var f float64
	if json.Unmarshal(v, &f) == nil {
		if f > maxMetaInt || f < -maxMetaInt {
			return 0, false
		}
		return int(f), true
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n <= maxMetaInt && n >= -maxMetaInt {
			return n, true
		}
	}
	return 0, false
}
