package skills

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func write(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// home is a skills folder with one good skill, hostile links and a secret.
func home(t *testing.T) *Folder {
	t.Helper()
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	write(t, outside, []byte("outside"))
	sk := filepath.Join(dir, "triage")
	write(t, filepath.Join(sk, "SKILL.md"), []byte("---\nname: triage\ndescription: Sort things.\ntags: [a, b]\n---\n# Triage\n\nRead [notes](notes/list.txt).\n"))
	write(t, filepath.Join(sk, "notes", "list.txt"), []byte("one\ntwo\n"))
	write(t, filepath.Join(sk, SkillEnv), []byte("TOKEN=hunter2\n"))
	write(t, filepath.Join(sk, "assets", "dot.png"), bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 300))
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(outside, filepath.Join(sk, "escape.txt")))
	must(os.Symlink("../"+SkillEnv, filepath.Join(sk, "notes", "env.txt")))
	must(os.Link(filepath.Join(sk, SkillEnv), filepath.Join(sk, "hard.txt")))
	write(t, filepath.Join(dir, "no-description", "SKILL.md"), []byte("---\nname: no-description\n---\nbody\n"))
	f, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestList_ServesSkillsWithDescriptionsOnly(t *testing.T) {
	f := home(t)
	got := f.List()
	if len(got) != 1 || got[0].Name != "triage" || got[0].Source != "user" || got[0].Description != "Sort things." ||
		len(got[0].Tags) != 2 || got[0].Path != filepath.Join(f.dir, "triage") {
		t.Fatalf("List = %+v", got)
	}
}

func TestGet_SkillMDIsItsBodyWithoutFrontmatter(t *testing.T) {
	ret, perr := home(t).Get("triage", "")
	if perr != nil {
		t.Fatal(perr)
	}
	want := "# Triage\n\nRead [notes](notes/list.txt).\n"
	sum := sha256.Sum256([]byte(want))
	if ret.Body == nil || *ret.Body != want || ret.RelPath != "SKILL.md" || ret.MimeType != "text/markdown" ||
		ret.TotalSize != int64(len(want)) || ret.SHA256 != hex.EncodeToString(sum[:]) || ret.BlobHandle != "" {
		t.Fatalf("Get = %+v", ret)
	}
}

func TestGet_PathRulesRefuseWithTypedErrors(t *testing.T) {
	f := home(t)
	for _, tc := range []struct {
		name, rel string
		code      int
		reason    string
	}{
		{"triage", "../no-description/SKILL.md", protocol.CodeSkillResource, "traversal"},
		{"triage", "/etc/passwd", protocol.CodeSkillResource, "traversal"},
		{"triage", "notes\\list.txt", protocol.CodeSkillResource, "traversal"},
		{"triage", "escape.txt", protocol.CodeSkillResource, "traversal"},
		{"triage", SkillEnv, protocol.CodeSkillResource, "forbidden"},
		{"triage", "notes/../" + SkillEnv, protocol.CodeSkillResource, "traversal"},
		{"triage", "notes/env.txt", protocol.CodeSkillResource, "forbidden"},
		{"triage", "hard.txt", protocol.CodeSkillResource, "forbidden"},
		{"triage", "missing.txt", protocol.CodeSkillResource, "not_found"},
		{"Triage", "", protocol.CodeSkillNameInvalid, ""},
		{"a:b:c", "", protocol.CodeSkillNameInvalid, ""},
		{"../triage", "", protocol.CodeSkillNameInvalid, ""},
		{"absent", "", protocol.CodeMCPServerNotFound, ""},
		{"acme:absent", "", protocol.CodeMCPServerNotFound, ""},
	} {
		_, perr := f.Get(tc.name, tc.rel)
		if perr == nil || perr.Code != tc.code || perr.DetailReason() != tc.reason {
			t.Errorf("Get(%q, %q) = %+v, want %d %s", tc.name, tc.rel, perr, tc.code, tc.reason)
		}
	}
}

func TestBlob_ChunksReassembleToTheAnnouncedBytes(t *testing.T) {
	f := home(t)
	ret, perr := f.Get("triage", "assets/dot.png")
	if perr != nil || ret.Body != nil || ret.BlobHandle == "" || ret.MimeType != "image/png" {
		t.Fatalf("Get png = %+v, %v", ret, perr)
	}
	var got []byte
	for off := int64(0); ; {
		c, perr := f.Blob(ret.BlobHandle, off, 500)
		if perr != nil {
			t.Fatal(perr)
		}
		b, err := base64.StdEncoding.DecodeString(c.Blob)
		if err != nil || c.ChunkOffset != off || c.TotalSize != ret.TotalSize || c.SHA256 != ret.SHA256 || len(b) > 500 {
			t.Fatalf("chunk at %d: %+v %v", off, c, err)
		}
		got = append(got, b...)
		off += int64(len(b))
		if c.EOF {
			break
		}
	}
	sum := sha256.Sum256(got)
	if int64(len(got)) != ret.TotalSize || hex.EncodeToString(sum[:]) != ret.SHA256 {
		t.Fatalf("reassembled %d bytes, sha %x; announced %d %s", len(got), sum, ret.TotalSize, ret.SHA256)
	}
	for _, tc := range []struct {
		handle string
		off    int64
		reason string
	}{
		{"nonsense", 0, "invalid_handle"},
		{mintHandle("triage", SkillEnv), 0, "forbidden"},
		{mintHandle("triage", "gone.bin"), 0, "gone"},
		{ret.BlobHandle, ret.TotalSize + 1, "range"},
		{ret.BlobHandle, -1, "range"},
	} {
		if _, perr := f.Blob(tc.handle, tc.off, 0); perr == nil || perr.Code != protocol.CodeBlobNotAccessible || perr.DetailReason() != tc.reason {
			t.Errorf("Blob(%q, %d) = %+v, want 4018 %s", tc.handle, tc.off, perr, tc.reason)
		}
	}
}
