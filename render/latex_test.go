package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The Formula renderer shows the Unicode form; the element keeps its raw
// LaTeX (what the inspector shows).
func TestFormula_RendersLaTeXAsUnicode(t *testing.T) {
	r := New(NewTheme("notty"))
	e := el(t, "Formula", `\frac{\alpha}{2} + x^2`, nil)
	out := ansi.Strip(strings.Join(r.ElementLines(e, 40), "\n"))
	if !strings.Contains(out, "α/2 + x²") {
		t.Fatalf("formula rendered as %q", out)
	}
	if e.Text != `\frac{\alpha}{2} + x^2` {
		t.Fatal("rendering changed the element's raw text")
	}
}
