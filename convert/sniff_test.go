package convert

import (
	"archive/zip"
	"bytes"
	"errors"
	"strings"
	"testing"
)

func zipWith(t testing.TB, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("<x/>"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func storedMimetype(t testing.TB, mt string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "mimetype", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(mt))
	zw.Close()
	return buf.Bytes()
}

func TestSniffContentFirst(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want Kind
	}{
		{"x.docx", []byte("%PDF-1.7\n..."), KindPDF}, // content wins over extension
		{"noext", []byte("\x89PNG\r\n\x1a\n...."), KindPNG},
		{"a.bin", []byte{0xFF, 0xD8, 0xFF, 0xE0}, KindJPEG},
		{"a", []byte("GIF89a...."), KindGIF},
		{"a.zip", zipWith(t, "[Content_Types].xml", "word/document.xml"), KindDOCX},
		{"a.zip", zipWith(t, "xl/workbook.xml"), KindXLSX},
		{"a", zipWith(t, "ppt/presentation.xml"), KindPPTX},
		{"a", storedMimetype(t, "application/vnd.oasis.opendocument.text"), KindODT},
		{"a", storedMimetype(t, "application/vnd.oasis.opendocument.spreadsheet"), KindODS},
		{"a", storedMimetype(t, "application/vnd.oasis.opendocument.presentation"), KindODP},
		{"a", storedMimetype(t, "application/epub+zip"), KindEPUB},
		{"page.txt", []byte("\xEF\xBB\xBF  <!DOCTYPE html><html>"), KindHTML},
		{"m", []byte("From: a@example.org\r\nTo: b@example.org\r\nSubject: hi\r\n\r\nbody"), KindEML},
		{"notes.md", []byte("# hello"), KindMarkdown},
		{"t.csv", []byte("a,b\n1,2\n"), KindCSV},
	}
	for _, c := range cases {
		got, err := SniffBytes(c.name, c.data)
		if err != nil || got != c.want {
			t.Errorf("Sniff(%q) = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestSniffRefusals(t *testing.T) {
	ole := append(append([]byte{}, oleMagic...), make([]byte, 600)...)
	word := append(append([]byte{}, ole...), []byte("W\x00o\x00r\x00d\x00D\x00o\x00c\x00u\x00m\x00e\x00n\x00t\x00")...)
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"report.doc", ole, "unsupported format: legacy Word binary; convert it to .docx first"},
		{"renamed.bin", word, "unsupported format: legacy Word binary; convert it to .docx first"},
		{"b.xls", ole, "legacy Excel binary; convert it to .xlsx first"},
		{"c.ppt", ole, "legacy PowerPoint binary; convert it to .pptx first"},
		{"d.msg", ole, "Outlook message (.msg); convert it to .eml first"},
		{"e.zip", zipWith(t, "hello.txt"), "zip archive that is not OOXML, OpenDocument or EPUB"},
		{"f.pdf", []byte("hello, I am text"), "not a PDF file"},
		{"g.xyz", []byte("hello"), "unsupported format: unknown file type .xyz"},
		{"h.docx", []byte("PK\x03\x04 truncated"), "damaged zip archive"},
		{"doc.rtf", []byte(`{\rtf1\ansi\deff4{\fonttbl{\f0 Times;}}`), "unsupported format: RTF; convert it to .docx or .odt first"},
		{"renamed.json", []byte("\xEF\xBB\xBF{\\rtf1 x}"), "unsupported format: RTF"},
	}
	for _, c := range cases {
		_, err := SniffBytes(c.name, c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Sniff(%q) error = %v; want it to contain %q", c.name, err, c.want)
		}
	}
	if _, err := SniffBytes("report.doc", ole); !errors.Is(err, ErrUnsupported) {
		t.Errorf("legacy error does not wrap ErrUnsupported: %v", err)
	}
}

func FuzzSniff(f *testing.F) {
	f.Add("a.pdf", []byte("%PDF-1.4"))
	f.Add("a.docx", zipWith(f, "word/document.xml"))
	f.Add("a.odt", storedMimetype(f, "application/vnd.oasis.opendocument.text"))
	f.Add("a.doc", append(append([]byte{}, oleMagic...), 0, 0))
	f.Add("m.eml", []byte("From: a\nTo: b\n\nx"))
	f.Add("x.html", []byte("<html>"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		k, err := SniffBytes(name, data)
		if err != nil && k != KindUnknown {
			t.Fatalf("kind %q with error %v", k, err)
		}
		if err == nil && k == KindUnknown {
			t.Fatal("no kind and no error")
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("error is not one line: %q", err)
		}
	})
}
