// Package jsonfast decodes JSON, and writes JSON strings, with
// encoding/json's results at several times its speed, for the hot paths of
// a listing (every ack of every page is validated and decoded at each hop,
// and ls --json writes every resource).
//
// github.com/segmentio/encoding/json does the work; where it reports any
// error, encoding/json decodes the same input again, so errors (their types
// and texts) and the partial results encoding/json leaves on a type error
// are exactly encoding/json's. On input both accept, the results are the
// same: FuzzUnmarshal_SameAsEncodingJSON compares them.
package jsonfast

import (
	"bytes"
	"encoding/json"
	"reflect"

	segjson "github.com/segmentio/encoding/json"
)

// Valid reports whether data is one valid JSON value, as json.Valid does.
func Valid(data []byte) bool { return segjson.Valid(data) }

// Unmarshal is json.Unmarshal. v should hold a fresh value: after a failed
// fast attempt, v is reset to the value it had (a shallow copy) and decoded
// by encoding/json.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return json.Unmarshal(data, v)
	}
	if elem := rv.Elem(); elem.IsZero() {
		// The usual fresh value: reset to zero, with no copy kept (a
		// listing decodes two or three per resource).
		if segjson.Unmarshal(data, v) == nil {
			return nil
		}
		elem.SetZero()
		return json.Unmarshal(data, v)
	}
	saved := reflect.New(rv.Elem().Type()).Elem()
	saved.Set(rv.Elem())
	if segjson.Unmarshal(data, v) == nil {
		return nil
	}
	rv.Elem().Set(saved)
	return json.Unmarshal(data, v)
}

// AppendString appends s as json.Marshal writes a string: quoted, with
// HTML-safe escaping, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
// FuzzUnmarshal_SameAsEncodingJSON holds it to that.
func AppendString(b []byte, s string) []byte {
	return segjson.AppendEscape(b, s, segjson.EscapeHTML)
}

// AppendStringNoHTML appends s as Marshal writes a string (encoding/json
// with SetEscapeHTML(false), as go-sdk writes): AppendString with <, >
// and & left as they are.
func AppendStringNoHTML(b []byte, s string) []byte {
	return segjson.AppendEscape(b, s, 0)
}

// StringEnd is the index of the quote that closes the string opened at
// b[open], in valid JSON: the next quote not escaped by an odd run of
// backslashes. Most of a page's bytes are inside strings, and IndexByte
// crosses them many bytes at a time.
func StringEnd(b []byte, open int) int {
	j := open + 1
	for {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return len(b) - 1
		}
		q += j
		n := 0
		for k := q - 1; k > open && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		j = q + 1
	}
}

// Marshal is json.Marshal without HTML escaping, as go-sdk's JSON-RPC
// layer writes: <, > and & stay themselves, so text_as_html and URLs read
// as sent, and bytes we write match the bytes a peer writes.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
