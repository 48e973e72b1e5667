package identity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// tokenDecode is the token-by-token decoder step 0 used before the
// single-pass parser, kept here as the oracle the parser is held to:
// encoding/json's own grammar and string decoding, with every key seen.
func tokenDecode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var value func(depth int) (any, error)
	value = func(depth int) (any, error) {
		if depth > maxDepthJSON {
			return nil, errDepth
		}
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch d := t.(type) {
		case json.Delim:
			switch d {
			case '{':
				m := map[string]any{}
				for dec.More() {
					kt, err := dec.Token()
					if err != nil {
						return nil, err
					}
					k := kt.(string)
					if _, dup := m[k]; dup {
						return nil, fmt.Errorf("duplicate key %s", quote(k))
					}
					v, err := value(depth + 1)
					if err != nil {
						return nil, err
					}
					m[k] = v
				}
				if _, err := dec.Token(); err != nil {
					return nil, err
				}
				return m, nil
			case '[':
				a := []any{}
				for dec.More() {
					v, err := value(depth + 1)
					if err != nil {
						return nil, err
					}
					a = append(a, v)
				}
				if _, err := dec.Token(); err != nil {
					return nil, err
				}
				return a, nil
			}
			return nil, fmt.Errorf("unexpected %v", d)
		}
		return t, nil
	}
	v, err := value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one value")
	}
	return v, nil
}

var ijsonSeeds = []string{
	`{"a":1,"b":[true,false,null,"x"],"c":{"d":-0.5e+10}}`,
	`{"a":1,"a":2}`,
	`{"a":1,"\u0061":2}`,
	`{"k":{"x":1},"k":null}`,
	`[{"a":1},{"a":1}]`,
	`"\ud83d\ude80 \"q\" \\ \/ \b\f\n\r\t \u00e9"`,
	`{"é":"é","e\u0301":1}`,
	` [1 , 2 ] `,
	`[1,]`, `{"a":1,}`, `{"a" 1}`, `[01]`, `[-]`, `[1.]`, `[1e]`, `[.5]`, `[+1]`, `tru`, `nul`, `[1]x`, `[1] [2]`,
	`"a` + "\x01" + `"`, `"\x"`, `"\u12"`, `{1:2}`, `[`, `{`, `{"a":`, ``, `   `,
	strings.Repeat("[", 256) + strings.Repeat("]", 256),
	strings.Repeat("[", 257) + strings.Repeat("]", 257),
	strings.Repeat("[", 256) + "1" + strings.Repeat("]", 256),
	`{"file_type":"md","pages":[{"title":"P","elements":[{"category":"NarrativeText","text":"x","metadata":{"n":9007199254740993}}]}]}`,
}

// TestParseIJSON_MatchesTokenDecoder: on every seed the parser accepts
// exactly what the token decoder accepts, with an equal tree.
func TestParseIJSON_MatchesTokenDecoder(t *testing.T) {
	for _, s := range ijsonSeeds {
		checkIJSONAgainstOracle(t, []byte(s))
	}
	if _, err := parseIJSON([]byte(`{"a":1,"\u0061":2}`)); err == nil || !strings.Contains(err.Error(), `duplicate key "a"`) {
		t.Fatalf("an escaped duplicate key: %v", err)
	}
}

// FuzzParseIJSON holds the single-pass parser to the token decoder on
// any input that passes the text check (as decodeIJSON calls it).
func FuzzParseIJSON(f *testing.F) {
	for _, s := range ijsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if CheckText(data) != nil {
			return
		}
		checkIJSONAgainstOracle(t, data)
	})
}

func checkIJSONAgainstOracle(t *testing.T, data []byte) {
	t.Helper()
	got, err := parseIJSON(data)
	want, werr := tokenDecode(data)
	if (err == nil) != (werr == nil) {
		t.Fatalf("%q: parser says %v, token decoder %v", data, err, werr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: parser %#v, token decoder %#v", data, got, want)
	}
	if err == nil && !json.Valid(data) {
		t.Fatalf("%q accepted but not JSON", data)
	}
	// The envelope walks agree with the tree: an object or array the
	// parser accepts splits, into members and elements that are the
	// tree's; whatever splits is JSON of that kind.
	ms, perr := SplitObject(data)
	if m, isObj := got.(map[string]any); err == nil && isObj {
		if perr != nil || len(ms) != len(m) {
			t.Fatalf("%q: SplitObject %v, %d members of %d", data, perr, len(ms), len(m))
		}
		for _, mb := range ms {
			v, verr := tokenDecode(mb.Value)
			if verr != nil || !reflect.DeepEqual(v, m[mb.Key]) {
				t.Fatalf("%q: member %q is %q (%v)", data, mb.Key, mb.Value, verr)
			}
		}
	}
	if perr == nil {
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil || m == nil {
			t.Fatalf("%q: split as an object but is not one", data)
		}
	}
	es, aerr := SplitArray(data)
	if a, isArr := got.([]any); err == nil && isArr {
		if aerr != nil || len(es) != len(a) {
			t.Fatalf("%q: SplitArray %v, %d elements of %d", data, aerr, len(es), len(a))
		}
	}
	if aerr == nil {
		var a []json.RawMessage
		if json.Unmarshal(data, &a) != nil {
			t.Fatalf("%q: split as an array but is not one", data)
		}
	}
}

func TestSplitObject(t *testing.T) {
	ms, p := SplitObject([]byte(` {"a": {"x":[1, "}"]}, "b" :null,"c":"\u0041"} `))
	if p != nil || len(ms) != 3 || ms[0].Key != "a" || string(ms[0].Value) != `{"x":[1, "}"]}` || string(ms[1].Value) != "null" || string(ms[2].Value) != `"\u0041"` {
		t.Fatalf("%+v, %v", ms, p)
	}
	for _, bad := range []string{`{"a":1,"\u0061":2}`, `{"a":[1,}`, `{"a":1} x`, `[1]`, `{"a":01}`} {
		if _, p := SplitObject([]byte(bad)); p == nil {
			t.Errorf("%s: split", bad)
		}
	}
	// Inside a value is the caller's: a duplicate there is left to its
	// parse.
	if _, p := SplitObject([]byte(`{"a":{"k":1,"k":2}}`)); p != nil {
		t.Fatal(p)
	}
	if es, p := SplitArray([]byte(`null`)); p != nil || es != nil {
		t.Fatalf("null: %v %v", es, p)
	}
	if _, p := SplitArray([]byte(`{}`)); p == nil {
		t.Fatal("an object split as an array")
	}
}

// BenchmarkParsePageObject is one skeleton page's parse (step 0 to 4).
func BenchmarkParsePageObject(b *testing.B) {
	page := []byte(`{"title":"Page 12","page_metadata":{"lang":"en","n":3},"elements":["dpe1:` + strings.Repeat("ab", 32) + `","dpe1:` + strings.Repeat("cd", 32) + `"]}`)
	for b.Loop() {
		if _, p := ParsePageObject(page); p != nil {
			b.Fatal(p)
		}
	}
}
