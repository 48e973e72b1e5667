package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// convertFixture is a file of the convert package's corpus.
func convertFixture(name string) string {
	return filepath.Join("..", "..", "convert", "testdata", name)
}

// decodeConverted checks the output is a valid DPE document and returns it.
func decodeConverted(t *testing.T, data []byte) *dpe.Document {
	t.Helper()
	doc, err := dpe.Decode(data, dpe.Limits{})
	if err != nil {
		t.Fatalf("output is not a DPE document: %v\n%.400s", err, data)
	}
	for i := range doc.Pages {
		if err := doc.EnsurePage(i, dpe.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range dpe.Validate(doc) {
		if f.Severity == dpe.Violation {
			t.Errorf("violation: %v", f)
		}
	}
	return doc
}

func TestConvertPDFToStdout(t *testing.T) {
	code, out, errOut := runCLI(t, "convert", convertFixture("soffice.pdf"))
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	doc := decodeConverted(t, []byte(out))
	if doc.FileType != "pdf" || doc.PageCount != 1 || !strings.HasPrefix(doc.FileURI, "file:///") {
		t.Fatalf("file_type %q, page_count %d, file_uri %q", doc.FileType, doc.PageCount, doc.FileURI)
	}
	var titles, tables int
	for _, el := range doc.Pages[0].Elements {
		switch el.Category {
		case "Title":
			titles++
		case "Table":
			tables++
		}
	}
	if titles < 5 || tables != 1 {
		t.Errorf("%d titles, %d tables; want ≥ 5 and 1", titles, tables)
	}
}

func TestConvertXLSXToFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sales.dpe.json")
	code, stdout, errOut := runCLI(t, "convert", convertFixture("openpyxl.xlsx"), "-o", out)
	if code != exitOK || errOut != "" || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeConverted(t, data)
	if doc.FileType != "xlsx" || doc.PageCount != 2 || doc.Title != "Quarterly sales" {
		t.Fatalf("file_type %q, page_count %d, title %q", doc.FileType, doc.PageCount, doc.Title)
	}
	var html string
	json.Unmarshal(doc.Pages[0].Elements[0].Metadata["text_as_html"], &html)
	if !strings.Contains(html, `<td colspan="3">All regions</td>`) || !strings.Contains(html, "<td>2024-03-31</td>") {
		t.Errorf("sheet table: %s", html)
	}
	// No temporary file is left beside the output.
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 1 {
		t.Errorf("%d files in the output directory, want 1", len(ents))
	}
	// Private, as the TUI's exports are.
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("-o wrote mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}

func TestConvertStdin(t *testing.T) {
	f, err := os.Open(convertFixture("openpyxl.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	code, out, errOut := runCLI(t, "convert", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if doc := decodeConverted(t, []byte(out)); doc.FileType != "xlsx" || doc.PageCount != 2 || doc.URI != "dpe://local/stdin" {
		t.Fatalf("file_type %q, page_count %d, uri %q", doc.FileType, doc.PageCount, doc.URI)
	}
}

func TestConvertErrors(t *testing.T) {
	dir := t.TempDir()
	// An OLE2 compound file with a WordDocument stream name (UTF-16LE),
	// the shape of every Word 97–2003 file.
	ole := append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 504)...)
	for _, r := range "WordDocument" {
		ole = append(ole, byte(r), 0)
	}
	legacy := filepath.Join(dir, "report.doc")
	os.WriteFile(legacy, ole, 0o600)
	broken := filepath.Join(dir, "broken.pdf")
	os.WriteFile(broken, []byte("%PDF-1.7\n"+strings.Repeat("x", 300)), 0o600)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"convert", legacy}, exitRuntime, "dpe-tui: " + legacy + ": unsupported format: legacy Word binary; convert it to .docx first\n"},
		{[]string{"convert", broken}, exitRuntime, "dpe-tui: " + broken + ": damaged or truncated PDF"},
		{[]string{"convert", filepath.Join(dir, "missing.pdf")}, exitRuntime, "missing.pdf: no such file or directory\n"},
		{[]string{"convert"}, exitUsage, "convert needs exactly one file"},
		{[]string{"convert", legacy, "-o", filepath.Join(dir, "x.json")}, exitRuntime, "unsupported format"},
		{[]string{"convert", convertFixture("soffice.pdf"), "-o", filepath.Join(dir, "no", "such", "x.json")}, exitRuntime, filepath.Join(dir, "no", "such")},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, c.args...)
		if code != c.code || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, errOut, c.code, c.want)
		}
		if first, _, _ := strings.Cut(errOut, "\n"); c.code == exitRuntime && strings.TrimSpace(errOut) != first {
			t.Errorf("%q: stderr is more than one line: %q", c.args, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Error("an output file was written for a failed conversion")
	}
}

