// Package mathtext writes formulas as readable Unicode text: one rule for
// scripts (x², Q₂₈, else Q_{night}) and accents (Q̄), used by the
// converters for the readable line of an OMML or MathML formula and by the
// renderer for a Formula's LaTeX.
package mathtext

import (
	"strings"
	"unicode/utf8"
)

// LaTeX to Unicode: a Formula's common LaTeX (sub- and superscripts,
// \frac, \sqrt, Greek letters, big operators, relations) reads as plain
// Unicode text in the terminal. What is not understood stays as written,
// so nothing is lost; the raw LaTeX is always in the inspector.

// maxLatexDepth bounds brace nesting: deeper input is shown as written.
const maxLatexDepth = 32

var latexSymbols = map[string]string{
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
	"eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
	"xi": "ξ", "pi": "π", "varpi": "ϖ", "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ",
	"upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
	"Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
	"Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
	"sum": "∑", "prod": "∏", "coprod": "∐", "int": "∫", "iint": "∬", "iiint": "∭", "oint": "∮",
	"infty": "∞", "partial": "∂", "nabla": "∇", "pm": "±", "mp": "∓", "times": "×", "cdot": "·", "div": "÷",
	"ast": "∗", "star": "⋆", "circ": "∘", "bullet": "•",
	"leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "equiv": "≡",
	"sim": "∼", "simeq": "≃", "cong": "≅", "propto": "∝", "ll": "≪", "gg": "≫",
	"to": "→", "rightarrow": "→", "leftarrow": "←", "leftrightarrow": "↔", "Rightarrow": "⇒",
	"Leftarrow": "⇐", "Leftrightarrow": "⇔", "mapsto": "↦", "implies": "⟹", "iff": "⟺",
	"in": "∈", "notin": "∉", "ni": "∋", "subset": "⊂", "subseteq": "⊆", "supset": "⊃", "supseteq": "⊇",
	"cup": "∪", "cap": "∩", "emptyset": "∅", "varnothing": "∅", "forall": "∀", "exists": "∃", "neg": "¬",
	"land": "∧", "wedge": "∧", "lor": "∨", "vee": "∨", "oplus": "⊕", "otimes": "⊗", "perp": "⊥",
	"angle": "∠", "degree": "°", "prime": "′", "hbar": "ℏ", "ell": "ℓ", "Re": "ℜ", "Im": "ℑ", "aleph": "ℵ",
	"ldots": "…", "cdots": "⋯", "dots": "…", "vdots": "⋮", "ddots": "⋱",
	"langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
	"quad": "  ", "qquad": "    ", ",": " ", ";": " ", ":": " ", "!": "", " ": " ",
	"{": "{", "}": "}", "%": "%", "$": "$", "&": "&", "#": "#", "_": "_", "|": "‖", "\\": " ",
	"lim": "lim", "sin": "sin", "cos": "cos", "tan": "tan", "log": "log", "ln": "ln", "exp": "exp",
	"max": "max", "min": "min", "sup": "sup", "inf": "inf", "det": "det", "arg": "arg",
	"left": "", "right": "", "big": "", "Big": "", "bigg": "", "Bigg": "", "displaystyle": "",
}

// latexAccents are the accents read as the combining mark after each
// character (\bar{Q} is Q̄), as the OMML and MathML readers write them.
var latexAccents = map[string]string{"hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305",
	"tilde": "\u0303", "widetilde": "\u0303", "dot": "\u0307", "ddot": "\u0308", "vec": "\u20d7"}

// textCommands show their argument as is.
var textCommands = map[string]bool{"text": true, "mathrm": true, "mathbf": true, "mathit": true,
	"mathsf": true, "mathtt": true, "operatorname": true, "textrm": true, "textbf": true, "boldsymbol": true, "mathcal": true}

// LaTeXToUnicode renders common LaTeX math as Unicode text.
func LaTeXToUnicode(s string) string {
	s = strings.TrimSpace(s)
	for _, d := range [][2]string{{"$$", "$$"}, {`\[`, `\]`}, {`\(`, `\)`}, {"$", "$"}} {
		if len(s) >= len(d[0])+len(d[1]) && strings.HasPrefix(s, d[0]) && strings.HasSuffix(s, d[1]) {
			s = strings.TrimSpace(s[len(d[0]) : len(s)-len(d[1])])
			break
		}
	}
	p := latexParser{src: s}
	out, ok := p.seq(0, false)
	if !ok {
		return s
	}
	return out
}

type latexParser struct {
	src string
	i   int
}

// seq reads until the end (or the closing brace when inGroup).
func (p *latexParser) seq(depth int, inGroup bool) (string, bool) {
	if depth > maxLatexDepth {
		return "", false
	}
	var b strings.Builder
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch c {
		case '}':
			if inGroup {
				p.i++
				return b.String(), true
			}
			b.WriteByte(c)
			p.i++
		case '^', '_':
			p.i++
			arg, ok := p.arg(depth)
			if !ok {
				return "", false
			}
			if c == '^' {
				b.WriteString(Superscript(arg))
			} else {
				b.WriteString(Subscript(arg))
			}
		default:
			atom, ok := p.atom(depth)
			if !ok {
				return "", false
			}
			b.WriteString(atom)
		}
	}
	return b.String(), !inGroup
}

