package convert

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// textBytes is a plain-text file's bytes as UTF-8 (decodeText): what the
// text, CSV, Markdown and source code readers read. Bytes no text holds
// (NUL, or control characters in more than a few places: random data or
// a binary saved as .txt or .md) are refused, not converted into pages of
// mojibake; the few control characters real text has are dropped, as the
// DPE text rule (no control characters but tab, newline and return)
// wants, but a form feed, which the text reader takes as a page break.
func textBytes(src *Source) ([]byte, error) {
	data, err := src.Bytes()
	if err != nil {
		return nil, err
	}
	if notWindows1252(data) {
		return nil, errNotText
	}
	text := decodeText(data)
	if binaryText(text) {
		return nil, errBinaryText
	}
	return clearControls(text), nil
}

var (
	errBinaryText = errors.New("binary content, not text (it holds NUL or control characters no text file has)")
	errNotText    = errors.New("binary content, not text (it is not UTF-8, and too few of its bytes are ASCII for Windows-1252 text)")
)

// maxHighShare is the most of a Windows-1252 file's bytes, in percent,
// that may be outside ASCII: French, German or Icelandic prose has an
// accented letter in well under one character of five; random bytes, or
// a binary with no NUL in its first pages, have one byte in two or more.
const maxHighShare = 30

// notWindows1252: bytes decodeText would read as Windows-1252 (no byte
// order mark, not UTF-8) with more than maxHighShare percent of them
// outside ASCII. Those are no Western text: every one of them became a
// character, and the page showed a screen of "¢Ážþóøáµ˜ü‡ã" with no
// control character for binaryText to find.
func notWindows1252(data []byte) bool {
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) || bytes.HasPrefix(data, []byte("\xFF\xFE")) ||
		bytes.HasPrefix(data, []byte("\xFE\xFF")) || utf8.Valid(data) {
		return false
	}
	high := 0
	for _, b := range data {
		if b >= 0x80 {
			high++
		}
	}
	return high*100 > maxHighShare*len(data)
}

// isControl is a character the DPE text rule refuses: C0 but tab,
// newline and return; DEL; C1.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}

// binaryText: a NUL, or control characters (form feeds and the escape of
// a coloured log aside) in more than 1 of 100 characters, and more than
// a stray few.
func binaryText(text []byte) bool {
	if bytes.IndexByte(text, 0) >= 0 {
		return true
	}
	n, controls := 0, 0
	for _, r := range string(text) {
		n++
		if isControl(r) && r != '\f' && r != '\v' && r != 0x1b {
			controls++
		}
	}
	return controls > 4 && controls*100 > n
}

// clearControls drops the control characters of text but form feeds (a
// vertical tab becomes a newline); text without any is returned as it is.
func clearControls(text []byte) []byte {
	dropped := func(r rune) bool { return isControl(r) && r != '\f' }
	if bytes.IndexFunc(text, dropped) < 0 {
		return text
	}
	out := make([]byte, 0, len(text))
	for _, r := range string(text) {
		switch {
		case r == '\v':
			out = append(out, '\n')
		case !dropped(r):
			out = utf8.AppendRune(out, r)
		}
	}
	return out
}

// decodeText reads text in the encodings text files come in: UTF-8 (a
// byte order mark is dropped: it is no character of the text), UTF-16 with
// its byte order mark (Windows' Notepad "Unicode"), and, when the bytes
// are not UTF-8, Windows-1252, the superset of Latin-1 that Windows and
// older editors save (é as the one byte 0xE9). Each came out as mojibake
// or replacement characters.
func decodeText(data []byte) []byte {
	switch {
	case bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")):
		return data[3:]
	case bytes.HasPrefix(data, []byte("\xFF\xFE")), bytes.HasPrefix(data, []byte("\xFE\xFF")):
		big := data[0] == 0xFE
		body := data[2:]
		units := make([]uint16, len(body)/2)
		for i := range units {
			if big {
				units[i] = uint16(body[2*i])<<8 | uint16(body[2*i+1])
			} else {
				units[i] = uint16(body[2*i+1])<<8 | uint16(body[2*i])
			}
		}
		out := make([]byte, 0, len(body))
		for _, r := range utf16.Decode(units) {
			out = utf8.AppendRune(out, r)
		}
		return out
	case utf8.Valid(data):
		return data
	}
	if out, err := charmap.Windows1252.NewDecoder().Bytes(data); err == nil {
		return out
	}
	return data
}

// sniffLines is how many records sniffDelimiter reads.
const sniffLines = 20

// sniffDelimiter is the delimiter of delimited text: def when it
// splits the first records into the same number of fields, two or more;
// else, among comma, semicolon (what spreadsheets write where the comma
// is the decimal sign) and tab, the one that does, the most fields
// winning; def when none does.
func sniffDelimiter(data []byte, def rune) rune {
	if delimitedWidth(data, def) >= 2 {
		return def
	}
	best, bestN := def, 0
	for _, c := range []rune{',', ';', '\t'} {
		if n := delimitedWidth(data, c); n > bestN {
			best, bestN = c, n
		}
	}
	return best
}

// delimitedWidth is the field count every one of the first records of
// data has when split at comma; 0 when they differ, or for fewer than
// two fields.
func delimitedWidth(data []byte, comma rune) int {
	recs := firstRecords(data, comma)
	if len(recs) == 0 || len(recs[0]) < 2 {
		return 0
	}
	for _, rec := range recs {
		if len(rec) != len(recs[0]) {
			return 0
		}
	}
	return len(recs[0])
}

// firstRecords are up to sniffLines records of data split at comma; nil
// when they do not parse.
func firstRecords(data []byte, comma rune) [][]string {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma, r.FieldsPerRecord, r.LazyQuotes = comma, -1, true
	var recs [][]string
	for len(recs) < sniffLines {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil
		}
		recs = append(recs, rec)
	}
	return recs
}

// LooksDelimited reports whether text without a name (standard input)
// is a table of comma-, semicolon- or tab-separated values: two records
// or more that split into the same number of fields, two or more, whose
// fields after the first do not mostly start with a space (lines of
// prose with a comma each: "Hello, world"). ext is the extension that
// names it to Sniff (".csv", ".tsv").
func LooksDelimited(data []byte) (ext string, ok bool) {
	data = decodeText(data)
	c := sniffDelimiter(data, ',')
	recs := firstRecords(data, c)
	if len(recs) < 2 || delimitedWidth(data, c) < 2 {
		return "", false
	}
	spaced, fields := 0, 0
	for _, rec := range recs {
		for _, f := range rec[1:] {
			fields++
			if len(f) > 0 && f[0] == ' ' {
				spaced++
			}
		}
	}
	if 2*spaced > fields {
		return "", false
	}
	if c == '\t' {
		return ".tsv", true
	}
	return ".csv", true
}
