package mathtext

import (
	"strings"
	"testing"
)

func TestLaTeXToUnicode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"E = mc^2", "E = mc²"},
		{"$x_1 + x_2$", "x₁ + x₂"},
		{"a^{n+1}", "aⁿ⁺¹"},
		{"x_{ij}", "xᵢⱼ"},
		{"x^{\\alpha}", "x^α"},
		{"y_{max}", "yₘₐₓ"},
		{"y_{\\beta}", "y_β"},
		{"x^{ab}_{q}", "xᵃᵇ_q"},
		{`\frac{1}{2}`, "1/2"},
		{`\frac{a+b}{c}`, "(a+b)/c"},
		{`\alpha + \beta = \Gamma`, "α + β = Γ"},
		{`\sum_{i=1}^{n} i^2`, "∑ᵢ₌₁ⁿ i²"},
		{`\int_0^\infty e^{-x} dx`, "∫₀^∞ e⁻ˣ dx"},
		{`\sqrt{2}`, "√2"},
		{`\sqrt{x^2 + y^2}`, "√(x² + y²)"},
		{`\sqrt[3]{8}`, "∛8"},
		{`a \leq b \neq c \times d`, "a ≤ b ≠ c × d"},
		{`\left( \frac{\pi}{2} \right)`, "( π/2 )"},
		{`\text{rate} = \mathrm{d}x`, "rate = dx"},
		{`\[ \lim_{n \to \infty} \]`, "lim_{n→∞}"},
		// A script without script letters is a group in braces, read the same again.
		{`Q_{night}`, "Q_{night}"},
		{`e^{-x}`, "e⁻ˣ"},
		{`\bar{Q}_{28}`, "Q̄₂₈"},
		{`e^{−x}`, "e⁻ˣ"},
		{`\unknown{x^2}`, `\unknown{x²}`},
		{"{{{unclosed", "{{{unclosed"},
		{strings.Repeat("{", 40) + "x" + strings.Repeat("}", 40), strings.Repeat("{", 40) + "x" + strings.Repeat("}", 40)},
		{"", ""},
	}
	for _, tt := range tests {
		if got := LaTeXToUnicode(tt.in); got != tt.want {
			t.Errorf("LaTeXToUnicode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzLaTeXToUnicode(f *testing.F) {
	for _, s := range []string{`\frac{a}{b}`, `x^{2`, `\sqrt[`, `\`, `_^`, "\xff{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = LaTeXToUnicode(s) // must not panic or hang
	})
}
