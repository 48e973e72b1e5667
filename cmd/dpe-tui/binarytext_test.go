package main

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_BinaryBytesNamedAsTextAreRefused: random bytes saved as .txt or
// .md are one line naming the file, not pages of mojibake that check then
// finds full of control characters; a text with a stray control character
// converts without it, and check passes what convert wrote.
func TestGet_BinaryBytesNamedAsTextAreRefused(t *testing.T) {
	cleanEnv(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	junk := make([]byte, 20000)
	for i := range junk {
		junk[i] = byte(r.UintN(256))
	}
	for _, name := range []string{"garbage.txt", "garbage.md", "garbage.csv"} {
		p := filepath.Join(dir, name)
		writeFile(t, p, string(junk))
		code, out, errOut := runCLI(t, "get", p)
		if code != exitRuntime || out != "" || !strings.Contains(errOut, name+": binary content, not text") {
			t.Errorf("get %s: exit %d, %d bytes out, %q", name, code, len(out), errOut)
		}
		oneLine(t, name, errOut)
	}
	p := filepath.Join(dir, "stray.txt")
	writeFile(t, p, "line one\x01 with a stray\nand\vthe next line\n")
	code, out, errOut := runCLI(t, "get", "--format", "text", p)
	if code != exitOK || strings.ContainsRune(out, '\x01') || !strings.Contains(out, "line one with a stray") {
		t.Errorf("get stray.txt: exit %d %q %q", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "check", "--strict", p); code != exitOK {
		t.Errorf("check --strict stray.txt: exit %d\n%s%s", code, out, errOut)
	}
}

// Bytes with no NUL and no control character but hardly any ASCII (random
// high bytes, a binary's body) named .md are refused by get and convert
// with one line naming the file: read as Windows-1252 every byte was a
// character, and a page of "¢Ážþóøáµ˜ü‡ã" came out, exit 0. A real
// Windows-1252 text still reads.
func TestGetConvert_HighBytesNamedMarkdownAreRefused(t *testing.T) {
	cleanEnv(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	junk := make([]byte, 20000)
	for i := range junk {
		junk[i] = byte(0xA0 + r.UintN(0x60)) // printable in Windows-1252
	}
	p := filepath.Join(dir, "notes.md")
	writeFile(t, p, string(junk))
	for _, args := range [][]string{{"get", p}, {"get", p, "--format", "json"}, {"convert", p}} {
		code, out, errOut := runCLI(t, args...)
		if code != exitRuntime || out != "" || !strings.Contains(errOut, p+": binary content, not text") {
			t.Errorf("%v: exit %d, %d bytes out, %q", args, code, len(out), errOut)
		}
		oneLine(t, strings.Join(args, " "), errOut)
	}
	latin := filepath.Join(dir, "menu.md")
	writeFile(t, latin, "# Menu\n\nCaf\xe9 cr\xe8me br\xfbl\xe9e, na\xefve fa\xe7ade.\n")
	if code, out, errOut := runCLI(t, "get", latin, "--format", "text"); code != exitOK || !strings.Contains(out, "Café crème brûlée") {
		t.Errorf("a Windows-1252 text: exit %d %q %q", code, out, errOut)
	}
}
