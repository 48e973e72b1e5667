package library

import (
	"strings"
	"testing"
)

func TestMarkdown_DisplayMathKeepsSubscriptUnderscores(t *testing.T) {
	raw, err := Convert("m.md", []byte("# M\n\n$$ Q_{night} > \\bar{Q}_{28} + 3\\sigma_{28} $$\n"), "dpe://h.example.docs/m.md")
	if err != nil {
		t.Fatal(err)
	}
	want := `Q_{night} > \\bar{Q}_{28} + 3\\sigma_{28}`
	if !strings.Contains(string(raw), want) || !strings.Contains(string(raw), `"Formula"`) {
		t.Fatalf("formula lost its source text:\n%s", raw)
	}
}
