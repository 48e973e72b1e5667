package identity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/dpe-tui/dpe-tui/internal/jsonfast"
	"github.com/gowebpki/jcs"
)

// MaxSafeInteger is 2^53−1: the largest integer every JSON implementation
// holds exactly (an IEEE-754 double). Integer literals beyond it are
// rejected (contract §3.3, core §2.6) instead of being rounded differently
// by different languages.
const MaxSafeInteger = 1<<53 - 1

// maxDepth bounds the nesting of a metadata value (recursion here).
const maxDepth = 64

// IntegerError is an integer literal beyond ±(2^53−1).
type IntegerError struct {
	Path    string // JSON path of the literal
	Literal string
}

func (e *IntegerError) Error() string {
	lit := e.Literal
	if len(lit) > 40 {
		lit = lit[:40] + "…"
	}
	return fmt.Sprintf("%s: integer %s is beyond ±(2^53−1)", e.Path, lit)
}

// Meta is meta(m) of contract §2.1: keys whose value is null are removed
// recursively from objects (array items are kept), then JCS. An absent or
// null metadata is the empty object; anything but an object is an error.
func Meta(raw []byte, path string) ([]byte, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" || string(t) == "{}" {
		return []byte("{}"), nil
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("%s is not a JSON object", path)
	}
	v, err := parse(t, path, true)
	if err != nil {
		return nil, err
	}
	return canonicalTree(v)
}

// parse decodes raw strictly: jcs.Transform first refuses what I-JSON
// refuses (duplicate keys, invalid UTF-8, lone surrogates, excessive
// nesting), then the value is decoded with numbers kept as their literal
// spelling so that integer range is judged on what was sent, not on a
// rounded double.
func parse(raw []byte, path string, dropNulls bool) (any, error) {
	if _, err := jcs.Transform(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return walk(v, path, dropNulls, 0)
}

func walk(v any, path string, dropNulls bool, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: nested deeper than %d", path, maxDepth)
	}
	switch x := v.(type) {
	case json.Number:
		if err := checkInteger(string(x), path); err != nil {
			return nil, err
		}
	case []any:
		for i := range x {
			w, err := walk(x[i], fmt.Sprintf("%s[%d]", path, i), dropNulls, depth+1)
			if err != nil {
				return nil, err
			}
			x[i] = w
		}
	case map[string]any:
		for k, e := range x {
			if e == nil && dropNulls {
				delete(x, k)
				continue
			}
			w, err := walk(e, path+pathKey(k), dropNulls, depth+1)
			if err != nil {
				return nil, err
			}
			x[k] = w
		}
	}
	return v, nil
}

// checkInteger rejects an integer literal (no fraction, no exponent)
// whose magnitude exceeds 2^53−1. Other numbers are doubles (JCS).
func checkInteger(lit, path string) error {
	if strings.ContainsAny(lit, ".eE") {
		return nil
	}
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
		if n > MaxSafeInteger || n < -MaxSafeInteger {
			return &IntegerError{Path: path, Literal: lit}
		}
		return nil
	}
	if _, ok := new(big.Int).SetString(lit, 10); ok {
		return &IntegerError{Path: path, Literal: lit}
	}
	return nil
}

func canonicalTree(v any) ([]byte, error) {
	b, err := jsonfast.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(b)
}

// pathKey renders one object key as a JSON path step: .name for plain
// identifiers, ["…"] (JSON-quoted) otherwise.
func pathKey(k string) string {
	plain := k != ""
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return "." + k
	}
	q, _ := json.Marshal(k)
	return "[" + string(q) + "]"
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
