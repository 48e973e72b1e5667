package contentcache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpev1/wire"
)

func TestGet_VerifiesTheHashBeforeUse(t *testing.T) {
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	obj := []byte(`{"category":"NarrativeText","text":"hello"}`)
	_, h, v := wire.ParseElement(obj)
	if v != nil {
		t.Fatal(v)
	}
	if _, ok := c.Get(h); ok {
		t.Fatal("an empty cache answered")
	}
	if err := c.Put(obj); err != nil {
		t.Fatal(err)
	}
	got, ok := c.Get(h)
	if !ok || string(got) != string(obj) {
		t.Fatalf("Get = %q, %v", got, ok)
	}
	// A file edited on disk no longer hashes to its name: not used, removed.
	p, _ := c.path(h)
	if err := os.WriteFile(p, []byte(`{"category":"NarrativeText","text":"forged"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Get(h); ok {
		t.Fatalf("a forged object was used: %q", got)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("the forged file is still there: %v", err)
	}
}

func TestPath_OnlyForADpe1Hash(t *testing.T) {
	c, _ := Open(t.TempDir())
	for _, h := range []string{"", "../../etc/passwd", "dpe1:" + strings.Repeat("g", 64), "sha256:" + strings.Repeat("a", 64)} {
		if p, ok := c.path(h); ok {
			t.Errorf("path(%q) = %s", h, p)
		}
	}
	if err := c.Put([]byte(`{"text":"no category"}`)); err == nil {
		t.Error("an invalid element object was kept")
	}
	if entries, _ := filepath.Glob(filepath.Join(c.dir, "*")); len(entries) != 0 {
		t.Errorf("files after refused puts: %v", entries)
	}
}

// A blob is kept under its sha256 reference and read back only while it
// still hashes to it; bytes that do not hash to the reference are refused.
func TestBlob_VerifiedBothWays(t *testing.T) {
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n not really")
	ref := blobRef(png)
	if err := c.PutBlob(ref, []byte("other bytes")); err == nil {
		t.Fatal("bytes that do not hash to the reference were kept")
	}
	if _, ok := c.GetBlob(ref); ok {
		t.Fatal("an empty cache answered")
	}
	if err := c.PutBlob(ref, png); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.GetBlob(ref); !ok || string(got) != string(png) {
		t.Fatalf("GetBlob = %q, %v", got, ok)
	}
	p, _ := c.blobPath(ref)
	if err := os.WriteFile(p, []byte("forged"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.GetBlob(ref); ok {
		t.Fatalf("a forged blob was used: %q", got)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("the forged file is still there: %v", err)
	}
	if err := c.PutBlob("../../etc/passwd", png); err == nil {
		t.Error("a non-reference became a path")
	}
}
