package library

import (
	"encoding/json"
	"testing"
)

// FuzzCheckDPE: the .dpe.json gate accepts only objects with a non-empty
// pages array and never panics.
func FuzzCheckDPE(f *testing.F) {
	for _, s := range []string{`{"pages":[{}]}`, `{"pages":[]}`, `[]`, `{"pages":[{}],"keywords":[1,"a"],"title":3}`, `{"pages":[{}]}x`, "\ufeff{\"pages\":[1]}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := checkDPE("d.dpe.json", data)
		if err != nil {
			return
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(c.JSON, &top) != nil {
			t.Fatal("accepted JSON that is not an object")
		}
		if c.Info.PageCount < 1 {
			t.Fatal("accepted a document without pages")
		}
	})
}
