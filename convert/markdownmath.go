package convert

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Markdown's inline math, as pandoc reads it (tex_math_dollars): $…$
// (or $$…$$ inside a sentence) whose opening $ is followed by a non-space,
// whose closing $ follows a non-space and is not followed by a digit, on
// one line. Without it goldmark read the underscores of $a_1$ and $b_1$
// as emphasis and the formula changed meaning.

// kindMarkdownMath is the AST kind of an inline formula.
var kindMarkdownMath = ast.NewNodeKind("DPEInlineMath")

// markdownMath is an inline formula: its TeX, as written.
type markdownMath struct {
	ast.BaseInline
	tex []byte
}

func (n *markdownMath) Kind() ast.NodeKind { return kindMarkdownMath }

func (n *markdownMath) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"TeX": string(n.tex)}, nil)
}

type markdownMathParser struct{}

func (markdownMathParser) Trigger() []byte { return []byte{'$'} }

func (markdownMathParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	open := 1
	if len(line) > 1 && line[1] == '$' {
		open = 2
	}
	body := line[open:]
	if len(body) == 0 || body[0] == ' ' || body[0] == '\t' || body[0] == '\n' {
		return nil
	}
	delim := line[:open]
	for from := 0; from < len(body); {
		i := bytes.Index(body[from:], delim)
		if i < 0 {
			return nil
		}
		end := from + i
		after := end + open
		switch {
		case end == 0 || body[end-1] == ' ' || body[end-1] == '\t' || body[end-1] == '\\':
		case open == 1 && after < len(body) && (body[after] >= '0' && body[after] <= '9' || body[after] == '$'):
		default:
			block.Advance(open + after)
			return &markdownMath{tex: bytes.Clone(body[:end])}
		}
		from = end + 1
	}
	return nil
}

// markdownMathOption adds the inline formula parser ahead of emphasis and
// links (code spans still come first: `$x$` is code).
var markdownMathOption = parser.WithInlineParsers(util.Prioritized(markdownMathParser{}, 150))
