package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// A file converted by a name relative to the folder it was typed in
// ("../notes/plan.md") is exported with an absolute doc_ref, the file's
// cleaned path as the segments of its dpe://local URI, the same from any
// folder: convert -o and get --format json wrote "../notes/plan.md" (and a
// URI of "notes/plan.md", which the doc_ref did not agree with), so the
// export named the file only from where it was made. Its resolved-URI
// check (DPE-E045) passes.
func TestExport_DocRefIsAbsolute(t *testing.T) {
	cleanEnv(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	notes := filepath.Join(root, "my notes")
	work := filepath.Join(root, "work")
	for _, d := range []string{notes, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(notes, "plan.md"), "# Plan\n\nShip it.\n")
	abs, err := filepath.EvalSymlinks(filepath.Join(notes, "plan.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	rel := filepath.Join("..", "my notes", "..", "my notes", "plan.md")
	wantRef := strings.TrimPrefix(filepath.ToSlash(filepath.Join(root, "my notes", "plan.md")), "/")
	if strings.TrimPrefix(filepath.ToSlash(abs), "/") != wantRef {
		wantRef = strings.TrimPrefix(filepath.ToSlash(abs), "/") // a temp dir behind a symlink
	}
	out := filepath.Join(work, "plan.dpe.json")
	if code, o, e := runCLI(t, "convert", rel, "-o", out); code != 0 {
		t.Fatalf("convert: exit %d\n%s%s", code, o, e)
	}
	converted, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	code, got, errOut := runCLI(t, "get", rel, "--format", "json")
	if code != 0 {
		t.Fatalf("get: exit %d\n%s", code, errOut)
	}
	for name, body := range map[string][]byte{"convert -o": converted, "get --format json": []byte(got)} {
		doc := decodeConverted(t, body)
		if doc.DocRef != wantRef {
			t.Errorf("%s: doc_ref %q, want %q", name, doc.DocRef, wantRef)
		}
		u, err := dpe.ParseURI(doc.URI)
		if err != nil || u.DocRef() != doc.DocRef {
			t.Errorf("%s: uri %q does not agree with doc_ref %q (%v)", name, doc.URI, doc.DocRef, err)
			continue
		}
		for _, f := range dpe.Check(doc, dpe.CheckOptions{ResolvedURI: doc.URI}) {
			if f.Rule == dpe.RuleDocRefResolved {
				t.Errorf("%s: %v", name, f)
			}
		}
		for _, p := range doc.Pages {
			if p.DocRef != "" && p.DocRef != wantRef {
				t.Errorf("%s: page %d doc_ref %q", name, p.Index, p.DocRef)
			}
		}
	}
}
