package convert

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Kind is a file format as sniffed.
type Kind string

// Kinds. The string is the lowercase file_type written to documents.
const (
	KindUnknown  Kind = ""
	KindPDF      Kind = "pdf"
	KindDOCX     Kind = "docx"
	KindXLSX     Kind = "xlsx"
	KindPPTX     Kind = "pptx"
	KindODT      Kind = "odt"
	KindODS      Kind = "ods"
	KindODP      Kind = "odp"
	KindEPUB     Kind = "epub"
	KindHTML     Kind = "html"
	KindEML      Kind = "eml"
	KindPNG      Kind = "png"
	KindJPEG     Kind = "jpeg"
	KindGIF      Kind = "gif"
	KindMarkdown Kind = "markdown"
	KindCSV      Kind = "csv"
	KindTSV      Kind = "tsv"
	KindText     Kind = "text"
	KindSVG      Kind = "svg"
)

// FileType is the document's file_type: the Kind, except where the
// file_type enum (dpe/identity) spells it otherwise.
func (k Kind) FileType() string {
	switch k {
	case KindMarkdown:
		return "md"
	case KindText:
		return "txt"
	}
	return string(k)
}

// sniffHead is how much of a file the content checks look at.
const sniffHead = 4096

var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// Sniff decides a file's format: by content first (PDF header, OLE2, image
// magic, the entries of a zip, HTML and e-mail header shapes), by the
// extension of name second. Legacy Office binaries (OLE2) and RTF are an
// *UnconvertibleError (wrapping ErrUnsupported) that says which program's
// format it is and what to convert it to. A zip that is no known container is an error too.
func Sniff(name string, r io.ReaderAt, size int64) (Kind, error) {
	head := make([]byte, min(size, sniffHead))
	n, err := r.ReadAt(head, 0)
	if n < len(head) {
		return KindUnknown, fmt.Errorf("read: %w", err)
	}
	head = head[:n]
	if len(head) == 0 {
		// An empty text file is still a (one-page) document of its kind.
		switch k := kindByExt(name); k {
		case KindMarkdown, KindCSV, KindTSV, KindText, KindCode:
			return k, nil
		}
		return KindUnknown, errors.New("empty file")
	}
	switch {
	case bytes.HasPrefix(head, oleMagic):
		return KindUnknown, legacyError(name, r, size)
	case bytes.Contains(head[:min(len(head), 1024)], []byte("%PDF-")):
		return KindPDF, nil
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return KindPNG, nil
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return KindJPEG, nil
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return KindGIF, nil
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return sniffZip(name, head, r, size)
	}
	text := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF")), " \t\r\n")
	if bytes.HasPrefix(text, []byte(`{\rtf`)) {
		// RTF starts with '{' and must not be read as JSON or text.
		return KindUnknown, &UnconvertibleError{What: "RTF; convert it to .docx or .odt first"}
	}
	if looksSVG(text) {
		return KindSVG, nil
	}
	if looksHTML(text) {
		return KindHTML, nil
	}
	if looksEmail(text) {
		return KindEML, nil
	}
	if k := kindByExt(name); k != KindUnknown {
		switch k {
		case KindPDF, KindDOCX, KindXLSX, KindPPTX, KindODT, KindODS, KindODP, KindEPUB, KindPNG, KindJPEG, KindGIF:
			// The content said otherwise: do not hand a text file to a
			// binary reader on the strength of its name.
			return KindUnknown, fmt.Errorf("not a %s file (its content does not match its extension)", strings.ToUpper(string(k)))
		}
		return k, nil
	}
	return KindUnknown, fmt.Errorf("%w: %s", ErrUnsupported, describeExt(name))
}

// SniffBytes is Sniff over data in memory.
func SniffBytes(name string, data []byte) (Kind, error) {
	return Sniff(name, bytes.NewReader(data), int64(len(data)))
}

func describeExt(name string) string {
	// The extension is shown only when it is a plain one: a name is
	// untrusted and the message must stay one printable line.
	if ext := path.Ext(strings.ToLower(name)); len(ext) > 1 && len(ext) <= 16 && strings.IndexFunc(ext[1:], func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-'
	}) < 0 {
		return "unknown file type " + ext
	}
	return "unknown file type"
}

// kindByExt maps an extension; KindUnknown when it is not one we convert.
func kindByExt(name string) Kind {
	switch path.Ext(strings.ToLower(name)) {
	case ".pdf":
		return KindPDF
	case ".docx", ".docm", ".dotx":
		return KindDOCX
	case ".xlsx", ".xlsm", ".xltx":
		return KindXLSX
	case ".pptx", ".pptm", ".potx":
		return KindPPTX
	case ".odt":
		return KindODT
	case ".ods":
		return KindODS
	case ".odp":
		return KindODP
	case ".epub":
		return KindEPUB
	case ".html", ".htm", ".xhtml":
		return KindHTML
	case ".eml":
		return KindEML
	case ".png":
		return KindPNG
	case ".jpg", ".jpeg":
		return KindJPEG
	case ".gif":
		return KindGIF
	case ".svg":
		return KindSVG
	case ".md", ".markdown":
		return KindMarkdown
	case ".csv":
		return KindCSV
	case ".tsv", ".tab":
		return KindTSV
	case ".txt", ".text", ".log":
		return KindText
	}
	if _, ok := sourceLanguage(path.Ext(strings.ToLower(name))); ok {
		return KindCode
	}
	return KindUnknown
}

