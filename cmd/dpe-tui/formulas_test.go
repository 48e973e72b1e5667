package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGet_FormulasKeepTheirStructureAsLaTeX: formulas as pandoc writes
// them (OMML in DOCX, MathML in ODT, EPUB and HTML) are Formula elements
// whose text reads as the formula does (Al₂(SO₄)₃, √(x²+1)) and whose
// text_as_latex keeps its structure; get --format md writes the LaTeX.
// They were flattened to 'Al2SO43', the root and fraction lost. An
// inline formula stays in its sentence: the NarrativeText reads "The
// dose is a/b per litre." and records the formula (inline_formula_texts,
// inline_formula_latex), which md writes as $…$ in the sentence; the
// sentence was cut ("The dose is  per litre.") and the formula emitted
// apart from it.
func TestGet_FormulasKeepTheirStructureAsLaTeX(t *testing.T) {
	wantText := []string{"a/b", "√(x²+1)", "Al₂(SO₄)₃", "∑ᵢ₌₁ⁿ i", "G=√(P/(μV))"}
	// What the converter writes from OMML and MathML; EPUB and HTML
	// carry pandoc's TeX source, which is kept as written.
	built := []string{`\frac{a}{b}`, `\sqrt{x^{2}+1}`, `\mathrm{Al}_{2}(\mathrm{SO}_{4})_{3}`, `\sum_{i=1}^{n} i`, `G=\sqrt{\frac{P}{\mu V}}`}
	source := []string{`\frac{a}{b}`, `\sqrt{x^2 + 1}`, `\mathrm{Al}_2(\mathrm{SO}_4)_3`, `\sum_{i=1}^{n} i`, `G = \sqrt{\frac{P}{\mu V}}`}
	// Spacing is the writer's; the structure is what is compared.
	space := strings.NewReplacer(" ", "")
	for i := range wantText {
		wantText[i] = space.Replace(wantText[i])
	}
	for file, wantTeX := range map[string][]string{
		"formulas.docx": built, "formulas.odt": built, "formulas.epub": source, "formulas.html": source,
	} {
		t.Run(file, func(t *testing.T) {
			p := filepath.Join(realFixtures, file)
			code, out, errOut := runCLI(t, "get", "--format", "json", p)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var d struct {
				Pages []struct {
					Elements []struct {
						Category, Text string
						Meta           struct {
							TeX        string   `json:"text_as_latex"`
							InlineText []string `json:"inline_formula_texts"`
							InlineTeX  []string `json:"inline_formula_latex"`
						} `json:"ele_metadata"`
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatal(err)
			}
			var texts, texs, sentences []string
			display := 0
			for _, pg := range d.Pages {
				for _, e := range pg.Elements {
					if e.Category == "Formula" {
						display++
						texts = append(texts, space.Replace(e.Text))
						texs = append(texs, space.Replace(e.Meta.TeX))
					}
					if len(e.Meta.InlineText) > 0 {
						if e.Category != "NarrativeText" || len(e.Meta.InlineText) != len(e.Meta.InlineTeX) {
							t.Errorf("inline formulas on %s %q: %q %q", e.Category, e.Text, e.Meta.InlineText, e.Meta.InlineTeX)
							continue
						}
						sentences = append(sentences, e.Text)
						for i, l := range e.Meta.InlineText {
							if !strings.Contains(e.Text, l) {
								t.Errorf("inline formula %q is not in its sentence %q", l, e.Text)
							}
							texts = append(texts, space.Replace(l))
							texs = append(texs, space.Replace(e.Meta.InlineTeX[i]))
						}
					}
				}
			}
			// Collected in reading order: the inline ones (first and
			// third) in their sentences, the three display ones alone.
			if wantS := []string{"The dose is a/b per litre.", "Alum is Al₂(SO₄)₃ in water."}; display != 3 || !slices.Equal(sentences, wantS) {
				t.Errorf("%d display formulas, sentences %q; want 3 and %q", display, sentences, wantS)
			}
			want := make([]string, len(wantTeX))
			for i, w := range wantTeX {
				want[i] = space.Replace(w)
			}
			if !slices.Equal(texts, wantText) || !slices.Equal(texs, want) {
				t.Errorf("formulas\n%q\n%q\nwant\n%q\n%q", texts, texs, wantText, want)
			}
			code, md, errOut := runCLI(t, "get", "--format", "md", p)
			if code != exitOK || !strings.Contains(md, "$$\n"+wantTeX[1]+"\n$$") ||
				!strings.Contains(md, "\nAlum is $"+wantTeX[2]+"$ in water.\n") {
				t.Errorf("get --format md: exit %d %s; want $$ %s $$ and Alum is $%s$ in water. in:\n%s", code, errOut, wantTeX[1], wantTeX[2], md)
			}
		})
	}
}
