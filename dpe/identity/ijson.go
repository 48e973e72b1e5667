package identity

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// ijson.go decodes one JSON value into the tree the parse steps walk
// (map[string]any, []any, string, json.Number, bool, nil) in a single
// pass over the bytes, refusing a duplicate key as it is read.
// encoding/json keeps the last of two equal keys silently, so step 0
// cannot be its Unmarshal; its Decoder.Token can see every key but costs
// several times a whole parse, and a skeleton of 10,000 pages is parsed
// page by page on every open. Keys compare as decoded ("a" and "\u0061"
// are one key), as I-JSON means.
//
// The caller has checked the text (CheckText): valid UTF-8 and no lone
// surrogate escape, so strings are taken as they are.

var errDepth = errors.New("nested deeper than 256")

type ijsonParser struct {
	b   []byte
	i   int
	buf []byte // scratch for strings with escapes
}

// parseIJSON is b as one JSON value, or why it is not (with the byte
// offset).
func parseIJSON(b []byte) (any, error) {
	p := &ijsonParser{b: b}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return v, nil
}

func (p *ijsonParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *ijsonParser) unexpected(want string) error {
	if p.i >= len(p.b) {
		return errors.New("unexpected end of JSON input")
	}
	r, _ := utf8.DecodeRune(p.b[p.i:])
	return fmt.Errorf("invalid character %q at byte %d, %s", r, p.i, want)
}

// value reads the value at p.i; depth is how many containers hold it
// (the old token-by-token decoder's count: a value inside 256 is refused).
func (p *ijsonParser) value(depth int) (any, error) {
	if depth > maxDepthJSON {
		return nil, errDepth
	}
	if p.i >= len(p.b) {
		return nil, p.unexpected("looking for a value")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	}
	return nil, p.unexpected("looking for a value")
}