// UnconvertibleError is Sniff's refusal of a format it recognises by
// content and does not convert (legacy Office binaries, RTF): What names
// the format and what to convert it to. Such a file gets this one line
// wherever it is opened, never a reading as text or JSON.
type UnconvertibleError struct{ What string }

func (e *UnconvertibleError) Error() string { return ErrUnsupported.Error() + ": " + e.What }
func (e *UnconvertibleError) Unwrap() error { return ErrUnsupported }

// legacyError names the OLE2 program by its streams (the directory names
// are UTF-16LE), else by extension.
func legacyError(name string, r io.ReaderAt, size int64) error {
	buf := make([]byte, min(size, 1<<20))
	n, _ := r.ReadAt(buf, 0)
	buf = buf[:n]
	has := func(s string) bool {
		u := utf16.Encode([]rune(s))
		b := make([]byte, 2*len(u))
		for i, c := range u {
			b[2*i], b[2*i+1] = byte(c), byte(c>>8)
		}
		return bytes.Contains(buf, b)
	}
	what, to := "", ""
	switch {
	case has("WordDocument"):
		what, to = "legacy Word binary", ".docx"
	case has("Workbook"), has("Book"):
		what, to = "legacy Excel binary", ".xlsx"
	case has("PowerPoint Document"):
		what, to = "legacy PowerPoint binary", ".pptx"
	case has("__substg1.0_"):
		what, to = "Outlook message (.msg)", ".eml"
	}
	if what == "" {
		switch path.Ext(strings.ToLower(name)) {
		case ".doc", ".dot":
			what, to = "legacy Word binary", ".docx"
		case ".xls", ".xlt":
			what, to = "legacy Excel binary", ".xlsx"
		case ".ppt", ".pps", ".pot":
			what, to = "legacy PowerPoint binary", ".pptx"
		case ".msg":
			what, to = "Outlook message (.msg)", ".eml"
		default:
			return &UnconvertibleError{What: "legacy Office binary (OLE2 compound file); save it in a current format (.docx, .xlsx, .pptx) first"}
		}
	}
	return &UnconvertibleError{What: what + "; convert it to " + to + " first"}
}

// sniffZip looks at the ODF/EPUB "mimetype" entry (stored first, uncompressed,
// so it is in head) and then at the central directory for OOXML parts.
func sniffZip(name string, head []byte, r io.ReaderAt, size int64) (Kind, error) {
	if len(head) > 38 && string(head[30:38]) == "mimetype" {
		rest := head[38:]
		switch {
		case bytes.HasPrefix(rest, []byte("application/epub+zip")):
			return KindEPUB, nil
		case bytes.HasPrefix(rest, []byte("application/vnd.oasis.opendocument.text")):
			return KindODT, nil
		case bytes.HasPrefix(rest, []byte("application/vnd.oasis.opendocument.spreadsheet")):
			return KindODS, nil
		case bytes.HasPrefix(rest, []byte("application/vnd.oasis.opendocument.presentation")):
			return KindODP, nil
		}
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return KindUnknown, fmt.Errorf("damaged zip archive: %w", err)
	}
	var odfMime bool
	for _, f := range zr.File {
		switch strings.ToLower(strings.TrimPrefix(f.Name, "/")) {
		case "word/document.xml":
			return KindDOCX, nil
		case "xl/workbook.xml":
			return KindXLSX, nil
		case "ppt/presentation.xml":
			return KindPPTX, nil
		case "mimetype":
			odfMime = true
		case "meta-inf/container.xml":
			if k := kindByExt(name); k == KindEPUB {
				return KindEPUB, nil
			}
		}
	}
	if odfMime {
		if k := kindByExt(name); k == KindODT || k == KindODS || k == KindODP || k == KindEPUB {
			return k, nil
		}
	}
	return KindUnknown, fmt.Errorf("%w: zip archive that is not OOXML, OpenDocument or EPUB", ErrUnsupported)
}

func looksHTML(text []byte) bool {
	t := bytes.ToLower(text[:min(len(text), 512)])
	for _, p := range []string{"<!doctype html", "<html", "<head", "<body"} {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	if bytes.HasPrefix(t, []byte("<?xml")) && bytes.Contains(t, []byte("<html")) {
		return true
	}
	return false
}

// looksEmail wants at least two RFC 5322 header fields a message has, in
// a header block of "Name: value" lines (continuations allowed).
func looksEmail(text []byte) bool {
	known := 0
	for _, line := range strings.Split(string(text[:min(len(text), 2048)]), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue
		}
		k, _, ok := strings.Cut(line, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return false
		}
		switch strings.ToLower(k) {
		case "from", "to", "subject", "date", "message-id", "mime-version", "received", "return-path", "cc", "reply-to", "delivered-to":
			known++
		}
	}
	return known >= 2
}
