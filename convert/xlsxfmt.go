package convert

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Number formats (ECMA-376 part 1, 18.8.31), the part that decides what a
// cell shows as text: dates and times, decimals, thousands separators,
// percentages, scientific notation, fractions, literal text, conditions
// ([<1000]) and the text section (@), as LibreOffice shows them (its CSV
// export "as shown" is the reference). Colours, padding (_x) and fills
// (*x) have no text and are dropped.

// fmtSections splits a format code at unquoted, unescaped semicolons.
func fmtSections(code string) []string {
	var out []string
	start, q := 0, false
	for i := 0; i < len(code); i++ {
		switch c := code[i]; {
		case c == '"':
			q = !q
		case c == '\\' && !q:
			i++
		case c == ';' && !q:
			out = append(out, code[start:i])
			start = i + 1
		}
	}
	return append(out, code[start:])
}

// fmtBare is a section without quoted text, escapes and [...] parts, for
// classifying it.
func fmtBare(sec string) string {
	var sb strings.Builder
	q := false
	for i := 0; i < len(sec); i++ {
		c := sec[i]
		switch {
		case c == '"':
			q = !q
		case q:
		case c == '\\' || c == '_' || c == '*':
			i++
		case c == '[':
			j := strings.IndexByte(sec[i:], ']')
			if j < 0 {
				return sb.String()
			}
			inner := strings.ToLower(sec[i+1 : i+j])
			if inner == "h" || inner == "hh" || inner == "m" || inner == "mm" || inner == "s" || inner == "ss" {
				sb.WriteString(inner) // elapsed time
			}
			i += j
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// isDateFormat: the code's first section has date or time letters.
func isDateFormat(code string) bool {
	if code == "" || strings.EqualFold(code, "General") {
		return false
	}
	bare := strings.ToLower(fmtBare(fmtSections(code)[0]))
	return strings.ContainsAny(bare, "ydhs") || strings.Contains(bare, "m") && !strings.ContainsAny(bare, "0#?")
}

var monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
var dayNames = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

// serialTime turns a spreadsheet serial date into a time (1900 system with
// its phantom 29 February 1900, or the 1904 system), rounded to the second.
func serialTime(v float64, date1904 bool) (time.Time, bool) {
	if math.IsNaN(v) || v < 0 || v > 2958466 { // after 9999-12-31
		return time.Time{}, false
	}
	base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	if date1904 {
		base = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	} else if v < 61 {
		base = time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC)
	}
	days := math.Floor(v)
	secs := math.Round((v - days) * 86400)
	return base.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second), true
}

// formatNumber renders v with its cell's number format.
func formatNumber(v float64, nf xlsxFormat, date1904 bool) string {
	code := nf.code
	if code == "" || strings.EqualFold(code, "General") || code == "@" || math.IsNaN(v) || math.IsInf(v, 0) {
		return generalNumber(v)
	}
	secs := fmtSections(code)
	if n := len(secs); n > 1 && (n > 3 || hasTextAt(secs[n-1])) {
		secs = secs[:n-1] // the text section
	}
	sec, showSign := pickSection(secs, v)
	if v < 0 && !showSign {
		v = -v
	}
	if nf.date {
		sec = systemDateTime(sec)
		serial, sub := v, ""
		if d := subsecondDigits(sec); d > 0 && v >= 0 && v < 2958466 {
			// LibreOffice cuts the fraction of a second it does not
			// show (59.97 s as ss.0 is 59.9), and the second stays.
			scale := math.Pow10(d)
			day := math.Floor(v)
			n := math.Floor((v-day)*86400*scale + 1e-6)
			whole := math.Floor(n / scale)
			sub = strconv.FormatInt(int64(n-whole*scale)+int64(scale), 10)[1:]
			serial = day + whole/86400
		}
		t, ok := serialTime(serial, date1904)
		if !ok {
			return generalNumber(v)
		}
		return formatDate(t, serial, sec, sub)
	}
	// Padding (_x) at the ends only aligns the cell: like LibreOffice's
	// " 3/8", a cell's text is trimmed.
	return strings.TrimSpace(formatDecimal(v, sec))
}

// innerLiteral is literal text between a whole part's placeholders
// ("000-0000"): it stands after the first at placeholders' digits.
type innerLiteral struct {
	at   int
	text string
}

// interleave writes the whole part's digits over its n placeholders from
// the right, one each, the first placeholder taking any digits left, with
// each literal before the placeholder it was written before (n = 7 and
// "-" before the fourth: 5551234 is 555-1234).
func interleave(digits string, n int, lits []innerLiteral) string {
	at := map[int]string{}
	for _, l := range lits {
		at[l.at] += l.text
	}
	var sb strings.Builder
	for k := 0; k < n; k++ {
		sb.WriteString(at[k])
		// Placeholder k takes the digit n-k from the right; the first
		// one also takes every digit before.
		end := len(digits) - (n - 1 - k)
		start := end - 1
		if k == 0 {
			start = 0
		}
		if end > 0 {
			sb.WriteString(digits[max(start, 0):end])
		}
	}
	return sb.String()
}

// currencySymbol is the text of a [$€-407] part (the symbol before the
// locale), "" for a locale alone ([$-409]) or any other [...] part.
func currencySymbol(inner string) string {
	sym, ok := strings.CutPrefix(inner, "$")
	if !ok {
		return ""
	}
	if k := strings.IndexByte(sym, '-'); k >= 0 {
		sym = sym[:k]
	}
	return sym
}

// systemDateTime is the section LibreOffice shows for Excel's system
// formats, whose code is only a placeholder: [$-F800] is the long date,
// [$-F400] the time (as its en-US locale writes them).
func systemDateTime(sec string) string {
	lower := strings.ToLower(sec)
	switch {
	case strings.Contains(lower, "[$-f800]"):
		return "dddd, mmmm d, yyyy"
	case strings.Contains(lower, "[$-f400]"):
		return "hh:mm:ss AM/PM"
	}
	return sec
}

// subsecondDigits is how many digits of a second a date section shows
// (ss.00 shows 2), at most 9.
func subsecondDigits(sec string) int {
	bare := strings.ToLower(fmtBare(sec))
	i := strings.Index(bare, "s.0")
	if i < 0 {
		return 0
	}
	n := 0
	for j := i + 2; j < len(bare) && bare[j] == '0'; j++ {
		n++
	}
	return min(n, 9)
}

// fmtCond is a section's condition ([<1000], [>=0], [=1], [<>5]).
type fmtCond struct {
	op  string
	lim float64
}

// sectionCond is sec's condition, if it has one.
func sectionCond(sec string) (fmtCond, bool) {
	q := false
	for i := 0; i < len(sec); i++ {
		switch c := sec[i]; {
		case c == '"':
			q = !q
		case q:
		case c == '\\':
			i++
		case c == '[':
			j := strings.IndexByte(sec[i:], ']')
			if j < 0 {
				return fmtCond{}, false
			}
			inner := strings.TrimSpace(sec[i+1 : i+j])
			for _, op := range []string{"<=", ">=", "<>", "<", ">", "="} {
				if rest, ok := strings.CutPrefix(inner, op); ok {
					if lim, err := strconv.ParseFloat(strings.TrimSpace(rest), 64); err == nil {
						return fmtCond{op, lim}, true
					}
				}
			}
			i += j
		}
	}
	return fmtCond{}, false
}

func (c fmtCond) holds(v float64) bool {
	switch c.op {
	case "<":
		return v < c.lim
	case "<=":
		return v <= c.lim
	case ">":
		return v > c.lim
	case ">=":
		return v >= c.lim
	case "=":
		return v == c.lim
	case "<>":
		return v != c.lim
	}
	return true
}

// pickSection is the numeric section that shows v and whether v's minus
// sign is shown, as LibreOffice chooses them (svl's SvNumberformat): the
// first section whose condition holds, else the second if it has no
// condition or it holds, else the third; a section without a condition
// that another follows is "> 0" for the first ("≥ 0" when there are two)
// and "< 0" for the second. Only the first section writes a minus sign,
// and not when its own condition is "< 0" or "≤ 0": the section says it.
func pickSection(secs []string, v float64) (string, bool) {
	if len(secs) == 1 {
		return secs[0], true
	}
	c1, ok1 := sectionCond(secs[0])
	if !ok1 {
		c1 = fmtCond{">", 0}
		if len(secs) == 2 {
			c1.op = ">="
		}
	}
	if c1.holds(v) {
		return secs[0], !(ok1 && c1.lim == 0 && (c1.op == "<" || c1.op == "<="))
	}
	c2, ok2 := sectionCond(secs[1])
	if !ok2 && len(secs) > 2 {
		c2, ok2 = fmtCond{"<", 0}, true
	}
	if !ok2 || c2.holds(v) || len(secs) == 2 {
		return secs[1], false
	}
	return secs[2], false
}

// hasTextAt: sec has an unquoted @ (a text section).
func hasTextAt(sec string) bool {
	q := false
	for i := 0; i < len(sec); i++ {
		switch c := sec[i]; {
		case c == '"':
			q = !q
		case q:
		case c == '\\':
			i++
		case c == '@':
			return true
		}
	}
	return false
}

// formatText is a text cell as its format's text section shows it (the
// fourth section, or a last one with @: '"id "@' shows "id " and the
// text), else the text as it is.
func formatText(text string, nf xlsxFormat) string {
	secs := fmtSections(nf.code)
	sec := secs[len(secs)-1]
	if nf.date || !(len(secs) == 4 || hasTextAt(sec)) {
		return text
	}
	return strings.TrimSpace(fmtLiterals(sec, text))
}

// fmtLiterals is sec's literal text (quoted text, escaped characters, a
// space for each _x) with @ replaced by text; colours, conditions and
// fills (*x) write nothing.
func fmtLiterals(sec, text string) string {
	var sb strings.Builder
	for i := 0; i < len(sec); i++ {
		switch c := sec[i]; c {
		case '"':
			j := strings.IndexByte(sec[i+1:], '"')
			if j < 0 {
				j = len(sec) - i - 1
			}
			sb.WriteString(sec[i+1 : i+1+j])
			i += j + 1
		case '\\':
			if i+1 < len(sec) {
				sb.WriteByte(sec[i+1])
			}
			i++
		case '_':
			sb.WriteByte(' ')
			i++
		case '*':
			i++
		case '[':
			j := strings.IndexByte(sec[i:], ']')
			if j < 0 {
				return sb.String()
			}
			sb.WriteString(currencySymbol(sec[i+1 : i+j]))
			i += j
		case '@':
			sb.WriteString(text)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// roundedDigits is |v| with decs decimals as LibreOffice rounds it: its
// shortest decimal spelling rounded half away from zero (3.25 with one
// decimal is 3.3, 2.675 with two 2.68, 7.249999999999999 with one 7.2;
// Go's fixed formatting rounds the binary value, 3.2 and 2.67).
func roundedDigits(v float64, decs int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(math.Abs(v), 'f', decs, 64)
	}
	short := strconv.FormatFloat(math.Abs(v), 'e', -1, 64) // d.ddde±xx
	mant, exp, _ := strings.Cut(short, "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	point := e + 1 // digits before the decimal point
	if point < 0 {
		digits = strings.Repeat("0", -point) + digits
		point = 0
	}
	if point > len(digits) {
		digits += strings.Repeat("0", point-len(digits))
	}
	if want := point + decs; want < len(digits) {
		up := digits[want] >= '5'
		b := []byte(digits[:want])
		for k := len(b) - 1; up && k >= 0; k-- {
			if b[k] == '9' {
				b[k] = '0'
			} else {
				b[k]++
				up = false
			}
		}
		digits = string(b)
		if up {
			digits, point = "1"+digits, point+1
		}
	} else {
		digits += strings.Repeat("0", want-len(digits))
	}
	ip := strings.TrimLeft(digits[:point], "0")
	if ip == "" {
		ip = "0"
	}
	if decs == 0 {
		return ip
	}
	return ip + "." + digits[point:]
}

// generalNumber is Excel's General format: up to 15 significant digits,
// no exponent for ordinary magnitudes.
func generalNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	if a := math.Abs(r); a != 0 && (a < 1e-9 || a >= 1e21) {
		return strconv.FormatFloat(r, 'E', -1, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// formatDate writes t through a date/time section.
func formatDate(t time.Time, serial float64, sec, sub string) string {
	lower := strings.ToLower(sec)
	ampm := strings.Contains(lower, "am/pm") || strings.Contains(lower, "a/p")
	var sb strings.Builder
	lastWasHour := false
	for i := 0; i < len(sec); {
		c := sec[i]
		lc := c | 0x20
		run := 1
		for i+run < len(sec) && sec[i+run]|0x20 == lc {
			run++
		}
		switch {
		case c == '"':
			j := strings.IndexByte(sec[i+1:], '"')
			if j < 0 {
				j = len(sec) - i - 1
			}
			sb.WriteString(sec[i+1 : i+1+j])
			i += j + 2
			continue
		case c == '\\':
			if i+1 < len(sec) {
				sb.WriteByte(sec[i+1])
			}
			i += 2
			continue
		case c == '_' || c == '*':
			i += 2
			continue
		case c == '[':
			j := strings.IndexByte(sec[i:], ']')
			if j < 0 {
				return sb.String()
			}
			switch strings.ToLower(sec[i+1 : i+j]) {
			case "h", "hh":
				sb.WriteString(strconv.Itoa(int(math.Round(serial*86400)) / 3600))
				lastWasHour = true
			case "m", "mm":
				sb.WriteString(pad2(int(math.Round(serial*86400))/60, 2))
			case "s", "ss":
				sb.WriteString(pad2(int(math.Round(serial*86400)), 2))
			}
			i += j + 1
			continue
		case strings.HasPrefix(strings.ToLower(sec[i:]), "am/pm"):
			if t.Hour() < 12 {
				sb.WriteString("AM")
			} else {
				sb.WriteString("PM")
			}
			i += 5
			continue
		case strings.HasPrefix(strings.ToLower(sec[i:]), "a/p"):
			if t.Hour() < 12 {
				sb.WriteString("A")
			} else {
				sb.WriteString("P")
			}
			i += 3
			continue
		case lc == 'y':
			if run <= 2 {
				sb.WriteString(pad2(t.Year()%100, 2))
			} else {
				sb.WriteString(pad2(t.Year(), 4))
			}
		case lc == 'm':
			// Minutes after an hour or before seconds, else the month.
			minute := lastWasHour || nextIsSeconds(sec[i+run:])
			switch {
			case minute:
				sb.WriteString(pad2(t.Minute(), run))
			case run == 1 || run == 2:
				sb.WriteString(pad2(int(t.Month()), run))
			case run == 3:
				sb.WriteString(monthNames[t.Month()-1][:3])
			case run == 5:
				sb.WriteString(monthNames[t.Month()-1][:1])
			default:
				sb.WriteString(monthNames[t.Month()-1])
			}
			lastWasHour = false
		case lc == 'd':
			switch {
			case run <= 2:
				sb.WriteString(pad2(t.Day(), run))
			case run == 3:
				sb.WriteString(dayNames[t.Weekday()][:3])
			default:
				sb.WriteString(dayNames[t.Weekday()])
			}
		case lc == 'h':
			h := t.Hour()
			if ampm {
				h %= 12
				if h == 0 {
					h = 12
				}
			}
			sb.WriteString(pad2(h, min(run, 2)))
			lastWasHour = true
			i += run
			continue
		case lc == 's':
			sb.WriteString(pad2(t.Second(), min(run, 2)))
		case c == '.' && i+1 < len(sec) && sec[i+1] == '0':
			// Fractions of a second: sub holds their digits (none when
			// the section has no seconds to follow).
			n := 0
			for i+1+n < len(sec) && sec[i+1+n] == '0' {
				n++
			}
			if sub != "" {
				sb.WriteString("." + sub[:min(n, len(sub))])
			}
			i += 1 + n
			continue
		case c == '0':
			i += run
			continue
		default:
			sb.WriteString(sec[i : i+run])
		}
		if lc != 'm' && lc != ' ' && lc != ':' {
			lastWasHour = false
		}
		i += run
	}
	return sb.String()
}

func nextIsSeconds(rest string) bool {
	for i := 0; i < len(rest); i++ {
		switch rest[i] | 0x20 {
		case 's':
			return true
		case ':', ' ', '.', '0':
		default:
			return false
		}
	}
	return false
}

func pad2(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// formatDecimal writes v through a numeric section: literal text around
// one number pattern of 0 # ? , . % E+.
func formatDecimal(v float64, sec string) string {
	var prefix, suffix, pat, pending strings.Builder
	inPat, done := false, false
	var inner []innerLiteral
	intCount := 0 // whole-part placeholders so far
	for i := 0; i < len(sec); i++ {
		c := sec[i]
		lit := ""
		switch {
		case c == '"':
			j := strings.IndexByte(sec[i+1:], '"')
			if j < 0 {
				j = len(sec) - i - 1
			}
			lit = sec[i+1 : i+1+j]
			i += j + 1
		case c == '\\':
			if i+1 < len(sec) {
				lit = sec[i+1 : i+2]
			}
			i++
		case c == '_' || c == '*':
			if c == '_' {
				lit = " "
			}
			i++
		case c == '[':
			j := strings.IndexByte(sec[i:], ']')
			if j < 0 {
				i = len(sec)
				continue
			}
			lit = currencySymbol(sec[i+1 : i+j])
			i += j
			if lit == "" {
				continue
			}
		case strings.IndexByte("0#?,.%", c) >= 0 || (c == 'E' || c == 'e') && i+1 < len(sec) && (sec[i+1] == '+' || sec[i+1] == '-'):
			if !done && pending.Len() > 0 {
				if strings.IndexByte("0#?", c) >= 0 && !strings.ContainsAny(pat.String(), ".Ee") {
					inner = append(inner, innerLiteral{intCount, pending.String()})
				} else {
					done = true
					suffix.WriteString(pending.String())
				}
				pending.Reset()
			}
			if done {
				if c == '%' {
					suffix.WriteByte('%')
				}
				continue
			}
			inPat = true
			pat.WriteByte(c)
			if strings.IndexByte("0#?", c) >= 0 && !strings.ContainsAny(pat.String(), ".Ee") {
				intCount++
			}
			if c == 'E' || c == 'e' {
				pat.WriteByte(sec[i+1])
				i++
			}
			continue
		case c == '/':
			return formatFraction(v, sec)
		default:
			lit = sec[i : i+1]
		}
		switch {
		case done:
			suffix.WriteString(lit)
		case inPat:
			pending.WriteString(lit)
		default:
			prefix.WriteString(lit)
		}
	}
	if !done {
		suffix.WriteString(pending.String())
	}
	p := pat.String()
	if p == "" {
		return prefix.String() + suffix.String()
	}
	for _, c := range p + suffix.String() {
		if c == '%' {
			v *= 100
		}
	}
	neg := v < 0
	v = math.Abs(v)
	var num string
	if k := strings.IndexAny(p, "Ee"); k >= 0 {
		mant := p[:k]
		decs := 0
		if d := strings.IndexByte(mant, '.'); d >= 0 {
			decs = strings.Count(mant[d:], "0") + strings.Count(mant[d:], "#")
		}
		num = strconv.FormatFloat(v, 'E', decs, 64)
		if v != 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			// The mantissa rounded as the fixed decimals are.
			exp := int(math.Floor(math.Log10(v)))
			m := roundedDigits(v/math.Pow10(exp), decs)
			if strings.HasPrefix(m, "10") {
				exp++
				m = roundedDigits(v/math.Pow10(exp), decs)
			}
			num = m + "E" + fmt.Sprintf("%+d", exp)
		}
		// Excel writes the exponent with at least two digits: 1.5E+03.
		if m, e, ok := strings.Cut(num, "E"); ok {
			sign := e[:1]
			digits := strings.TrimLeft(e[1:], "0")
			for len(digits) < 2 {
				digits = "0" + digits
			}
			num = m + "E" + sign + digits
		}
	} else {
		bare := strings.TrimRight(p, "%")
		// Commas that end the number (before or after its decimals)
		// scale it by thousands: 0.0,, shows millions.
		for strings.HasSuffix(bare, ",") {
			bare = bare[:len(bare)-1]
			v /= 1000
		}
		intPat, fracPat, _ := strings.Cut(bare, ".")
		for strings.HasSuffix(intPat, ",") {
			intPat = intPat[:len(intPat)-1]
			v /= 1000
		}
		fracPat = strings.Trim(fracPat, "%,")
		decs := len(fracPat)
		num = roundedDigits(v, decs)
		ip, fp, _ := strings.Cut(num, ".")
		// Optional decimals (#) drop trailing zeros.
		req := strings.Count(fracPat, "0")
		for len(fp) > req && strings.HasSuffix(fp, "0") {
			fp = fp[:len(fp)-1]
		}
		minInt := strings.Count(intPat, "0")
		if ip == "0" && minInt == 0 {
			ip = ""
		}
		for len(ip) < minInt {
			ip = "0" + ip
		}
		if len(inner) > 0 {
			ip = interleave(ip, intCount, inner)
		} else if strings.Contains(intPat, ",") && len(ip) > 3 {
			var sb strings.Builder
			for k, d := range ip {
				if k > 0 && (len(ip)-k)%3 == 0 {
					sb.WriteByte(',')
				}
				sb.WriteRune(d)
			}
			ip = sb.String()
		}
		num = ip
		if fp != "" || strings.Contains(p, ".") && req > 0 {
			num += "." + fp
		}
		// A whole part of ? placeholders shows a zero as spaces
		// (accounting formats' zero section, _-* "-"??_-, shows "-").
		if num == "" && !strings.Contains(intPat, "?") {
			num = "0"
		}
	}
	// What rounds to zero has no sign (-0.001 as 0.00 is 0.00).
	if neg && strings.ContainsAny(num, "123456789") {
		num = "-" + num
	}
	// A % inside the pattern ("0.0%") is printed where it stands.
	return prefix.String() + num + strings.Repeat("%", strings.Count(p, "%")) + suffix.String()
}

// formatFraction writes v through a fraction section ("# ?/?", "# ??/??",
// "?/8", "0 ?/4", '"about "# ?/?'): its literal text around the whole
// part when the section has one, then the nearest fraction whose
// denominator has at most as many digits as the denominator's
// placeholders, or the fixed denominator. As LibreOffice shows it, a
// whole part of 0 is left blank (its literal space stays: -0.375 is
// "- 3/8", (# ?/?) of -0.5 "( 1/2)"), "?" pads with spaces, and a whole
// number's fraction is blank; the text is trimmed at its ends, like every
// cell's (" 3/8" is "3/8").
func formatFraction(v float64, sec string) string {
	type tok struct {
		kind byte // 'p' a placeholder (0 # ? or a fixed denominator's digit), '/', 'l' literal text
		c    byte
		text string
	}
	var toks []tok
	for i := 0; i < len(sec); i++ {
		c := sec[i]
		switch {
		case c == '"':
			j := strings.IndexByte(sec[i+1:], '"')
			if j < 0 {
				j = len(sec) - i - 1
			}
			toks = append(toks, tok{kind: 'l', text: sec[i+1 : i+1+j]})
			i += j + 1
		case c == '\\':
			if i+1 < len(sec) {
				toks = append(toks, tok{kind: 'l', text: sec[i+1 : i+2]})
			}
			i++
		case c == '_':
			toks = append(toks, tok{kind: 'l', text: " "})
			i++
		case c == '*':
			i++
		case c == '[':
			j := strings.IndexByte(sec[i:], ']')
			if j < 0 {
				i = len(sec)
				continue
			}
			if sym := currencySymbol(sec[i+1 : i+j]); sym != "" {
				toks = append(toks, tok{kind: 'l', text: sym})
			}
			i += j
		case c == '0' || c == '#' || c == '?' || c >= '1' && c <= '9' && len(toks) > 0 && (toks[len(toks)-1].kind == '/' || toks[len(toks)-1].c >= '0' && toks[len(toks)-1].c <= '9'):
			toks = append(toks, tok{kind: 'p', c: c})
		case c == ',' && len(toks) > 0 && toks[len(toks)-1].kind == 'p':
		case c == '/':
			toks = append(toks, tok{kind: '/'})
		default:
			toks = append(toks, tok{kind: 'l', text: sec[i : i+1]})
		}
	}
	slash := -1
	for k, t := range toks {
		if t.kind == '/' {
			slash = k
			break
		}
	}
	ns := slash
	for ns > 0 && toks[ns-1].kind == 'p' {
		ns--
	}
	de := slash + 1
	for de < len(toks) && toks[de].kind == 'p' {
		de++
	}
	if slash < 0 || ns == slash || de == slash+1 || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= 1e15 {
		return generalNumber(v)
	}
	// The whole part: the placeholders before the literals before the
	// numerator.
	ms := ns
	for ms > 0 && toks[ms-1].kind == 'l' {
		ms--
	}
	is := ms
	for is > 0 && toks[is-1].kind == 'p' {
		is--
	}
	if is == ms {
		is, ms = ns, ns // no whole part: the literals are the prefix's
	}
	pattern := func(ts []tok) string {
		var b []byte
		for _, t := range ts {
			b = append(b, t.c)
		}
		return string(b)
	}
	literal := func(ts []tok) string {
		var sb strings.Builder
		for _, t := range ts {
			sb.WriteString(t.text)
		}
		return sb.String()
	}
	intPat, numPat, denPat := pattern(toks[is:ms]), pattern(toks[ns:slash]), pattern(toks[slash+1:de])
	neg := v < 0
	v = math.Abs(v)
	whole := 0.0
	if intPat != "" {
		whole = math.Floor(v)
	}
	frac := v - whole
	var num, den int64
	if fixed, err := strconv.ParseInt(denPat, 10, 64); err == nil && fixed > 0 {
		den = fixed
		num = int64(math.Round(frac * float64(den)))
	} else {
		num, den = nearestFraction(frac, int64(math.Pow10(min(len(denPat), 6)))-1)
	}
	if intPat != "" && num == den {
		whole, num = whole+1, 0
	}
	var sb strings.Builder
	sb.WriteString(literal(toks[:is]))
	if neg && (whole > 0 || num > 0) {
		sb.WriteByte('-')
	}
	if intPat == "" && num == 0 {
		sb.WriteString("0")
	} else {
		if intPat != "" && (whole > 0 || num == 0 || strings.Contains(intPat, "0")) {
			sb.WriteString(strconv.FormatFloat(whole, 'f', 0, 64))
		}
		sb.WriteString(literal(toks[ms:ns]))
		if num == 0 {
			sb.WriteString(strings.Repeat(" ", len(numPat)+1+len(denPat)))
		} else {
			n, d := strconv.FormatInt(num, 10), strconv.FormatInt(den, 10)
			for len(n) < len(numPat) {
				n = " " + n
			}
			for len(d) < len(denPat) {
				d += " "
			}
			sb.WriteString(n + "/" + d)
		}
	}
	sb.WriteString(literal(toks[de:]))
	return strings.TrimSpace(sb.String())
}

// nearestFraction is the fraction p/q nearest x (0 ≤ x < 1 or a value
// without a whole part) with q ≤ maxDen, by continued fractions (the
// best rational approximation).
func nearestFraction(x float64, maxDen int64) (int64, int64) {
	if maxDen < 1 {
		maxDen = 1
	}
	p0, q0, p1, q1 := int64(0), int64(1), int64(1), int64(0)
	r := x
	for i := 0; i < 64; i++ {
		a := int64(math.Floor(r))
		q2 := q0 + a*q1
		if q2 > maxDen {
			break
		}
		p0, q0, p1, q1 = p1, q1, p0+a*p1, q2
		if d := r - float64(a); d < 1e-12 {
			break
		} else {
			r = 1 / d
		}
	}
	// The last convergent, or the best semiconvergent below maxDen.
	k := (maxDen - q0) / q1
	bp, bq := p0+k*p1, q0+k*q1
	if math.Abs(float64(p1)/float64(q1)-x) <= math.Abs(float64(bp)/float64(bq)-x) {
		return p1, q1
	}
	return bp, bq
}
