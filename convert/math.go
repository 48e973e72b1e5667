package convert

import (
	"encoding/xml"
	"strings"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"

	"github.com/dpe-tui/dpe-tui/internal/mathtext"
)

// Formulas (OMML in DOCX, MathML in ODT, EPUB and HTML) become a Formula
// element whose text is the formula as one readable line ("Al₂(SO₄)₃",
// "√(x²+1)") and whose ele_metadata text_as_latex is the formula in
// LaTeX ("\mathrm{Al}_{2}(\mathrm{SO}_{4})_{3}"), which keeps its
// structure: fractions, roots, scripts, sums. Both are built from one
// tree of the formula's elements (mathNode), one walk per notation.

// maxMathNodes bounds the elements of one formula read into a tree.
const maxMathNodes = 20000

// mathNode is an element of a formula: its local name, the attributes it
// is read by (m:val of OMML properties, MathML's encoding), its children
// and its own text.
type mathNode struct {
	name string
	val  string // OMML m:val; MathML encoding (annotation)
	kids []*mathNode
	text string
}

// child is n's first child named name, or nil.
func (n *mathNode) child(name string) *mathNode {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

// allText is the text of n and everything in it.
func (n *mathNode) allText() string {
	if n == nil {
		return ""
	}
	var sb strings.Builder
	var walk func(*mathNode)
	walk = func(n *mathNode) {
		sb.WriteString(n.text)
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(n)
	return sb.String()
}

// readMathTree reads the element se just started (consumed to its end)
// as a tree; past maxMathNodes the rest is skipped.
func readMathTree(d *XMLDecoder, se xml.StartElement) (*mathNode, error) {
	root := &mathNode{name: se.Name.Local, val: mathAttr(se)}
	stack := []*mathNode{root}
	count := 1
	for len(stack) > 0 {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		top := stack[len(stack)-1]
		switch t := t.(type) {
		case xml.StartElement:
			n := &mathNode{name: t.Name.Local, val: mathAttr(t)}
			if count++; count <= maxMathNodes {
				top.kids = append(top.kids, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if count <= maxMathNodes {
				top.text += string(t)
			}
		}
	}
	return root, nil
}

func mathAttr(se xml.StartElement) string {
	for _, a := range se.Attr {
		if a.Name.Local == "val" || a.Name.Local == "encoding" || a.Name.Local == "mathvariant" {
			return a.Value
		}
	}
	return ""
}

// htmlMathTree is an HTML <math> element as a tree.
func htmlMathTree(n *xhtml.Node) *mathNode {
	count := 0
	var conv func(n *xhtml.Node) *mathNode
	conv = func(n *xhtml.Node) *mathNode {
		m := &mathNode{name: strings.ToLower(n.Data), val: getAttr(n, "encoding") + getAttr(n, "mathvariant")}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if count++; count > maxMathNodes {
				break
			}
			switch c.Type {
			case xhtml.TextNode:
				m.text += c.Data
			case xhtml.ElementNode:
				m.kids = append(m.kids, conv(c))
			}
		}
		return m
	}
	return conv(n)
}

// mathOut is a formula in both notations.
type mathOut struct{ tex, lin string }

func (a mathOut) add(b mathOut) mathOut {
	// A command ends at the first non-letter: "\mu" then "V" is "\mu V".
	if i := strings.LastIndexByte(a.tex, '\\'); i >= 0 && isLetters(a.tex[i+1:]) && len(a.tex) > i+1 &&
		b.tex != "" && isLetters(b.tex[:1]) {
		a.tex += " "
	}
	return mathOut{a.tex + b.tex, a.lin + b.lin}
}

// formulaBlock is a Formula's text (its readable line) and metadata.
func formulaBlock(o mathOut) (string, Meta) {
	lin := strings.Join(strings.Fields(o.lin), " ")
	tex := joinUpright(strings.TrimSpace(o.tex))
	m := Meta{}
	if tex != "" {
		m["text_as_latex"] = displayLine(tex, maxCommentBytes)
	}
	return displayLine(lin, maxCommentBytes), m
}

// ommlMath is an m:oMath as LaTeX and as a line of text.
func ommlMath(n *mathNode) mathOut {
	var out mathOut
	for _, k := range n.kids {
		out = out.add(omml(k))
	}
	return out
}

func omml(n *mathNode) mathOut {
	if n == nil {
		return mathOut{}
	}
	seq := func(n *mathNode) mathOut { return ommlMath(orEmpty(n)) }
	switch n.name {
	case "r":
		t := n.child("t").allText()
		upright := false
		if pr := n.child("rPr"); pr != nil {
			upright = pr.child("sty") != nil && pr.child("sty").val == "p"
		}
		return mathRun(t, upright)
	case "f":
		num, den := seq(n.child("num")), seq(n.child("den"))
		return mathOut{`\frac{` + num.tex + "}{" + den.tex + "}", group(num.lin) + "/" + group(den.lin)}
	case "sSup":
		return script(seq(n.child("e")), mathOut{}, seq(n.child("sup")))
	case "sSub":
		return script(seq(n.child("e")), seq(n.child("sub")), mathOut{})
	case "sSubSup":
		return script(seq(n.child("e")), seq(n.child("sub")), seq(n.child("sup")))
	case "sPre":
		pre := script(mathOut{"{}", ""}, seq(n.child("sub")), seq(n.child("sup")))
		return pre.add(seq(n.child("e")))
	case "rad":
		e := seq(n.child("e"))
		if deg := seq(n.child("deg")); strings.TrimSpace(deg.tex) != "" {
			return mathOut{`\sqrt[` + deg.tex + "]{" + e.tex + "}", superscript(deg.lin) + "√" + group(e.lin)}
		}
		return mathOut{`\sqrt{` + e.tex + "}", "√" + group(e.lin)}
	case "d":
		beg, end, sep := "(", ")", "|"
		if pr := n.child("dPr"); pr != nil {
			if c := pr.child("begChr"); c != nil {
				beg = c.val
			}
			if c := pr.child("endChr"); c != nil {
				end = c.val
			}
			if c := pr.child("sepChr"); c != nil {
				sep = c.val
			}
		}
		var parts []mathOut
		for _, k := range n.kids {
			if k.name == "e" {
				parts = append(parts, seq(k))
			}
		}
		out := mathOut{texDelim(beg), beg}
		for i, p := range parts {
			if i > 0 {
				out = out.add(mathOut{texDelim(sep), sep})
			}
			out = out.add(p)
		}
		return out.add(mathOut{texDelim(end), end})
	case "nary":
		chr := "∫"
		if pr := n.child("naryPr"); pr != nil && pr.child("chr") != nil {
			chr = pr.child("chr").val
		}
		op := mathRun(chr, false)
		return script(op, seq(n.child("sub")), seq(n.child("sup"))).add(mathOut{" ", " "}).add(seq(n.child("e")))
	case "acc":
		chr := "\u0302"
		if pr := n.child("accPr"); pr != nil && pr.child("chr") != nil {
			chr = pr.child("chr").val
		}
		e := seq(n.child("e"))
		return accent(e, chr)
	case "bar":
		e := seq(n.child("e"))
		if pr := n.child("barPr"); pr != nil && pr.child("pos") != nil && pr.child("pos").val == "bot" {
			return mathOut{`\underline{` + e.tex + "}", e.lin}
		}
		return mathOut{`\overline{` + e.tex + "}", combine(e.lin, "\u0305")}
	case "func":
		name := seq(n.child("fName"))
		return mathOut{texFunction(name.tex), name.lin}.add(mathOut{" ", ""}).add(seq(n.child("e")))
	case "limLow":
		return script(seq(n.child("e")), seq(n.child("lim")), mathOut{})
	case "limUpp":
		return script(seq(n.child("e")), mathOut{}, seq(n.child("lim")))
	case "eqArr":
		var rows []mathOut
		for _, k := range n.kids {
			if k.name == "e" {
				rows = append(rows, seq(k))
			}
		}
		return texRows(`\begin{aligned}`, `\end{aligned}`, rows)
	case "m":
		var rows []mathOut
		for _, mr := range n.kids {
			if mr.name != "mr" {
				continue
			}
			var cells []mathOut
			for _, c := range mr.kids {
				if c.name == "e" {
					cells = append(cells, seq(c))
				}
			}
			rows = append(rows, joinOut(cells, " & ", " "))
		}
		return texRows(`\begin{matrix}`, `\end{matrix}`, rows)
	case "oMath", "e", "num", "den", "sub", "sup", "deg", "lim", "fName", "box", "borderBox", "phant", "groupChr":
		return seq(n)
	}
	if strings.HasSuffix(n.name, "Pr") {
		return mathOut{}
	}
	return seq(n)
}

func orEmpty(n *mathNode) *mathNode {
	if n == nil {
		return &mathNode{}
	}
	return n
}

// mathMLMath is a MathML <math> as LaTeX and as a line of text. A TeX
// annotation (pandoc writes the source so) is the LaTeX as written.
func mathMLMath(n *mathNode) mathOut {
	out := mathML(n)
	if tex := texAnnotation(n); tex != "" {
		out.tex = tex
	}
	return out
}

func texAnnotation(n *mathNode) string {
	if n == nil {
		return ""
	}
	if n.name == "annotation" && strings.EqualFold(n.val, "application/x-tex") {
		return strings.TrimSpace(n.allText())
	}
	for _, k := range n.kids {
		if t := texAnnotation(k); t != "" {
			return t
		}
	}
	return ""
}

func mathML(n *mathNode) mathOut {
	if n == nil {
		return mathOut{}
	}
	arg := func(i int) mathOut { // the i-th argument of a MathML schema
		if i < len(n.kids) {
			return mathML(n.kids[i])
		}
		return mathOut{}
	}
	switch n.name {
	case "mi":
		t := strings.TrimSpace(n.allText())
		return mathRun(t, utf8.RuneCountInString(t) > 1 || n.val == "normal")
	case "mn", "mo":
		return mathRun(strings.TrimSpace(n.allText()), false)
	case "mtext", "ms":
		t := n.allText()
		return mathOut{`\text{` + t + "}", t}
	case "mfrac":
		num, den := arg(0), arg(1)
		return mathOut{`\frac{` + num.tex + "}{" + den.tex + "}", group(num.lin) + "/" + group(den.lin)}
	case "msup":
		return script(arg(0), mathOut{}, arg(1))
	case "msub":
		return script(arg(0), arg(1), mathOut{})
	case "msubsup":
		return script(arg(0), arg(1), arg(2))
	case "munder":
		return script(arg(0), arg(1), mathOut{})
	case "mover":
		base, over := arg(0), arg(1)
		if a := strings.TrimSpace(over.lin); utf8.RuneCountInString(a) == 1 {
			if acc := accentOf(a); acc != "" {
				return accent(base, acc)
			}
		}
		return script(base, mathOut{}, over)
	case "munderover":
		return script(arg(0), arg(1), arg(2))
	case "msqrt":
		e := mathOut{}
		for _, k := range n.kids {
			e = e.add(mathML(k))
		}
		return mathOut{`\sqrt{` + e.tex + "}", "√" + group(e.lin)}
	case "mroot":
		e, deg := arg(0), arg(1)
		return mathOut{`\sqrt[` + deg.tex + "]{" + e.tex + "}", superscript(deg.lin) + "√" + group(e.lin)}
	case "mfenced":
		open, close := "(", ")"
		// Attributes are not kept in the tree; the default fence is ().
		e := mathOut{}
		for _, k := range n.kids {
			e = e.add(mathML(k))
		}
		return mathOut{texDelim(open), open}.add(e).add(mathOut{texDelim(close), close})
	case "mtable":
		var rows []mathOut
		for _, tr := range n.kids {
			var cells []mathOut
			for _, td := range tr.kids {
				cells = append(cells, mathML(td))
			}
			rows = append(rows, joinOut(cells, " & ", " "))
		}
		return texRows(`\begin{matrix}`, `\end{matrix}`, rows)
	case "mstyle":
		out := mathOut{}
		for _, k := range n.kids {
			out = out.add(mathML(k))
		}
		if n.val == "normal" && isLetters(out.lin) {
			// Upright letters: a unit or a chemical symbol.
			return mathOut{`\mathrm{` + out.lin + "}", out.lin}
		}
		return out
	case "annotation", "annotation-xml", "none", "mprescripts":
		return mathOut{}
	case "semantics":
		if len(n.kids) > 0 {
			return mathML(n.kids[0])
		}
		return mathOut{}
	}
	out := mathOut{}
	for _, k := range n.kids {
		out = out.add(mathML(k))
	}
	return out
}

// mathRun is the text of a run of a formula: letters, digits and
// symbols (Greek letters and operators become their LaTeX commands); an
// upright word of letters is \mathrm{…} (a unit, a chemical symbol).
func mathRun(t string, upright bool) mathOut {
	t = strings.TrimSpace(t)
	if t == "" {
		return mathOut{}
	}
	var tex strings.Builder
	for _, r := range t {
		if cmd, ok := texSymbols[r]; ok {
			tex.WriteString(cmd + " ")
			continue
		}
		switch r {
		case '{', '}', '%', '#', '&', '_', '$':
			tex.WriteString(`\` + string(r))
		case '\\':
			tex.WriteString(`\backslash `)
		default:
			tex.WriteRune(r)
		}
	}
	s := strings.TrimRight(tex.String(), " ")
	if upright && isLetters(t) && utf8.RuneCountInString(t) >= 1 && !strings.Contains(s, `\`) {
		s = `\mathrm{` + s + "}"
	}
	return mathOut{s, t}
}

// mathRun's runs of one upright letter each (pandoc writes "Al" as two)
// join into one \mathrm group after the walk (joinUpright).
func isLetters(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// joinUpright merges adjacent \mathrm{…} groups: "\mathrm{A}\mathrm{l}"
// is "\mathrm{Al}".
func joinUpright(tex string) string { return strings.ReplaceAll(tex, `}\mathrm{`, "") }

// script is base with a subscript and a superscript (either empty).
func script(base, sub, sup mathOut) mathOut {
	out := base
	if strings.TrimSpace(sub.tex) != "" {
		out.tex += "_{" + sub.tex + "}"
		out.lin += subscript(sub.lin)
	}
	if strings.TrimSpace(sup.tex) != "" {
		out.tex += "^{" + sup.tex + "}"
		out.lin += superscript(sup.lin)
	}
	return out
}

// superscript and subscript are a formula's script as readable text
// (mathtext's one rule).
func superscript(s string) string { return mathtext.Superscript(s) }
func subscript(s string) string   { return mathtext.Subscript(s) }

// group is s, in parentheses when it is more than one character.
func group(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= 1 {
		return s
	}
	return "(" + s + ")"
}

// accent is e under an accent character (OMML m:chr, MathML mover). The
// character is read once (accentOf), in any of the spellings writers use
// (pandoc writes \bar as "‾"); its LaTeX command follows from that, so
// no spelling falls through to another accent (\bar read as \hat).
func accent(e mathOut, chr string) mathOut {
	comb := accentOf(chr)
	cmd, ok := map[string]string{"\u0302": `\hat`, "\u0304": `\bar`, "\u0303": `\tilde`, "\u0307": `\dot`,
		"\u0308": `\ddot`, "\u20d7": `\vec`}[comb]
	if !ok {
		// An accent LaTeX has no command for: the character over e.
		return mathOut{`\overset{` + chr + "}{" + e.tex + "}", strings.TrimSpace(e.lin) + chr}
	}
	return mathOut{cmd + "{" + e.tex + "}", combine(e.lin, comb)}
}

// accentOf is the combining character of an accent, "" for none.
func accentOf(chr string) string {
	switch chr {
	case "\u0302", "^", "ˆ":
		return "\u0302"
	case "\u0304", "\u0305", "¯", "‾":
		return "\u0304"
	case "\u0303", "~", "˜":
		return "\u0303"
	case "\u0307", "˙":
		return "\u0307"
	case "\u0308", "¨":
		return "\u0308"
	case "\u20d7", "→":
		return "\u20d7"
	}
	return ""
}

// combine puts a combining mark after each character of s.
func combine(s, mark string) string { return mathtext.Combine(s, mark) }

func texDelim(d string) string {
	switch d {
	case "{":
		return `\{`
	case "}":
		return `\}`
	case "":
		return ""
	case "‖":
		return `\|`
	case "⟨":
		return `\langle `
	case "⟩":
		return `\rangle `
	}
	return d
}

// texFunction is a function name as LaTeX: \sin for the ones LaTeX
// knows, \operatorname{…} otherwise.
func texFunction(name string) string {
	n := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(name, `\mathrm{`), "}"))
	switch n {
	case "sin", "cos", "tan", "cot", "sec", "csc", "log", "ln", "exp", "lim", "max", "min", "sup", "inf", "det", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh":
		return `\` + n
	}
	if isLetters(n) {
		return `\operatorname{` + n + "}"
	}
	return name
}

func joinOut(parts []mathOut, texSep, linSep string) mathOut {
	var out mathOut
	for i, p := range parts {
		if i > 0 {
			out = out.add(mathOut{texSep, linSep})
		}
		out = out.add(p)
	}
	return out
}

func texRows(begin, end string, rows []mathOut) mathOut {
	body := joinOut(rows, ` \\ `, "; ")
	return mathOut{begin + " " + body.tex + " " + end, body.lin}
}

// texSymbols are the characters of a formula that LaTeX writes as a
// command.
var texSymbols = map[rune]string{
	'α': `\alpha`, 'β': `\beta`, 'γ': `\gamma`, 'δ': `\delta`, 'ε': `\epsilon`, 'ζ': `\zeta`, 'η': `\eta`, 'θ': `\theta`,
	'ι': `\iota`, 'κ': `\kappa`, 'λ': `\lambda`, 'μ': `\mu`, 'ν': `\nu`, 'ξ': `\xi`, 'π': `\pi`, 'ρ': `\rho`, 'σ': `\sigma`,
	'τ': `\tau`, 'υ': `\upsilon`, 'φ': `\phi`, 'χ': `\chi`, 'ψ': `\psi`, 'ω': `\omega`,
	'Γ': `\Gamma`, 'Δ': `\Delta`, 'Θ': `\Theta`, 'Λ': `\Lambda`, 'Ξ': `\Xi`, 'Π': `\Pi`, 'Σ': `\Sigma`, 'Φ': `\Phi`, 'Ψ': `\Psi`, 'Ω': `\Omega`,
	'∑': `\sum`, '∏': `\prod`, '∫': `\int`, '∬': `\iint`, '∮': `\oint`, '∞': `\infty`, '∂': `\partial`, '∇': `\nabla`,
	'±': `\pm`, '∓': `\mp`, '×': `\times`, '÷': `\div`, '·': `\cdot`, '⋅': `\cdot`, '≤': `\leq`, '≥': `\geq`, '≠': `\neq`,
	'≈': `\approx`, '≡': `\equiv`, '∈': `\in`, '∉': `\notin`, '⊂': `\subset`, '⊆': `\subseteq`, '∪': `\cup`, '∩': `\cap`,
	'→': `\to`, '←': `\leftarrow`, '⇒': `\Rightarrow`, '⇔': `\Leftrightarrow`, '∀': `\forall`, '∃': `\exists`, '¬': `\neg`,
	'∧': `\wedge`, '∨': `\vee`, '√': `\surd`, '°': `^{\circ}`, '−': `-`, '…': `\ldots`, '⋯': `\cdots`,
}

// placeFormulas says where a paragraph's formulas stand. Readers write
// each formula's readable line (formulaBlock's text) into the paragraph's
// text where the formula is. When the paragraph has words of its own the
// formulas are inline: the text keeps them in its sentence ("the dose is
// a/b per litre") and inline holds them, for setInlineFormulas. A
// paragraph of formulas alone is display math: the lines are taken out of
// the text again and display holds them, one Formula element each.
func placeFormulas(text string, fms []mathOut) (out string, inline, display []mathOut) {
	if len(fms) == 0 {
		return text, nil, nil
	}
	rest := text
	for _, fm := range fms {
		line, _ := formulaBlock(fm)
		rest = strings.Replace(rest, line, "", 1)
	}
	if strings.TrimSpace(rest) != "" {
		return text, fms, nil
	}
	return rest, nil, fms
}

// formulaLine is the readable line a reader writes into a paragraph's
// text for a formula (placeFormulas).
func formulaLine(fm mathOut) string {
	line, _ := formulaBlock(fm)
	return line
}

// setInlineFormulas records the inline formulas of a paragraph in its
// ele_metadata: inline_formula_texts (each one's readable line, as the
// element's text has it) and inline_formula_latex (its LaTeX, "" when
// there is none), one entry per formula in reading order, as
// emphasized_text_contents records marks. An export finds each line
// after the one before it and writes the LaTeX there ($…$).
func setInlineFormulas(m Meta, fms []mathOut) {
	if len(fms) == 0 {
		return
	}
	texts, tex := make([]string, 0, len(fms)), make([]string, 0, len(fms))
	for _, fm := range fms {
		line, fm := formulaBlock(fm)
		t, _ := fm["text_as_latex"].(string)
		texts, tex = append(texts, line), append(tex, t)
	}
	m["inline_formula_texts"], m["inline_formula_latex"] = texts, tex
}

// setFormulaOffsets records where each inline formula stands in the
// element's final text: inline_formula_offsets holds, per formula, its
// start and end (in characters, end exclusive), each line found after
// the one before it. Done once, where every reader's element is added,
// so the offsets are of the text as written out. A line not found (the
// text was cut to its limit) ends the list there.
func setFormulaOffsets(text string, m Meta) {
	lines, ok := m["inline_formula_texts"].([]string)
	if !ok || len(lines) == 0 {
		return
	}
	offsets := make([][]int, 0, len(lines))
	from := 0
	for _, l := range lines {
		i := strings.Index(text[from:], l)
		if l == "" || i < 0 {
			break
		}
		start := utf8.RuneCountInString(text[:from+i])
		offsets = append(offsets, []int{start, start + utf8.RuneCountInString(l)})
		from += i + len(l)
	}
	if len(offsets) > 0 {
		m["inline_formula_offsets"] = offsets
	}
}