// atom is one command, group or rune.
func (p *latexParser) atom(depth int) (string, bool) {
	c := p.src[p.i]
	switch {
	case c == '{':
		p.i++
		return p.seq(depth+1, true)
	case c == '\\':
		return p.command(depth)
	}
	r, n := utf8.DecodeRuneInString(p.src[p.i:])
	p.i += n
	return string(r), true
}

// arg is the argument of ^, _ or a command: a group, a command or a rune.
func (p *latexParser) arg(depth int) (string, bool) {
	for p.i < len(p.src) && p.src[p.i] == ' ' {
		p.i++
	}
	if p.i >= len(p.src) {
		return "", true
	}
	return p.atom(depth)
}

func (p *latexParser) command(depth int) (string, bool) {
	p.i++ // the backslash
	start := p.i
	for p.i < len(p.src) && (p.src[p.i] >= 'a' && p.src[p.i] <= 'z' || p.src[p.i] >= 'A' && p.src[p.i] <= 'Z') {
		p.i++
	}
	if p.i == start && p.i < len(p.src) {
		p.i++ // a one-symbol command: \, \{ \\
	}
	name := p.src[start:p.i]
	switch {
	case name == "frac" || name == "dfrac" || name == "tfrac":
		num, ok1 := p.arg(depth)
		den, ok2 := p.arg(depth)
		if !ok1 || !ok2 {
			return "", false
		}
		return paren(num) + "/" + paren(den), true
	case name == "sqrt":
		root := ""
		if p.i < len(p.src) && p.src[p.i] == '[' {
			end := strings.IndexByte(p.src[p.i:], ']')
			if end > 0 {
				root = p.src[p.i+1 : p.i+end]
				p.i += end + 1
			}
		}
		x, ok := p.arg(depth)
		if !ok {
			return "", false
		}
		sign := "√"
		switch root {
		case "":
		case "3":
			sign = "∛"
		case "4":
			sign = "∜"
		default:
			sign = Superscript(root) + "√"
		}
		return sign + paren(x), true
	case textCommands[name]:
		return p.arg(depth)
	case latexAccents[name] != "":
		x, ok := p.arg(depth)
		return Combine(x, latexAccents[name]), ok
	}
	if sym, ok := latexSymbols[name]; ok {
		return sym, true
	}
	// Not understood: as written, its argument (if any) still converted.
	if p.i < len(p.src) && p.src[p.i] == '{' {
		x, ok := p.arg(depth)
		return `\` + name + "{" + x + "}", ok
	}
	return `\` + name, true
}

// paren wraps a compound operand so a/b stays unambiguous.
func paren(s string) string {
	if len([]rune(s)) <= 1 || strings.IndexFunc(s, func(r rune) bool {
		return strings.ContainsRune("+-−·×/ =<>≤≥±", r)
	}) < 0 {
		return s
	}
	return "(" + s + ")"
}

// The script letters Unicode has: a script whose every character has one
// is written in them (x², Q̄₂₈, e⁻ˣ).
var (
	supRunes = scriptRunes("0123456789+-−=()niabcdefghjklmoprstuvwxyzT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱᵃᵇᶜᵈᵉᶠᵍʰʲᵏˡᵐᵒᵖʳˢᵗᵘᵛʷˣʸᶻᵀ")
	subRunes = scriptRunes("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
)

func scriptRunes(from, to string) map[rune]rune {
	f, t := []rune(from), []rune(to)
	m := make(map[rune]rune, len(f))
	for i, r := range f {
		m[r] = t[i]
	}
	return m
}

// Superscript and Subscript are a formula's script as readable text: in
// Unicode script letters when each of its characters has one, else the
// one character after ^ or _, else the group in braces (Q_{night},
// x^{α+1}) as LaTeX writes it, so that reading it again (LaTeXToUnicode)
// gives the same text. A group in parentheses read as part of the
// script ("e^(−x)" became "e⁽−x)").
func Superscript(s string) string { return scriptText(s, supRunes, "^") }
func Subscript(s string) string   { return scriptText(s, subRunes, "_") }

func scriptText(s string, m map[rune]rune, mark string) string {
	s = strings.Join(strings.Fields(s), "")
	if s == "" {
		return ""
	}
	var sb strings.Builder
	for _, r := range s {
		c, ok := m[r]
		if !ok {
			if utf8.RuneCountInString(s) == 1 {
				return mark + s
			}
			return mark + "{" + s + "}"
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

// Combine puts a combining mark after each character of s.
func Combine(s, mark string) string {
	var sb strings.Builder
	for _, r := range strings.TrimSpace(s) {
		sb.WriteRune(r)
		sb.WriteString(mark)
	}
	return sb.String()
}
