package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_FormulasKeepTheirMarks: formulas whose meaning hangs on one mark,
// as pandoc writes them to Markdown ($…$), DOCX (OMML: \bar as "‾"), ODT
// (MathML) and plain HTML (<sup>, <sub>), read as the formula does in
// every export: Q̄₂₈ (with \bar, not \hat), Q_{night} and e⁻ˣ (a group
// of scripts; they read Q_(night) and e⁽−x)), mc² (was mc2), a₁ and b₁
// (Markdown took $a_1$ and $b_1$ for emphasis). Each inline formula's
// place in its sentence is recorded (inline_formula_offsets, characters)
// and holds its readable line.
func TestGet_FormulasKeepTheirMarks(t *testing.T) {
	for _, file := range []string{"math-marks.md", "math-marks.docx", "math-marks.odt", "math-marks.html"} {
		t.Run(file, func(t *testing.T) {
			p := filepath.Join(realFixtures, file)
			code, text, errOut := runCLI(t, "get", "--format", "text", p)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, want := range []string{"The mean Q̄₂₈ of Q_{night} decays as e⁻ˣ.", "mc²", "Inline a₁ and b₁ here."} {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
			for _, bad := range []string{"Q_(night)", "⁽", "mc2"} {
				if strings.Contains(text, bad) {
					t.Errorf("text has %q:\n%s", bad, text)
				}
			}
			code, out, errOut := runCLI(t, "get", "--format", "json", p)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var d struct {
				Pages []struct {
					Elements []struct {
						Text string
						Meta struct {
							Texts   []string `json:"inline_formula_texts"`
							TeX     []string `json:"inline_formula_latex"`
							Offsets [][]int  `json:"inline_formula_offsets"`
						} `json:"ele_metadata"`
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatal(err)
			}
			var formulas int
			var tex []string
			for _, pg := range d.Pages {
				for _, e := range pg.Elements {
					m := e.Meta
					if len(m.Texts) == 0 {
						continue
					}
					if len(m.Offsets) != len(m.Texts) {
						t.Errorf("%q: %d formulas, %d offsets", e.Text, len(m.Texts), len(m.Offsets))
						continue
					}
					r := []rune(e.Text)
					for i, o := range m.Offsets {
						if len(o) != 2 || o[0] < 0 || o[1] > len(r) || string(r[o[0]:o[1]]) != m.Texts[i] {
							t.Errorf("%q: offsets %v do not hold %q", e.Text, o, m.Texts[i])
						}
					}
					formulas += len(m.Texts)
					tex = append(tex, m.TeX...)
				}
			}
			if formulas != 6 {
				t.Errorf("%d inline formulas, want 6 (Q̄₂₈, Q_{night}, e⁻ˣ, mc², a₁, b₁)", formulas)
			}
			if file != "math-marks.html" { // plain HTML math has no LaTeX
				if len(tex) == 0 || !strings.Contains(tex[0], `\bar{`) {
					t.Errorf("the mean's LaTeX is %q, want \\bar{Q}", tex)
				}
			}
			if file == "math-marks.md" {
				_, md, _ := runCLI(t, "get", "--format", "md", p)
				if !strings.Contains(md, "Inline $a_1$ and $b_1$ here.") {
					t.Errorf("md lost the formulas:\n%s", md)
				}
			}
		})
	}
}
