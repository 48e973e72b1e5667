package computer

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/internal/jsonfast"
)

// scanRawPage is parseRawPage's one pass over a resources/list result as
// go-sdk writes it: keys in plain ASCII, uris and the cursor strings
// without escapes. It validates the result once and walks it, where the
// decoder path copied the resources array and then decoded every entry
// again for its uri (a sixth of the server's CPU on a 100,000-resource
// listing, docs/performance.md, P3). decided is false for anything it is
// not sure to read as encoding/json would (an escaped or non-ASCII key, an
// escaped uri, an entry that is not an object, ...): decodeRawPage, the
// decoder path, reads those, so the result is always encoding/json's.
// The entries share result's memory.
func scanRawPage(result []byte) (page *rawPage, ok, decided bool) {
	if !jsonfast.Valid(result) {
		return nil, false, true
	}
	s := jscan{b: result}
	s.space()
	if s.peek() != '{' {
		return nil, false, true
	}
	var (
		arr     []byte
		haveArr bool
		next    string
	)
	done := s.members(func(key []byte) bool {
		switch {
		case asciiFold(key, "resources"):
			start := s.i
			s.skip()
			arr, haveArr = result[start:s.i], true
		case asciiFold(key, "nextCursor"):
			v, isNull, plain := s.plainString()
			if !plain {
				return false
			}
			if !isNull {
				next = v
			}
		default:
			s.skip()
		}
		return true
	})
	if !done || !haveArr || len(arr) == 0 || arr[0] != '[' {
		// A nextCursor or resources of another type, or resources
		// missing: the decoder path says no to those, and to the rest.
		return nil, false, false
	}
	entries, ok := scanEntries(arr)
	if !ok {
		return nil, false, false
	}
	return &rawPage{resources: arr, entries: entries, next: next}, true, true
}

// scanEntries reads each element of the valid JSON array arr: an object,
// and the string (or null) under its uri key. false: not sure (see
// scanRawPage).
func scanEntries(arr []byte) ([]rawEntry, bool) {
	s := jscan{b: arr, i: 1}
	// A page of go-sdk's is some 100 resources of a few hundred bytes.
	entries := make([]rawEntry, 0, min(len(arr)/256+1, 1024))
	for {
		s.space()
		switch s.peek() {
		case ']':
			return entries, true
		case ',':
			s.i++
			continue
		case '{':
		default:
			return nil, false
		}
		start := s.i
		var uri string
		if !s.members(func(key []byte) bool {
			if !asciiFold(key, "uri") {
				s.skip()
				return true
			}
			v, isNull, plain := s.plainString()
			if !isNull {
				uri = v
			}
			return plain
		}) {
			return nil, false
		}
		entries = append(entries, rawEntry{uri: uri, raw: json.RawMessage(arr[start:s.i])})
	}
}

// jscan walks JSON already known to be valid.
type jscan struct {
	b []byte
	i int
}

func (s *jscan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *jscan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// members walks the object at s.i, calling member with each key (its raw
// bytes between the quotes) and s.i at the value, which member must
// consume. It stops, false, at a key with an escape or a non-ASCII byte
// (encoding/json matches keys after unescaping and Unicode folding) or
// when member returns false; true leaves s.i past the object.
func (s *jscan) members(member func(key []byte) bool) bool {
	s.i++ // '{'
	for {
		s.space()
		switch s.peek() {
		case '}':
			s.i++
			return true
		case ',':
			s.i++
			continue
		}
		end := jsonfast.StringEnd(s.b, s.i)
		key := s.b[s.i+1 : end]
		for _, c := range key {
			if c == '\\' || c >= utf8.RuneSelf {
				return false
			}
		}
		s.i = end + 1
		s.space()
		s.i++ // ':'
		s.space()
		if !member(key) {
			return false
		}
	}
}

// plainString reads the value at s.i when it is null or a string with no
// escapes in valid UTF-8 (so its bytes are its value); plain is false for
// anything else, and s.i is then left where it was.
func (s *jscan) plainString() (v string, isNull, plain bool) {
	switch s.peek() {
	case 'n':
		s.i += len("null")
		return "", true, true
	case '"':
		end := jsonfast.StringEnd(s.b, s.i)
		raw := s.b[s.i+1 : end]
		if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
			return "", false, false
		}
		s.i = end + 1
		return string(raw), false, true
	}
	return "", false, false
}

// skip moves s.i past the value at s.i.
func (s *jscan) skip() {
	switch s.peek() {
	case '"':
		s.i = jsonfast.StringEnd(s.b, s.i) + 1
		return
	case '[', '{':
		depth := 0
		for ; s.i < len(s.b); s.i++ {
			switch s.b[s.i] {
			case '"':
				s.i = jsonfast.StringEnd(s.b, s.i)
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					s.i++
					return
				}
			}
		}
		return
	}
	// A number, true, false or null: up to the next delimiter.
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', ']', '}', ' ', '\t', '\r', '\n':
			return
		}
		s.i++
	}
}

// asciiFold is key == want ignoring ASCII case, for an ASCII key: what
// encoding/json's field matching comes to then.
func asciiFold(key []byte, want string) bool {
	if len(key) != len(want) {
		return false
	}
	for i := range len(key) {
		a, b := key[i], want[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
