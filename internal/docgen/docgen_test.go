package docgen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestWriteLarge_IsValidJSONWithRequestedShape(t *testing.T) {
	var b bytes.Buffer
	if err := WriteLarge(&b, LargeOptions{Pages: 8, ElementsPerPage: 10, RareWordPage: 5}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		PageCount int `json:"page_count"`
		Pages     []struct {
			Elements []struct{ Category, Text string }
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.PageCount != 8 || len(doc.Pages) != 8 || len(doc.Pages[0].Elements) != 10 {
		t.Fatalf("shape: %d pages declared, %d present", doc.PageCount, len(doc.Pages))
	}
	if n := strings.Count(b.String(), RareWord); n != 1 {
		t.Errorf("rare word appears %d times, want 1", n)
	}
	if doc.Pages[0].Elements[1].Category != "Table" {
		t.Errorf("page 0 has no table")
	}
}

func TestWriteWideTable_RowsAndColumns(t *testing.T) {
	var b bytes.Buffer
	if err := WriteWideTable(&b, 100, 12); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b.Bytes()) || strings.Count(b.String(), "<tr>") != 101 {
		t.Fatalf("want 101 rows incl. header, got %d", strings.Count(b.String(), "<tr>"))
	}
}
