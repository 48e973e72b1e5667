package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

const sampleJSON = `{"title":"Doc","pages":[{"page_index":1,"elements":[{"category":"Title","text":"Hi"},{"category":"Text","text":"x"}]}],"empty":{},"none":[],"n":1.5e3,"ok":true,"nil":null,"odd key":"v"}`

func TestJSON_PrettyPrintsWithPaths(t *testing.T) {
	lines := JSONView([]byte(sampleJSON), 80, NewTheme("notty"), nil, Limits{})
	var got []string
	for _, l := range lines {
		got = append(got, l.Path+"\t"+l.Text)
	}
	want := []string{
		"$\t{",
		"$.title\t  \"title\": \"Doc\",",
		"$.pages\t  \"pages\": [",
		"$.pages[0]\t    {",
		"$.pages[0].page_index\t      \"page_index\": 1,",
		"$.pages[0].elements\t      \"elements\": [",
		"$.pages[0].elements[0]\t        {",
		"$.pages[0].elements[0].category\t          \"category\": \"Title\",",
		"$.pages[0].elements[0].text\t          \"text\": \"Hi\"",
		"$.pages[0].elements[0]\t        },",
		"$.pages[0].elements[1]\t        {",
		"$.pages[0].elements[1].category\t          \"category\": \"Text\",",
		"$.pages[0].elements[1].text\t          \"text\": \"x\"",
		"$.pages[0].elements[1]\t        }",
		"$.pages[0].elements\t      ]",
		"$.pages[0]\t    }",
		"$.pages\t  ],",
		"$.empty\t  \"empty\": {},",
		"$.none\t  \"none\": [],",
		"$.n\t  \"n\": 1.5e3,",
		"$.ok\t  \"ok\": true,",
		"$.nil\t  \"nil\": null,",
		`$["odd key"]` + "\t  \"odd key\": \"v\"",
		"$\t}",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestJSON_FoldedPathsShowCounts(t *testing.T) {
	folded := map[string]bool{"$.pages[0].elements": true, "$.pages[0].elements[0]": true}
	out := strings.Join(JSON([]byte(sampleJSON), 80, NewTheme("notty"), folded), "\n")
	if !strings.Contains(out, `"elements": […] 2 items`) {
		t.Errorf("folded array not summarised:\n%s", out)
	}
	out = strings.Join(JSON([]byte(sampleJSON), 80, NewTheme("notty"), map[string]bool{"$": true}), "\n")
	if out != "{…} 8 keys" {
		t.Errorf("folded root = %q", out)
	}
	out = strings.Join(JSON([]byte(`{"a":{"b":1}}`), 80, NewTheme("notty"), map[string]bool{"$.a": true}), "\n")
	if !strings.Contains(out, `"a": {…} 1 key`) {
		t.Errorf("singular count: %q", out)
	}
}

func TestJSON_HostileStringsShownEscaped(t *testing.T) {
	raw := `{"t\u001b]0;x\u0007":"a\u001b[2Jb\u009b\u202e\n"}`
	out := strings.Join(JSON([]byte(raw), 200, NewTheme("dark"), nil), "\n")
	assertOnlySGR(t, "json", out)
	plain := ansi.Strip(out)
	for _, want := range []string{`\u001b[2J`, `\u009b`, `\u202e`, `\n`, `"t\u001b]0;x\u0007"`} {
		if !strings.Contains(plain, want) {
			t.Errorf("missing %q in %s", want, plain)
		}
	}
}

func TestJSON_InvalidShowsErrorAndText(t *testing.T) {
	out := JSON([]byte("not json \x1b[2J"), 80, NewTheme("notty"), nil)
	if len(out) < 2 || !strings.HasPrefix(out[0], "⚠ invalid JSON") || out[1] != "not json " {
		t.Errorf("got %q", out)
	}
	out = JSON([]byte(`{"a": [1, 2`), 80, NewTheme("notty"), nil)
	if last := out[len(out)-1]; !strings.Contains(last, "invalid JSON") || !strings.Contains(last, "unexpected EOF") {
		t.Errorf("truncated JSON: %q", out)
	}
}

func TestJSON_LimitsLinesDepthAndWidth(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("[")
	for i := range 1000 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `"%s"`, strings.Repeat("x", 300))
	}
	sb.WriteString("]")
	lines := JSONView([]byte(sb.String()), 50, NewTheme("dark"), nil, Limits{MaxJSONLines: 100})
	if len(lines) != 101 || !strings.Contains(lines[100].Text, "output cut at 100 lines") {
		t.Errorf("got %d lines, last %q", len(lines), lines[len(lines)-1].Text)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l.Text); w > 50 {
			t.Fatalf("line %d cells: %q", w, l.Text)
		}
	}
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	out := JSONView([]byte(deep), 400, NewTheme("notty"), nil, Limits{MaxJSONDepth: 10})
	if n := len(out); n != 21 || !strings.Contains(out[10].Text, "(depth limit)") {
		t.Errorf("depth-limited view has %d lines: %q", n, out[10].Text)
	}
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{sampleJSON, `[`, `{"a":`, `"\u001b"`, `1 2 3`, `{"a":[{}]}`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, l := range JSONView([]byte(in), 40, NewTheme("dark"), map[string]bool{"$[0]": true}, Limits{MaxJSONLines: 500}) {
			if ansi.StringWidth(l.Text) > 40 {
				t.Fatalf("wide line %q", l.Text)
			}
			assertOnlySGR(t, "fuzz json", l.Text)
		}
	})
}
