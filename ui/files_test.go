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
		{"E", "page.md", "Revenue grew in every region.", false},
		{"E", "page.json", `"page_index"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAgent(t)
			m := newTestModel(t, f)
			m.opt.SaveDir = t.TempDir()
			run(t, m, m.openDPE(reportURI, nil))
			press(t, m, tt.key)
			if !m.bar.active {
				t.Fatalf("%s should ask for a file name", tt.key)
			}
			m.bar.input.SetValue(tt.name)
			run(t, m, m.update(keyMsg("enter")))
			path := filepath.Join(m.opt.SaveDir, tt.name)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("export not written: %v (status %q)", err, m.status.text)
			}
			if !strings.Contains(string(b), tt.want) {
				t.Fatalf("%s does not contain %q:\n%s", tt.name, tt.want, b)
			}
			if tt.isJSON && !json.Valid(b) {
				t.Fatalf("%s is not valid JSON", tt.name)
			}
			if !strings.Contains(m.status.text, "written to "+path) {
				t.Fatalf("status %q should say where it was written", m.status.text)
			}
			// A second export to the same name must not overwrite it.
			press(t, m, tt.key)
			m.bar.input.SetValue(tt.name)
			run(t, m, m.update(keyMsg("enter")))
			if !strings.Contains(m.status.text, "already exists") {
				t.Fatalf("status %q: an existing file must not be overwritten", m.status.text)
			}
		})
	}
}

func TestOpenMode_FailureShowsErrorWithRetry(t *testing.T) {
	opt := testOptions(nil)
	opt.Agent = nil
	opt.OpenTarget = filepath.Join(t.TempDir(), "missing.json")
	m := New(opt).m
	run(t, m, m.openTarget(opt.OpenTarget))
	if m.screen != screenError || !strings.Contains(m.fatal, "missing.json") {
		t.Fatalf("screen %d fatal %q: want the error screen naming the file", m.screen, m.fatal)
	}
	if !strings.Contains(frame(m), "retry") {
		t.Fatalf("the error screen should offer retry:\n%s", frame(m))
	}
	if err := os.WriteFile(opt.OpenTarget, []byte(`{"title":"Now here","pages":[{"page_index":0,"elements":[{"category":"Title","text":"Now here"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	press(t, m, "r")
	if m.screen != screenDocument || m.doc == nil {
		t.Fatalf("r should retry the open; screen %d status %q", m.screen, m.status.text)
	}
}

func TestContent_BinaryOfferedForSaving(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.opt.SaveDir = t.TempDir()
	run(t, m, m.openDPE(binaryURI, nil))
	if m.screen != screenContent || !strings.Contains(frame(m), "Press s to save it") {
		t.Fatalf("binary content should be offered for saving:\n%s", frame(m))
	}
	press(t, m, "s")
	name := m.bar.input.Value()
	run(t, m, m.update(keyMsg("enter")))
	b, err := os.ReadFile(filepath.Join(m.opt.SaveDir, name))
	if err != nil || len(b) != 8 {
		t.Fatalf("saved %q: %v (%d bytes)", name, err, len(b))
	}
}
