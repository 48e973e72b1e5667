package rawack

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestSplitJSONArray(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{`[]`, []string{}, true},
		{` [ 1 , "a,b" ,{"k":[1,2]}, "\"],", null ] `, []string{`1`, `"a,b"`, `{"k":[1,2]}`, `"\"],"`, `null`}, true},
		{`["\\",2]`, []string{`"\\"`, `2`}, true},
		{`[1,]`, nil, false},
		{`{"a":1}`, nil, false},
		{`[1] 2`, nil, false},
		{``, nil, false},
	} {
		args, ok, err := SplitJSONArray([]byte(tc.in), 8)
		if ok != tc.ok {
			t.Errorf("%s: ok = %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		var got []string
		for _, a := range args {
			got = append(got, string(a.(json.RawMessage)))
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("%s: %q, want %q", tc.in, got, tc.want)
		}
	}
	if _, ok, err := SplitJSONArray([]byte(`[1,2,3,4,5]`), 4); !ok || !errors.Is(err, ErrTooManyArgs) {
		t.Errorf("5 of at most 4: ok %v err %v", ok, err)
	}
	if args, ok, err := SplitJSONArray([]byte(`[1,2,3,4]`), 4); !ok || err != nil || len(args) != 4 {
		t.Errorf("4 of at most 4: %v %v %v", args, ok, err)
	}
}

// SplitJSONArray splits a valid array into the elements encoding/json finds
// (each as its exact bytes), and refuses whatever json.Valid refuses or is
// not an array.
func FuzzSplitJSONArray_SameAsEncodingJSON(f *testing.F) {
	for _, s := range []string{`[]`, `[1,"a,b",{"k":[1,2]},"\"],",null]`, `["\\",2]`, `["\\\"",{"a":"\\\\"}]`, `[1,]`, `{"a":1}`, ` [ "é" , [ ] ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		args, ok, err := SplitJSONArray(b, 1<<20)
		var want []json.RawMessage
		wantOK := json.Unmarshal(b, &want) == nil && want != nil
		if ok != wantOK {
			t.Fatalf("%q: ok = %v, encoding/json says %v", b, ok, wantOK)
		}
		if !ok {
			return
		}
		if err != nil || len(args) != len(want) {
			t.Fatalf("%q: %d args (%v), want %d", b, len(args), err, len(want))
		}
		for i := range want {
			if got := args[i].(json.RawMessage); string(got) != string(want[i]) {
				t.Fatalf("%q: arg %d = %q, want %q", b, i, got, want[i])
			}
		}
	})
}
