package convert

import (
	"strconv"
	"strings"
)

// Cell formulas. A formula cell's text is its cached value; the formula
// itself is kept beside it in the table's ele_metadata "formulas" (A1
// reference → "=B2+C2"), so a computed value can be told from a typed
// one. A formula without a cached value (openpyxl writes none; Excel and
// LibreOffice compute one on save) shows its formula as the cell's text,
// and its reference is listed in "formulas_uncached".

// colName is the letters of column col (from 1): 1 → A, 28 → AB.
func colName(col int) string {
	var b []byte
	for col > 0 {
		col--
		b = append(b, byte('A'+col%26))
		col /= 26
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// shiftFormula moves the relative references of a shared formula's text
// (written once, in its first cell) by dr rows and dc columns, as each
// other cell of the shared range reads it (ECMA-376 part 1, 18.3.1.40):
// B2+C2 shared down one row is B3+C3; $B$2 stays; text in quotes, names
// and function names (LOG10( is a function, not a cell) are left alone.
func shiftFormula(f string, dr, dc int) string {
	if dr == 0 && dc == 0 {
		return f
	}
	var sb strings.Builder
	word := func(c byte) bool {
		return c == '_' || c == '.' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
	}
	for i := 0; i < len(f); {
		c := f[i]
		if c == '"' || c == '\'' {
			j := strings.IndexByte(f[i+1:], c)
			if j < 0 {
				sb.WriteString(f[i:])
				break
			}
			sb.WriteString(f[i : i+j+2])
			i += j + 2
			continue
		}
		if i > 0 && word(f[i-1]) || !(c == '$' || c|0x20 >= 'a' && c|0x20 <= 'z') {
			sb.WriteByte(c)
			i++
			continue
		}
		// A reference: $?letters $?digits, not followed by a word
		// character or "(".
		j := i
		colAbs := f[j] == '$'
		if colAbs {
			j++
		}
		ls := j
		for j < len(f) && j-ls < 3 && f[j]|0x20 >= 'a' && f[j]|0x20 <= 'z' {
			j++
		}
		letters := f[ls:j]
		rowAbs := j < len(f) && f[j] == '$'
		if rowAbs {
			j++
		}
		ds := j
		for j < len(f) && j-ds < 7 && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		digits := f[ds:j]
		if letters == "" || digits == "" || j < len(f) && (word(f[j]) || f[j] == '(') {
			// Not a reference: copy the word whole.
			k := i + 1
			for k < len(f) && word(f[k]) {
				k++
			}
			sb.WriteString(f[i:k])
			i = k
			continue
		}
		_, col, ok := cellRef(strings.ToUpper(letters) + "1")
		row, err := strconv.Atoi(digits)
		if !ok || err != nil {
			sb.WriteString(f[i:j])
			i = j
			continue
		}
		if !colAbs {
			col += dc
		}
		if !rowAbs {
			row += dr
		}
		if col < 1 || row < 1 {
			sb.WriteString("#REF!")
		} else {
			if colAbs {
				sb.WriteByte('$')
			}
			sb.WriteString(colName(col))
			if rowAbs {
				sb.WriteByte('$')
			}
			sb.WriteString(strconv.Itoa(row))
		}
		i = j
	}
	return sb.String()
}