func (p *ijsonParser) object(depth int) (any, error) {
	m := map[string]any{}
	err := p.members(func(k string) error {
		if _, dup := m[k]; dup {
			return fmt.Errorf("duplicate key %s", quote(k))
		}
		v, err := p.value(depth + 1)
		m[k] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func (p *ijsonParser) array(depth int) (any, error) {
	a := []any{} // never nil: an empty array marshals back as []
	err := p.elements(func() error {
		v, err := p.value(depth + 1)
		a = append(a, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// str reads the string at p.i (its opening quote).
func (p *ijsonParser) str() (string, error) {
	start := p.i + 1
	j := start
	for j < len(p.b) {
		c := p.b[j]
		if c == '"' {
			p.i = j + 1
			return string(p.b[start:j]), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		j++
	}
	// Escapes (or an error): decode into the scratch buffer.
	out := append(p.buf[:0], p.b[start:j]...)
	for j < len(p.b) {
		c := p.b[j]
		switch {
		case c == '"':
			p.i = j + 1
			p.buf = out
			return string(out), nil
		case c < 0x20:
			p.i = j
			return "", p.unexpected("in a string literal")
		case c != '\\':
			out = append(out, c)
			j++
			continue
		}
		if j+1 >= len(p.b) {
			break
		}
		switch e := p.b[j+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(p.b, j+2)
			if !ok {
				p.i = j + 2
				return "", p.unexpected(`in a \u escape`)
			}
			j += 6
			if utf16.IsSurrogate(r) {
				// CheckText refused a lone one, so a pair follows; anything
				// else becomes U+FFFD, as encoding/json has it.
				r2, ok := rune(0), false
				if j+1 < len(p.b) && p.b[j] == '\\' && p.b[j+1] == 'u' {
					r2, ok = hex4(p.b, j+2)
				}
				if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
					r = d
					j += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			p.i = j + 1
			return "", p.unexpected("in a string escape")
		}
		j += 2
	}
	p.i = len(p.b)
	return "", p.unexpected("in a string literal")
}

// number reads the number at p.i, strictly by RFC 8259's grammar, and
// keeps its literal (range is judged at step 4).
func (p *ijsonParser) number() (any, error) {
	start := p.i
	if err := p.numberEnd(); err != nil {
		return nil, err
	}
	return json.Number(p.b[start:p.i]), nil
}

func (p *ijsonParser) numberEnd() error {
	digits := func() bool {
		n := p.i
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
		return p.i > n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case !digits():
		return p.unexpected("in numeric literal")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if !digits() {
			return p.unexpected("after decimal point in numeric literal")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if !digits() {
			return p.unexpected("in exponent of numeric literal")
		}
	}
	return nil
}

func (p *ijsonParser) literal(word string, v any) (any, error) {
	for k := 0; k < len(word); k++ {
		if p.i >= len(p.b) || p.b[p.i] != word[k] {
			return nil, p.unexpected("in literal " + word)
		}
		p.i++
	}
	return v, nil
}

// Member is one member of a JSON object, its value raw.
type Member struct {
	Key   string
	Value json.RawMessage
}

// SplitObject is b as one JSON object without a duplicate key: its
// members in order, each value raw. A value's grammar is checked, but
// what is inside it (its own keys) is the caller's to check, by parsing
// that value: so an envelope holding objects is read once, not once as
// a whole and again object by object. The text check (CheckText) is the
// caller's too.
func SplitObject(b []byte) ([]Member, *Problem) {
	p := &ijsonParser{b: b}
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return nil, &Problem{"", CodeValidation, "not I-JSON: not an object"}
	}
	var out []Member
	seen := map[string]bool{}
	err := p.members(func(k string) error {
		if seen[k] {
			return fmt.Errorf("duplicate key %s", quote(k))
		}
		seen[k] = true
		start := p.i
		if err := p.skip(1); err != nil {
			return err
		}
		out = append(out, Member{k, json.RawMessage(p.b[start:p.i])})
		return nil
	})
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return nil, &Problem{"", CodeValidation, "not I-JSON: " + err.Error()}
	}
	return out, nil
}

// SplitArray is b as one JSON array (or null: none), its elements raw,
// each value's grammar checked as SplitObject does.
func SplitArray(b []byte) ([]json.RawMessage, *Problem) {
	p := &ijsonParser{b: b}
	p.ws()
	if p.i+4 <= len(p.b) && string(p.b[p.i:p.i+4]) == "null" {
		p.i += 4
		if err := p.end(); err != nil {
			return nil, &Problem{"", CodeValidation, "not I-JSON: " + err.Error()}
		}
		return nil, nil
	}
	if p.i >= len(p.b) || p.b[p.i] != '[' {
		return nil, &Problem{"", CodeValidation, "not an array"}
	}
	var out []json.RawMessage
	err := p.elements(func() error {
		start := p.i
		if err := p.skip(1); err != nil {
			return err
		}
		out = append(out, json.RawMessage(p.b[start:p.i]))
		return nil
	})
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return nil, &Problem{"", CodeValidation, "not I-JSON: " + err.Error()}
	}
	return out, nil
}

// end is the rest of the input: nothing but white space.
func (p *ijsonParser) end() error {
	p.ws()
	if p.i < len(p.b) {
		return errors.New("more than one value")
	}
	return nil
}

// members walks the object at p.i (its '{'): value is called with each
// key, p.i at the key's value, and must read that value.
func (p *ijsonParser) members(value func(k string) error) error {
	p.i++ // {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return nil
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return p.unexpected("looking for an object key")
		}
		k, err := p.str()
		if err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return p.unexpected("after an object key")
		}
		p.i++
		p.ws()
		if err := value(k); err != nil {
			return err
		}
		if more, err := p.after('}', "after an object value"); !more {
			return err
		}
	}
}

// after reads what follows a member or an element: a comma (more) or
// the closing byte (done); anything else is the error.
func (p *ijsonParser) after(closing byte, what string) (more bool, err error) {
	p.ws()
	if p.i < len(p.b) {
		switch p.b[p.i] {
		case ',':
			p.i++
			p.ws()
			return true, nil
		case closing:
			p.i++
			return false, nil
		}
	}
	return false, p.unexpected(what)
}

// elements walks the array at p.i (its '['): value is called with p.i
// at each element and must read it.
func (p *ijsonParser) elements(value func() error) error {
	p.i++ // [
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return nil
	}
	for {
		if err := value(); err != nil {
			return err
		}
		if more, err := p.after(']', "after an array element"); !more {
			return err
		}
	}
}

// skip reads the value at p.i, checking its grammar and depth, building
// nothing.
func (p *ijsonParser) skip(depth int) error {
	if depth > maxDepthJSON {
		return errDepth
	}
	if p.i >= len(p.b) {
		return p.unexpected("looking for a value")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.members(func(string) error { return p.skip(depth + 1) })
	case c == '[':
		return p.elements(func() error { return p.skip(depth + 1) })
	case c == '"':
		_, err := p.str()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.numberEnd()
	case c == 't':
		_, err := p.literal("true", true)
		return err
	case c == 'f':
		_, err := p.literal("false", false)
		return err
	case c == 'n':
		_, err := p.literal("null", nil)
		return err
	}
	return p.unexpected("looking for a value")
}
