package dpe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// scan.go is a small validating JSON scanner. Decode uses it to find page
// boundaries and read page headers without building elements (P1: an
// index costs a fraction of json.Unmarshal into any). It is
// iterative, so a hostile "[[[[…" costs a depth check, not the stack.

// SyntaxError is malformed JSON, with the byte offset where it was seen.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("malformed JSON at byte %d: %s", e.Offset, e.Msg)
}

type jscan struct {
	data     []byte
	maxDepth int
	// esc, when set, records the escapes seen in strings (the page being
	// indexed), so Search can rule pages out without rescanning them.
	esc *escapes
	// noSearch: Decode builds no search index (spans, escapes, letter
	// pairs) for a document opened for one page, which never searches.
	noSearch bool
}

// escapes summarises the JSON escapes of one page: the runes written as
// \uXXXX (surrogates as themselves) and which short escapes occur.
type escapes struct {
	runes map[rune]struct{}
	short [8]bool // indexed by strings.IndexByte(shortEscapes, c)
	last  rune
}

const shortEscapes = `"\/bfnrt`

func (e *escapes) addRune(r rune) {
	if r == e.last && e.runes != nil {
		return
	}
	if e.runes == nil {
		e.runes = map[rune]struct{}{}
	}
	e.runes[r] = struct{}{}
	e.last = r
}

func (s *jscan) synerr(i int, format string, a ...any) error {
	return &SyntaxError{Offset: i, Msg: fmt.Sprintf(format, a...)}
}

func (s *jscan) depthErr(depth int) error {
	return &LimitError{What: "JSON nesting depth", Limit: int64(s.maxDepth), Got: int64(depth)}
}

