package identity

import (
	"fmt"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

func hashOf(t *testing.T, body string) *Result {
	t.Helper()
	return hashDocument(t, []byte(body))
}

const codeDoc = `{"file_type":%q,"pages":[{"page_index":0,"elements":[{"category":"CodeSnippet","text":"fn main() {}"}]}]}`

// TestMap_SourceCodeFileType: our converter's code documents hash (as
// "txt" with the language kept in doc_metadata), two languages differ,
// a file_type no table names is hashed as it is, and one that is not a
// file_type's syntax is a Problem.
func TestMap_SourceCodeFileType(t *testing.T) {
	rs := hashOf(t, sprintf(codeDoc, "rs"))
	if len(rs.Problems) != 0 || rs.DocHash == "" || rs.FileType != "txt" {
		t.Fatalf("rs: %+v", rs)
	}
	py := hashOf(t, sprintf(codeDoc, "py"))
	if py.DocHash == "" || py.DocHash == rs.DocHash {
		t.Fatalf("py and rs hash the same or not at all: %q %q", py.DocHash, rs.DocHash)
	}
	txt := hashOf(t, sprintf(codeDoc, "txt"))
	if txt.DocHash == rs.DocHash {
		t.Fatal("a txt document hashes like the rs one: the language was lost")
	}
	// file_type is open (core §2.5): a value no table names is hashed as
	// it is; one that is not a file_type's syntax is a Problem.
	if exe := hashOf(t, sprintf(codeDoc, "exe")); len(exe.Problems) != 0 || exe.FileType != "exe" {
		t.Fatalf("exe: %+v", exe)
	}
	bad := hashOf(t, sprintf(codeDoc, "Exe"))
	if bad.DocHash != "" || len(bad.Problems) != 1 || bad.Problems[0].Path != "$.file_type" {
		t.Fatalf("Exe: %+v", bad)
	}
	dup := hashOf(t, `{"file_type":"go","source_file_type":"x","pages":[]}`)
	if dup.DocHash != "" || len(dup.Problems) == 0 {
		t.Fatalf("a source_file_type already there: %+v", dup)
	}
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// hashDocument runs a v0.2 document JSON through the shipped path:
// decode as dpe-tui decodes any document, load every page, map, compute.
func hashDocument(t *testing.T, raw []byte) *Result {
	t.Helper()
	d, err := dpe.Decode(raw, dpe.DefaultLimits())
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	for i := range d.Pages {
		if err := d.EnsurePage(i, dpe.DefaultLimits()); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
	}
	return Compute(Map(raw, d))
}

// TestMap_FileTypesTheEnumLacks: every file_type our converters emit
// hashes; jpeg is the enum's jpg (the same document either way), and
// ods, odp and gif are unk with the v0.2 value kept as content.
func TestMap_FileTypesTheEnumLacks(t *testing.T) {
	jpeg, jpg := hashOf(t, sprintf(codeDoc, "jpeg")), hashOf(t, sprintf(codeDoc, "jpg"))
	if len(jpeg.Problems) != 0 || jpeg.DocHash == "" || jpeg.DocHash != jpg.DocHash {
		t.Fatalf("jpeg %+v, jpg %q", jpeg, jpg.DocHash)
	}
	seen := map[Hash]string{}
	for _, ft := range []string{"ods", "odp", "gif", "unk"} {
		r := hashOf(t, sprintf(codeDoc, ft))
		if len(r.Problems) != 0 || r.DocHash == "" || r.FileType != "unk" {
			t.Fatalf("%s: %+v", ft, r)
		}
		if other, dup := seen[r.DocHash]; dup {
			t.Errorf("%s and %s hash the same: the v0.2 file_type was lost", ft, other)
		}
		seen[r.DocHash] = ft
	}
}
