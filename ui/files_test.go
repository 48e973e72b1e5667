package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExport_DocumentAndPageAsMarkdownOrJSONToNamedFile(t *testing.T) {
	tests := []struct {
		key, name, want string
		isJSON          bool
	}{
		{"e", "report.md", "Annual report 2026", false},
		{"e", "report.json", `"doc_ref"`, true},
		{"p", "page.md", "Revenue grew in every region.", false},
		{"p", "page.json", `"page_index"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAgent(t)
			m := newTestModel(t, f)
			m.e.opt.SaveDir = t.TempDir()
			run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
			press(t, m, tt.key)
			if !m.bar.active {
				t.Fatalf("%s should ask for a file name", tt.key)
			}
			m.bar.input.SetValue(tt.name)
			run(t, m, m.update(keyMsg("enter")))
			path := filepath.Join(m.e.opt.SaveDir, tt.name)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("export not written: %v (status %q)", err, m.e.status.text)
			}
			if !strings.Contains(string(b), tt.want) {
				t.Fatalf("%s does not contain %q:\n%s", tt.name, tt.want, b)
			}
			if tt.name == "report.md" {
				// The whole document, not only the pages visited: page 2
				// is inline and page 3 a manifest page, neither opened.
				for _, want := range []string{"Revenue grew in every region.", "South revenue recovered after Q1.", "Revenue is booked on delivery."} {
					if !strings.Contains(string(b), want) {
						t.Fatalf("the export lacks %q (every page must be loaded first):\n%s", want, b)
					}
				}
				if strings.Contains(string(b), "not loaded") {
					t.Fatalf("the export has a page that was not loaded:\n%s", b)
				}
			}
			if tt.isJSON && !json.Valid(b) {
				t.Fatalf("%s is not valid JSON", tt.name)
			}
			if !strings.Contains(m.e.status.text, "written to "+path) {
				t.Fatalf("status %q should say where it was written", m.e.status.text)
			}
			// A second export to the same name must not overwrite it.
			press(t, m, tt.key)
			m.bar.input.SetValue(tt.name)
			run(t, m, m.update(keyMsg("enter")))
			if !strings.Contains(m.e.status.text, "already exists") {
				t.Fatalf("status %q: an existing file must not be overwritten", m.e.status.text)
			}
		})
	}
}

func TestOpenMode_FailureShowsErrorWithRetry(t *testing.T) {
	opt := testOptions(nil)
	opt.Agent = nil
	opt.OpenTarget = filepath.Join(t.TempDir(), "missing.json")
	m := New(opt).m
	run(t, m, m.openTarget(opt.OpenTarget, nil))
	if es := m.errorS(); es == nil || !strings.Contains(es.info.full, "missing.json") {
		t.Fatalf("want the error screen naming the file:\n%s", frame(m))
	}
	if !strings.Contains(frame(m), "retry") {
		t.Fatalf("the error screen should offer retry:\n%s", frame(m))
	}
	if err := os.WriteFile(opt.OpenTarget, []byte(`{"title":"Now here","pages":[{"page_index":0,"elements":[{"category":"Title","text":"Now here"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	press(t, m, "r")
	if m.docS() == nil {
		t.Fatalf("r should retry the open; status %q\n%s", m.e.status.text, frame(m))
	}
}

func TestContent_BinaryOfferedForSaving(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.e.opt.SaveDir = t.TempDir()
	run(t, m, m.openDPE(openURIMsg{uri: binaryURI}))
	if m.contentS() == nil || !strings.Contains(frame(m), "Press s to save it") {
		t.Fatalf("binary content should be offered for saving:\n%s", frame(m))
	}
	press(t, m, "s")
	name := m.bar.input.Value()
	run(t, m, m.update(keyMsg("enter")))
	b, err := os.ReadFile(filepath.Join(m.e.opt.SaveDir, name))
	if err != nil || len(b) != 8 {
		t.Fatalf("saved %q: %v (%d bytes)", name, err, len(b))
	}
}