func (s *jscan) ws(i int) int {
	for i < len(s.data) {
		switch s.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (s *jscan) eof(i int) error {
	return s.synerr(i, "unexpected end of input")
}

// str validates the string starting at data[i] == '"' and returns the
// index after its closing quote.
func (s *jscan) str(i int) (int, error) {
	d := s.data
	j := i + 1
	for {
		// Fast path over plain bytes: the common case for text fields.
		for j < len(d) {
			c := d[j]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			j++
		}
		if j >= len(d) {
			return 0, s.synerr(i, "unterminated string")
		}
		switch c := d[j]; {
		case c == '"':
			return j + 1, nil
		case c < 0x20:
			return 0, s.synerr(j, "control character %#02x in string", c)
		}
		// backslash
		if j+1 >= len(d) {
			return 0, s.synerr(i, "unterminated string")
		}
		switch c := d[j+1]; c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			if s.esc != nil {
				s.esc.short[strings.IndexByte(shortEscapes, c)] = true
			}
			j += 2
		case 'u':
			if j+6 > len(d) {
				return 0, s.synerr(i, "unterminated string")
			}
			var r rune
			for k := j + 2; k < j+6; k++ {
				v, ok := unhex(d[k])
				if !ok {
					return 0, s.synerr(k, "bad \\u escape")
				}
				r = r<<4 | rune(v)
			}
			if s.esc != nil {
				s.esc.addRune(r)
			}
			j += 6
		default:
			return 0, s.synerr(j, "bad escape \\%c", d[j+1])
		}
	}
}

func (s *jscan) number(i int) (int, error) {
	d := s.data
	j := i
	if j < len(d) && d[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for j < len(d) && d[j] >= '0' && d[j] <= '9' {
			j++
		}
		return j - k
	}
	if j < len(d) && d[j] == '0' {
		j++
	} else if digits() == 0 {
		return 0, s.synerr(i, "invalid character %q looking for a value", s.charAt(i))
	}
	if j < len(d) && d[j] == '.' {
		j++
		if digits() == 0 {
			return 0, s.synerr(j, "digit expected after decimal point")
		}
	}
	if j < len(d) && (d[j] == 'e' || d[j] == 'E') {
		j++
		if j < len(d) && (d[j] == '+' || d[j] == '-') {
			j++
		}
		if digits() == 0 {
			return 0, s.synerr(j, "digit expected in exponent")
		}
	}
	return j, nil
}

func (s *jscan) charAt(i int) string {
	if i >= len(s.data) {
		return "EOF"
	}
	r, _ := utf8.DecodeRune(s.data[i:])
	return string(r)
}

// scalar validates a non-container value at i (after whitespace).
func (s *jscan) scalar(i int) (int, error) {
	d := s.data
	if i >= len(d) {
		return 0, s.eof(i)
	}
	switch d[i] {
	case '"':
		return s.str(i)
	case 't':
		return s.lit(i, "true")
	case 'f':
		return s.lit(i, "false")
	case 'n':
		return s.lit(i, "null")
	}
	return s.number(i)
}

func (s *jscan) lit(i int, w string) (int, error) {
	if !bytes.HasPrefix(s.data[i:], []byte(w)) {
		return 0, s.synerr(i, "invalid literal, want %s", w)
	}
	return i + len(w), nil
}

// value validates the value at i (whitespace allowed before it). depth is
// the nesting depth of the container holding it (0 at top level). It is
// iterative: the explicit stack is bounded by maxDepth.
func (s *jscan) value(i, depth int) (int, error) {
	d := s.data
	i = s.ws(i)
	if i >= len(d) {
		return 0, s.eof(i)
	}
	if c := d[i]; c != '{' && c != '[' {
		return s.scalar(i)
	}
	var stackBuf [32]byte
	stack := stackBuf[:0]
	first := false
	for {
		// At a value position (or right after an opening bracket).
		i = s.ws(i)
		if i >= len(d) {
			return 0, s.eof(i)
		}
		c := d[i]
		if first {
			top := stack[len(stack)-1]
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				stack = stack[:len(stack)-1]
				i++
				goto after
			}
			if top == '{' {
				goto key
			}
		}
		goto val
	key:
		if c != '"' {
			return 0, s.synerr(i, "object key must be a string, found %q", s.charAt(i))
		}
		{
			var err error
			if i, err = s.str(i); err != nil {
				return 0, err
			}
		}
		i = s.ws(i)
		if i >= len(d) || d[i] != ':' {
			return 0, s.synerr(i, "expected ':' after object key")
		}
		i = s.ws(i + 1)
		if i >= len(d) {
			return 0, s.eof(i)
		}
		c = d[i]
	val:
		if c == '{' || c == '[' {
			if depth+len(stack)+1 > s.maxDepth {
				return 0, s.depthErr(depth + len(stack) + 1)
			}
			stack = append(stack, c)
			i++
			first = true
			continue
		}
		{
			var err error
			if i, err = s.scalar(i); err != nil {
				return 0, err
			}
		}
	after:
		for {
			if len(stack) == 0 {
				return i, nil
			}
			top := stack[len(stack)-1]
			i = s.ws(i)
			if i >= len(d) {
				return 0, s.eof(i)
			}
			c = d[i]
			if c == ',' {
				i = s.ws(i + 1)
				first = false
				if top == '{' {
					if i >= len(d) {
						return 0, s.eof(i)
					}
					c = d[i]
					goto key
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if top == '{' {
				return 0, s.synerr(i, "expected ',' or '}' after object value, found %q", s.charAt(i))
			}
			return 0, s.synerr(i, "expected ',' or ']' after array element, found %q", s.charAt(i))
		}
	}
}

// object iterates the object at data[i] == '{' (depth = depth of the
// object itself). fn gets the raw key bytes (escapes resolved) and the
// offset of the value; it returns the offset after the value.
func (s *jscan) object(i, depth int, fn func(key []byte, v int) (int, error)) (int, error) {
	d := s.data
	if depth > s.maxDepth {
		return 0, s.depthErr(depth)
	}
	i = s.ws(i + 1)
	if i < len(d) && d[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(d) {
			return 0, s.eof(i)
		}
		if d[i] != '"' {
			return 0, s.synerr(i, "object key must be a string, found %q", s.charAt(i))
		}
		end, err := s.str(i)
		if err != nil {
			return 0, err
		}
		key := d[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			if err := json.Unmarshal(d[i:end], &k); err != nil {
				return 0, s.synerr(i, "bad object key")
			}
			key = []byte(k)
		}
		i = s.ws(end)
		if i >= len(d) || d[i] != ':' {
			return 0, s.synerr(i, "expected ':' after object key")
		}
		i = s.ws(i + 1)
		if i >= len(d) {
			return 0, s.eof(i)
		}
		if i, err = fn(key, i); err != nil {
			return 0, err
		}
		i = s.ws(i)
		if i >= len(d) {
			return 0, s.eof(i)
		}
		switch d[i] {
		case ',':
			i = s.ws(i + 1)
		case '}':
			return i + 1, nil
		default:
			return 0, s.synerr(i, "expected ',' or '}' after object value, found %q", s.charAt(i))
		}
	}
}

// array iterates the array at data[i] == '[' (depth = its own depth).
func (s *jscan) array(i, depth int, fn func(n, v int) (int, error)) (int, error) {
	d := s.data
	if depth > s.maxDepth {
		return 0, s.depthErr(depth)
	}
	i = s.ws(i + 1)
	if i < len(d) && d[i] == ']' {
		return i + 1, nil
	}
	for n := 0; ; n++ {
		if i >= len(d) {
			return 0, s.eof(i)
		}
		var err error
		if i, err = fn(n, i); err != nil {
			return 0, err
		}
		i = s.ws(i)
		if i >= len(d) {
			return 0, s.eof(i)
		}
		switch d[i] {
		case ',':
			i = s.ws(i + 1)
		case ']':
			return i + 1, nil
		default:
			return 0, s.synerr(i, "expected ',' or ']' after array element, found %q", s.charAt(i))
		}
	}
}

// kind names the JSON type of the value at i, for messages.
func (s *jscan) kind(i int) string {
	if i >= len(s.data) {
		return "nothing"
	}
	switch s.data[i] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// decodeString turns a validated JSON string token into a Go string. Plain
// valid UTF-8 is converted directly; anything else goes through
// encoding/json so escapes and invalid UTF-8 behave exactly as there.
func decodeString(raw []byte) string {
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	var out string
	if err := json.Unmarshal(raw, &out); err != nil {
		return string(body)
	}
	return out
}

// decodeInt parses a validated JSON number token that must be an integer.
func decodeInt(raw []byte) (int, bool) {
	n, err := strconv.ParseInt(string(raw), 10, 0)
	if err != nil {
		return 0, false
	}
	return int(n), true
}
