package ui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dpe-tui/dpe-tui/client"
)

// TestResources_FilterFindsNFDNamesTypedInNFC: a served folder's file
// saved on macOS (NFD: "e" and a combining accent, percent-encoded in its
// URI) is found by "café" typed on a keyboard (NFC), by its title too;
// "cafe" finds it, and "unicode" the titles written "Ünïcödé".
func TestResources_FilterFindsNFDNamesTypedInNFC(t *testing.T) {
	f := newFakeAgent(t)
	rs := []client.Resource{
		res("dpe://local.docs.in/cafe%CC%81%20re%CC%81sume%CC%81.odt", "Ünïcödé Test Report", "", nil),
		res("dpe://local.docs.in/doc.odt", "Ünïcödé Test Report", "", nil),
		res("dpe://local.docs.in/notes.md", "Cafe\u0301 notes", "", nil),
	}
	f.pages["nfd"] = map[string]*client.ResourcePage{"": {Resources: rs}}
	m := newTestModel(t, f)
	r := pushResources(t, m, "laptop", "nfd")
	for _, tc := range []struct {
		typed string
		want  int
	}{{"café", 2}, {"résumé", 1}, {"cafe", 2}, {"CAFÉ", 2}, {"unicode", 2}} {
		press(t, m, "/")
		for _, c := range tc.typed {
			press(t, m, string(c))
		}
		press(t, m, "enter")
		if len(r.visible) != tc.want {
			var uris []string
			for _, i := range r.visible {
				uris = append(uris, r.all[i].URI)
			}
			t.Errorf("filter %q kept %d rows %v, want %d", tc.typed, len(r.visible), uris, tc.want)
		}
	}
}

// TestSearch_FindsTextInTheOtherUnicodeForm: / finds "café" in a page
// that writes it in NFD, and one written in NFC, both.
func TestSearch_FindsTextInTheOtherUnicodeForm(t *testing.T) {
	file := filepath.Join(t.TempDir(), "nfd.md")
	if err := os.WriteFile(file, []byte("# Notes\n\nThe cafe\u0301 opens at eight.\n\nThe café closes at six.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startAt(t, openFileOptions(t, file, nil), 100, 20)
	s.waitFor("opens at eight")
	s.idle()
	s.keys("/")
	s.typeText("café")
	s.keys("enter")
	s.waitFor(`2 matches for "café"`)
	s.final()
}

// TestProfiles_PWithoutProfilesSaysSo: P where there is no profile to
// switch to says why, instead of doing nothing.
func TestProfiles_PWithoutProfilesSaysSo(t *testing.T) {
	s := start80(t, testOptions(newFakeAgent(t)))
	s.waitFor("build-box")
	s.keys("P")
	s.waitFor("no profiles to switch to")
	s.final()
}