// convert refuses a FIFO, a device and a pseudo-filesystem file at once,
// with one line naming the file and the cause: opening a FIFO blocking
// would hang until a writer comes, deaf to SIGINT and SIGTERM, and
// /dev/zero would read as an endless (or "empty") file.
func TestConvertRefusesIrregularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.md")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "zero.pdf")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ file, cause string }{
		{fifo, "a FIFO"},
		{dir, "a directory"},
		{"/dev/zero", "/dev is a pseudo-filesystem"},
		{link, "/dev is a pseudo-filesystem"},
		{"/proc/self/status", "/proc is a pseudo-filesystem"},
	}
	for _, c := range cases {
		code, out, errOut := runBounded(t, "convert", c.file, "-o", filepath.Join(dir, "out.json"))
		want := "dpe-tui: " + c.file + ": not a regular file (" + c.cause + ")\n"
		if code != exitRuntime || out != "" || errOut != want {
			t.Errorf("convert %s: exit %d, stdout %q, stderr %q; want exit %d and %q", c.file, code, out, errOut, exitRuntime, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("an output file was written for a refused input")
	}
}

// convert -o onto what is not a regular file writes through it (a FIFO
// with a reader, a character device) or refuses, and never leaves a
// regular file where the FIFO, link or device was.
func TestConvertOutNeverReplacesFIFOSymlinkOrDevice(t *testing.T) {
	in := convertFixture("openpyxl.xlsx")
	dir := t.TempDir()

	t.Run("symlink", func(t *testing.T) {
		target := filepath.Join(dir, "real.json")
		link := filepath.Join(dir, "link.json")
		if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(target, 0o644); err != nil { // whatever the umask
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if code, _, errOut := runCLI(t, "convert", in, "-o", link); code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link was replaced by %v", st.Mode())
		}
		if st, _ := os.Stat(target); st.Mode().Perm() != 0o644 {
			t.Fatalf("the target's mode became %v, want it kept at 0644", st.Mode().Perm())
		}
		data, _ := os.ReadFile(target)
		decodeConverted(t, data)
	})
	t.Run("FIFO without a reader", func(t *testing.T) {
		p := filepath.Join(dir, "pipe")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip(err)
		}
		code, _, errOut := runCLI(t, "convert", in, "-o", p)
		if code == exitOK || !strings.Contains(errOut, "FIFO nobody is reading") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		if st, _ := os.Lstat(p); st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("the FIFO was replaced by %v", st.Mode())
		}
	})
	t.Run("FIFO with a reader", func(t *testing.T) {
		p := filepath.Join(dir, "pipe2")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip(err)
		}
		r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got := make(chan []byte, 1)
		go func() {
			var all []byte
			buf := make([]byte, 64<<10)
			// Until the writer comes, a read finds no writer and says EOF;
			// after its bytes, EOF means it has closed.
			for {
				n, err := r.Read(buf)
				all = append(all, buf[:n]...)
				if err != nil && len(all) > 0 {
					got <- all
					return
				}
				if n == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
		if code, _, errOut := runCLI(t, "convert", in, "-o", p); code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		decodeConverted(t, <-got)
		if st, _ := os.Lstat(p); st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("the FIFO was replaced by %v", st.Mode())
		}
	})
	t.Run("character device", func(t *testing.T) {
		p := filepath.Join(dir, "null")
		if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Skipf("mknod needs root: %v", err)
		}
		code, _, errOut := runCLI(t, "convert", in, "-o", p)
		if code != exitOK && strings.Contains(errOut, "operation not permitted") {
			t.Skipf("devices do not open on this file system: %s", errOut)
		}
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if st, _ := os.Lstat(p); st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("the device was replaced by %v", st.Mode())
		}
	})
}

// convert --timeout is the conversion's deadline: a document of 3,000,000
// tiny paragraphs (seconds of parsing before its output budget) is
// abandoned mid-parse with a LimitError naming the
// deadline and the time taken.
func TestConvertTimeoutStopsMidParse(t *testing.T) {
	p := filepath.Join(t.TempDir(), "docx-tiny-paragraphs.docx")
	writeHostile(t, "docx-tiny-paragraphs.docx", p)
	code, _, errOut := runCLI(t, "convert", "--timeout", "100ms", p)
	if code == exitOK || !strings.Contains(errOut, "conversion time in milliseconds over the limit: ") || !strings.Contains(errOut, " > 100") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "convert", "--timeout", "0s", p); code != exitUsage {
		t.Fatalf("--timeout 0s: exit %d, stderr %q", code, errOut)
	}
}

// A message whose Subject: is megabytes long holds it once, in its Title
// element: the document title, the page title and the heading's subject
// metadata are display lines, cut and saying so (they were four copies).
func TestConvertEMLHugeSubjectIsKeptOnce(t *testing.T) {
	subject := strings.Repeat("s", 8<<20)
	msg := "From: a@example.com\r\nTo: b@example.com\r\nSubject: " + subject + "\r\nContent-Type: text/plain\r\n\r\nbody\r\n"
	dir := t.TempDir()
	in, out := filepath.Join(dir, "header.eml"), filepath.Join(dir, "h.json")
	if err := os.WriteFile(in, []byte(msg), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "convert", in, "-o", out); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > len(subject)+64<<10 {
		t.Fatalf("output is %d bytes for a %d-byte subject: copied more than once", len(data), len(subject))
	}
	doc := decodeConverted(t, data)
	cut := fmt.Sprintf("(cut from %d bytes)", len(subject))
	ti := doc.Pages[0].Elements[0]
	for what, s := range map[string]string{"document title": doc.Title, "page title": doc.Pages[0].Title, "subject metadata": ti.MetaString("subject")} {
		if len(s) > 4<<10 || !strings.HasSuffix(s, cut) {
			t.Errorf("%s is %d bytes ending %q, want at most 4 KiB ending %q", what, len(s), s[max(0, len(s)-40):], cut)
		}
	}
	if ti.Category != "Title" || ti.Text != subject {
		t.Errorf("first element %s of %d bytes, want the whole subject as the Title", ti.Category, len(ti.Text))
	}
}

// TestConvert_WriteErrorNamesTheTarget: a failed -o names the file the
// user typed, not the temporary file written beside it.
func TestConvert_WriteErrorNamesTheTarget(t *testing.T) {
	cleanEnv(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.md")
	if err := os.WriteFile(in, []byte("# hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "missing", "out.json")
	code, _, errOut := runCLI(t, "convert", in, "-o", target)
	if code == 0 || !strings.Contains(errOut, "write "+target+": ") || strings.Count(errOut, filepath.Join(dir, "missing")) != 1 {
		t.Errorf("exit %d, stderr %q; want one error naming %s only", code, errOut, target)
	}
}
