package main

import (
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/ui"
)

// TestTUI_OpenShowsTextMarkdownWouldEat: `dpe-tui open FILE` of a text
// whose paragraphs look like Markdown to the renderer (emphasis stars,
// an XML sample) shows every word the document holds; Markdown drops raw
// HTML, so "plain *** text <tag> end" showed as "plain *** text  end"
// while `get --format text` printed it whole.
func TestTUI_OpenShowsTextMarkdownWouldEat(t *testing.T) {
	file := filepath.Join(t.TempDir(), "stars.txt")
	body := "plain *** text <tag> end\n\n" +
		"**Example** <?xml version=\"1.0\"?> <mime-info xmlns=\"http://www.freedesktop.org/standards/shared-mime-info\">\n\n" +
		"no stars <tag> end\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var f tuiFlags
	fs := pflag.NewFlagSet("dpe-tui", pflag.ContinueOnError)
	f.globalFlags.register(fs)
	f.define(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	f.Embedded.cmd = "open"
	opt, done, err := tuiOptions(&f, file, nil, nil, &tuiNotice{})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	opt.Width, opt.Height = 120, 24
	tm := teatest.NewTestModel(t, frameProbe{ui.New(opt)}, teatest.WithInitialTermSize(120, 24),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	l := &localTUI{t: t, tm: tm}
	l.waitFor("plain *** text <tag> end", "<?xml version=\"1.0\"?> <mime-info", "no stars <tag> end")
	l.quit()
}
