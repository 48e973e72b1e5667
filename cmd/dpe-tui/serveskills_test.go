package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/stack"
)

// An agent speaking 0.4 lists and reads the skills of `serve --a2c-version
// 0.4.0 --skills DIR`: SKILL.md without its frontmatter, a text file
// inline, a binary file through get_blob in chunks; the sandbox refuses
// traversal, a symlink out of the package and .skillenv with the skill
// channel's typed errors.
func TestServe04_SkillsAndBlobsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	sk := filepath.Join(dir, "field-notes")
	for p, b := range map[string]string{
		"SKILL.md":          "---\nname: field-notes\ndescription: Keep field notes tidy.\ntags: [notes]\n---\n# Field notes\n\nSee [the template](templates/day.txt).\n",
		"templates/day.txt": "Date:\nWeather:\nObservations:\n",
		".skillenv":         "API_TOKEN=do-not-leak\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(sk, p)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sk, p), []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	png := bytes.Repeat([]byte("\x89PNG\r\n\x1a\n-binary-"), 9000) // 153 KB: several chunks
	if err := os.WriteFile(filepath.Join(sk, "map.png"), png, 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(outside, []byte("root:x:0:0"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(sk, "out.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".skillenv", filepath.Join(sk, "env.txt")); err != nil {
		t.Fatal(err)
	}

	url := startServe(t, "--a2c-version", "0.4.0", "--skills", dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: url, Office: "demo", Name: "reader", Version: protocol.Version04})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	refs, err := c.Skills(ctx, stack.ComputerAlpha)
	if err != nil || len(refs) != 1 || refs[0].Name != "field-notes" || refs[0].Description != "Keep field notes tidy." || len(refs[0].Tags) != 1 {
		t.Fatalf("skills of alpha: %+v, %v", refs, err)
	}
	md, err := c.ReadSkillFile(ctx, stack.ComputerAlpha, "field-notes", "", client.SkillFileOptions{})
	if err != nil || string(md.Data) != "# Field notes\n\nSee [the template](templates/day.txt).\n" || md.Blob {
		t.Fatalf("SKILL.md: %+v, %v", md, err)
	}
	txt, err := c.ReadSkillFile(ctx, stack.ComputerAlpha, "field-notes", "templates/day.txt", client.SkillFileOptions{})
	if err != nil || string(txt.Data) != "Date:\nWeather:\nObservations:\n" || txt.Blob {
		t.Fatalf("text file: %+v, %v", txt, err)
	}
	bin, err := c.ReadSkillFile(ctx, stack.ComputerAlpha, "field-notes", "map.png", client.SkillFileOptions{MaxChunkBytes: 32 << 10})
	if err != nil || !bin.Blob || sha256.Sum256(bin.Data) != sha256.Sum256(png) || bin.MimeType != "image/png" {
		t.Fatalf("binary file: blob %v, %d bytes, %v", bin != nil && bin.Blob, len(bin.Data), err)
	}
	for _, tc := range []struct {
		rel    string
		code   int
		reason string
	}{
		{"../field-notes/SKILL.md", protocol.CodeSkillResource, "traversal"},
		{"out.txt", protocol.CodeSkillResource, "traversal"},
		{".skillenv", protocol.CodeSkillResource, "forbidden"},
		{"env.txt", protocol.CodeSkillResource, "forbidden"},
		{"nothing.txt", protocol.CodeSkillResource, "not_found"},
	} {
		_, err := c.ReadSkillFile(ctx, stack.ComputerAlpha, "field-notes", tc.rel, client.SkillFileOptions{})
		var se *protocol.SkillError
		if !errors.As(err, &se) || se.Code != tc.code || se.Reason != tc.reason {
			t.Errorf("%s: %v, want a %d %s SkillError", tc.rel, err, tc.code, tc.reason)
		}
		if err != nil && strings.Contains(err.Error(), "do-not-leak") {
			t.Errorf("%s: the secret leaked: %v", tc.rel, err)
		}
	}
	_, err = c.ReadSkillFile(ctx, stack.ComputerAlpha, "Field_Notes", "", client.SkillFileOptions{})
	if se := (*protocol.SkillError)(nil); !errors.As(err, &se) || se.Code != protocol.CodeSkillNameInvalid {
		t.Errorf("bad name: %v, want 4016", err)
	}
}

// The embedded demo shows its two skills, each with a text file and a
// binary one that arrive whole.
func TestDemo_ShowsTwoSkillsWithTextAndBinaryFiles(t *testing.T) {
	st := startStack(t, "http")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: st.URL, Office: st.Office, Name: "reader"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	refs, err := c.Skills(ctx, stack.ComputerAlpha)
	if err != nil || len(refs) != 2 || refs[0].Name != stack.SkillDPEReview || refs[1].Name != stack.SkillPDFTriage {
		t.Fatalf("demo skills: %+v, %v", refs, err)
	}
	for _, f := range []struct{ skill, rel, mime, prefix string }{
		{stack.SkillDPEReview, "references/checklist.md", "text/markdown", "# DPE review checklist"},
		{stack.SkillDPEReview, "assets/badge.png", "image/png", "\x89PNG\r\n\x1a\n"},
		{stack.SkillPDFTriage, "references/rules.txt", "text/plain", "PDF triage rules"},
		{stack.SkillPDFTriage, "assets/sample.pdf", "application/pdf", "%PDF-1.4"},
	} {
		got, err := c.ReadSkillFile(ctx, stack.ComputerAlpha, f.skill, f.rel, client.SkillFileOptions{})
		if err != nil || got.MimeType != f.mime || !strings.HasPrefix(string(got.Data), f.prefix) {
			t.Errorf("%s/%s: %v", f.skill, f.rel, err)
		}
	}
	md, err := c.ReadSkillFile(ctx, stack.ComputerAlpha, stack.SkillPDFTriage, "", client.SkillFileOptions{})
	if err != nil || !strings.HasPrefix(string(md.Data), "# PDF triage") {
		t.Errorf("pdf-triage SKILL.md: %v", err)
	}
}
