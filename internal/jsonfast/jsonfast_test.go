package jsonfast

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// listing is the shape of the acks decoded on the hot path: strings, an
// any, raw messages, a slice of structs and a map.
type listing struct {
	Resources []struct {
		URI         string          `json:"uri"`
		Name        string          `json:"name"`
		MimeType    string          `json:"mimeType"`
		Size        any             `json:"size"`
		Count       *int64          `json:"count"`
		Annotations json.RawMessage `json:"annotations"`
		Meta        json.RawMessage `json:"_meta"`
	} `json:"resources"`
	NextCursor any               `json:"next_cursor"`
	Tags       map[string]string `json:"tags"`
	Flag       bool              `json:"flag"`
	Ratio      float64           `json:"ratio"`
	Items      []any             `json:"items"`
}

var seeds = []string{
	`{"resources":[{"uri":"dpe://h/a","name":"a","size":3,"_meta":{"dpe":{"page_count":2}}}],"next_cursor":"c"}`,
	`{"resources":[{"uri":"dpe://h/\u00e9","name":"caf\u0065\u0301","size":"x","annotations":null}],"next_cursor":null}`,
	`{"Resources":[{"URI":"case"}],"NEXT_CURSOR":1}`,
	`{"resources":[{"uri":"a","uri":"b"}],"tags":{"k":"v","k":"w"}}`,
	"{\"resources\":[{\"uri\":\"bad \xff utf8\",\"name\":\"\xed\xa0\x80\"}]}",
	`{"resources":[{"uri":"a","count":1.5}],"flag":true}`,
	`{"resources":[{"uri":"a","count":12345678901234567890}]}`,
	`{"ratio":1e400}`,
	`{"ratio":-0.0,"items":[1,"2",[3],{"4":null},true]}`,
	`{"resources":{"uri":"not an array"}}`,
	`{"resources":[{"uri":"a"}]} trailing`,
	`{"resources":[{"uri":"a",}]}`,
	`{"tags":{"k":1}}`,
	`{"resources":[{"_meta":  { "spaced" : [ 1 , 2 ] } }]}`,
	`{"items":["\ud800","\udc00\ud800","\\u0000"]}`,
	"<a href=\"x\">&\u2028\u2029\x7f\x00\t",
	`  {"flag":false}  `,
	`null`,
	`[]`,
	``,
}

func FuzzUnmarshal_SameAsEncodingJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, want listing
		gotErr := Unmarshal(data, &got)
		wantErr := json.Unmarshal(data, &want)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("%q: error %v, encoding/json %v", data, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", data, got, want)
		}
		var gotAny, wantAny any
		gotErr, wantErr = Unmarshal(data, &gotAny), json.Unmarshal(data, &wantAny)
		if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(gotAny, wantAny) {
			t.Fatalf("%q as any: %#v (%v), encoding/json %#v (%v)", data, gotAny, gotErr, wantAny, wantErr)
		}
		if want, _ := json.Marshal(string(data)); string(AppendString(nil, string(data))) != string(want) {
			t.Fatalf("%q: AppendString %s, json.Marshal %s", data, AppendString(nil, string(data)), want)
		}
		if Valid(data) != json.Valid(data) {
			t.Fatalf("%q: Valid %v, json.Valid %v", data, Valid(data), json.Valid(data))
		}
	})
}

// A type error leaves what encoding/json leaves: the other fields decoded
// and the first error reported as *json.UnmarshalTypeError.
func TestUnmarshal_TypeErrorIsEncodingJSONs(t *testing.T) {
	var got listing
	err := Unmarshal([]byte(`{"tags":{"k":1},"flag":true,"resources":[{"uri":"a"}]}`), &got)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		t.Fatalf("err = %T %v, want *json.UnmarshalTypeError", err, err)
	}
	if !got.Flag || len(got.Resources) != 1 || got.Resources[0].URI != "a" {
		t.Errorf("partial result %+v, want flag and the resource decoded", got)
	}
}

// A failed fast attempt does not leak into the result: v is reset before
// encoding/json decodes.
func TestUnmarshal_ResetsAfterFastFailure(t *testing.T) {
	var got listing
	err := Unmarshal([]byte(`{"flag":true,"resources":[{"uri":"a"}],"ratio":"x"}`), &got)
	var want listing
	wantErr := json.Unmarshal([]byte(`{"flag":true,"resources":[{"uri":"a"}],"ratio":"x"}`), &want)
	if err == nil || err.Error() != wantErr.Error() || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v (%v), want %+v (%v)", got, err, want, wantErr)
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	page := []byte(`{"resources":[`)
	for i := range 100 {
		if i > 0 {
			page = append(page, ',')
		}
		page = append(page, `{"uri":"dpe://io.github.dpetui.bench/generated/note-000001","name":"note-000001","description":"Generated note 1 of 100000.","mimeType":"application/vnd.a2c.dpe-inline+json","_meta":{"dpe":{"page_count":1,"file_type":"md","keywords":["generated","note"]}}}`...)
	}
	page = append(page, `],"next_cursor":"c"}`...)
	b.SetBytes(int64(len(page)))
	for _, tc := range []struct {
		name string
		fn   func([]byte, any) error
	}{{"jsonfast", Unmarshal}, {"encoding-json", json.Unmarshal}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				var l listing
				if err := tc.fn(page, &l); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestMarshal_LeavesHTMLAsIs(t *testing.T) {
	got, err := Marshal(map[string]string{"html": "<b>a & b</b>"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"html":"<b>a & b</b>"}`; string(got) != want {
		t.Fatalf("Marshal = %s, want %s (no HTML escaping, no trailing newline)", got, want)
	}
}

// A value that was not fresh is reset to what it held, not to zero,
// before encoding/json decodes into it.
func TestUnmarshal_ResetsAFilledValueToItself(t *testing.T) {
	in := []byte(`{"resources":[{"uri":"a"}],"ratio":"x"}`)
	got := listing{Flag: true}
	err := Unmarshal(in, &got)
	want := listing{Flag: true}
	wantErr := json.Unmarshal(in, &want)
	if err == nil || err.Error() != wantErr.Error() || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v (%v), want %+v (%v)", got, err, want, wantErr)
	}
}
