package protocol

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestSkillRef_DecodesSpecShapeAndDropsBadTags(t *testing.T) {
	raw := `{"skills":[
	 {"name":"mcp:com-example-docs:style","source":"mcp:com-example-docs","uri":"skill://docs/style","path":"/h/s","description":"House style","tags":["docs","style"],"version":"1.2.0"},
	 {"name":"my-helper","source":"user","path":"/h/u","description":"d","tags":"not-a-list","allowed_tools":[1,2]}]}`
	var ret GetSkillsRet
	if err := json.Unmarshal([]byte(raw), &ret); err != nil {
		t.Fatal(err)
	}
	if len(ret.Skills) != 2 {
		t.Fatalf("skills = %d", len(ret.Skills))
	}
	a, b := ret.Skills[0], ret.Skills[1]
	if a.Name != "mcp:com-example-docs:style" || a.Source != "mcp:com-example-docs" || a.Version != "1.2.0" || !reflect.DeepEqual([]string(a.Tags), []string{"docs", "style"}) {
		t.Errorf("first skill = %+v", a)
	}
	if b.Tags != nil || b.AllowedTools != nil || b.Description != "d" {
		t.Errorf("a tags value that is not list[str] must read as absent (skill.md §1.5): %+v", b)
	}
}

func TestGetSkillReq_RelPathOmittedForSKILLmd(t *testing.T) {
	b, _ := json.Marshal(GetSkillReq{AgentCallData: AgentCallData{Agent: "a", ReqID: "1"}, Computer: "c", Name: "s"})
	if strings.Contains(string(b), "rel_path") {
		t.Errorf("%s: rel_path absent means SKILL.md", b)
	}
	b, _ = json.Marshal(GetSkillReq{Computer: "c", Name: "s", RelPath: "ref/a.md"})
	if !strings.Contains(string(b), `"rel_path":"ref/a.md"`) {
		t.Errorf("%s", b)
	}
	b, _ = json.Marshal(GetBlobReq{Computer: "c", BlobHandle: "h"})
	if !strings.Contains(string(b), `"chunk_offset":0`) {
		t.Errorf("%s: chunk_offset is always sent", b)
	}
}

func TestSplitSkillMD_FrontmatterBlockBothFencesIncluded(t *testing.T) {
	for _, tc := range []struct{ in, front, body string }{
		{"---\nname: a\n---\n# T\n", "name: a\n", "# T\n"},
		{"\xef\xbb\xbf---\r\nname: a\r\n---\r\nbody", "name: a\r\n", "body"},
		{"# no front\n---\n", "", "# no front\n---\n"},
		{"---\nname: a\n", "", "---\nname: a\n"}, // unterminated: no frontmatter
		{"---\n---\n", "", ""},
	} {
		f, b := SplitSkillMD([]byte(tc.in))
		if string(f) != tc.front || string(b) != tc.body {
			t.Errorf("SplitSkillMD(%q) = %q, %q; want %q, %q", tc.in, f, b, tc.front, tc.body)
		}
	}
}

func TestParseFrontmatter_MarketplaceFields(t *testing.T) {
	fm, err := ParseFrontmatter([]byte("name: pdf-tools\ndescription: Work with PDFs\nversion: 2\ntags: [pdf, docs]\nallowed-tools: Bash Read\nmetadata:\n  owner: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if fm.Name != "pdf-tools" || fm.Description != "Work with PDFs" || fm.Version != "2" ||
		!reflect.DeepEqual(fm.Tags, []string{"pdf", "docs"}) || !reflect.DeepEqual(fm.AllowedTools, []string{"Bash", "Read"}) || fm.Metadata["owner"] != "x" {
		t.Errorf("%+v", fm)
	}
	fm, err = ParseFrontmatter([]byte("name: a\ntags: {x: 1}\n"))
	if err != nil || fm.Tags != nil {
		t.Errorf("tags as a map: %+v, %v; want absent", fm, err)
	}
	if _, err := ParseFrontmatter([]byte("name: [unclosed\n")); err == nil || !strings.Contains(err.Error(), "not YAML") {
		t.Errorf("bad YAML: %v", err)
	}
	if _, err := ParseFrontmatter(make([]byte, maxFrontmatter+1)); err == nil {
		t.Error("an oversized head must be refused")
	}
}

func FuzzSplitSkillMD(f *testing.F) {
	f.Add([]byte("---\nname: a\n---\nbody"))
	f.Add([]byte("---\r\n---"))
	f.Fuzz(func(t *testing.T, b []byte) {
		front, body := SplitSkillMD(b)
		if front == nil && string(body) != string(b) {
			t.Fatalf("no frontmatter but body changed")
		}
		if len(front)+len(body) > len(b) {
			t.Fatalf("split grew the input")
		}
		_, _ = ParseFrontmatter(front)
	})
}

func TestSkillError_SentencesNameSkillAndFileNeverDetails(t *testing.T) {
	secret := "SECRET-/home/alice/.skills"
	mk := func(code int, reason string) *Error {
		d, _ := json.Marshal(map[string]any{"reason": reason, "rel_path": secret})
		return &Error{Code: code, Message: "m " + secret, Details: d}
	}
	for _, tc := range []struct {
		code         int
		reason, path string
		want         string
	}{
		{4014, "", "", "there is no skill pdf-tools on computer c1 (4014)"},
		{4016, "", "", `"pdf-tools" is not a valid skill name on computer c1 (4016)`},
		{4017, "traversal", "../x", "skill pdf-tools on computer c1: ../x is refused: a path with .. is not accepted (4017)"},
		{4017, "traversal", "assets/../notes.txt", "skill pdf-tools on computer c1: assets/../notes.txt is refused: a path with .. is not accepted (4017)"},
		{4017, "traversal", "/etc/passwd", "skill pdf-tools on computer c1: /etc/passwd is refused: an absolute path is not accepted (4017)"},
		{4017, "traversal", "out.txt", "skill pdf-tools on computer c1: out.txt is outside the skill's folder (4017)"},
		{4017, "forbidden", ".skillenv", "skill pdf-tools on computer c1: .skillenv may not be read (4017)"},
		{4017, "not_found", "", "skill pdf-tools on computer c1 has no file SKILL.md (4017)"},
		{4017, "too_large", "big.bin", "skill pdf-tools on computer c1: big.bin is larger than the computer will send (4017)"},
		{4017, "Some Thing", "a", "skill pdf-tools on computer c1: a cannot be read (4017)"},
		{4018, "gone", "img.png", "skill pdf-tools on computer c1: img.png is gone (removed or changed since it was listed) (4018)"},
		{4018, "range", "img.png", "skill pdf-tools on computer c1: img.png was asked for past its end (4018)"},
	} {
		err := NewSkillError(mk(tc.code, tc.reason), "c1", "pdf-tools", tc.path)
		if err.Error() != tc.want {
			t.Errorf("%d %s:\n got %q\nwant %q", tc.code, tc.reason, err, tc.want)
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("details or the peer's message reached the sentence: %q", err)
		}
		var perr *Error
		if !errors.As(err, &perr) || perr.Code != tc.code {
			t.Errorf("the payload must stay reachable with errors.As")
		}
	}
	if err := NewSkillError(&Error{Code: 500, Message: "x"}, "c", "s", ""); err.Error() != "500 Internal Error: x" {
		t.Errorf("other codes pass through: %q", err)
	}
}

func TestPickOptions_BothShapes(t *testing.T) {
	var in MCPServerInput
	raw := `{"id":"r","type":"pickString","options":["eu",{"label":"United States","value":"us"},{"value":"ap"},{"label":"no value"},7]}`
	if err := json.Unmarshal([]byte(raw), &in); err != nil {
		t.Fatal(err)
	}
	want := PickOptions{{"eu", "eu"}, {"United States", "us"}, {"ap", "ap"}}
	if !reflect.DeepEqual(in.Options, want) {
		t.Errorf("options = %+v, want %+v", in.Options, want)
	}
	b, _ := json.Marshal(PickOptions{{"A", "a"}})
	if string(b) != `[{"label":"A","value":"a"}]` {
		t.Errorf("written as %s, want the 0.3.2 shape", b)
	}
}

func TestSMCPTool_A2CToolMetaAndBundleID(t *testing.T) {
	var tool SMCPTool
	raw := `{"name":"docs__search","bundle_id":"docs","description":"","params_schema":{},"return_schema":null,
	 "meta":{"a2c_tool_meta":{"tags":["search"],"alias":"find","auto_apply":true}}}`
	if err := json.Unmarshal([]byte(raw), &tool); err != nil {
		t.Fatal(err)
	}
	tm, ok := tool.A2CToolMeta()
	if !ok || tool.BundleID != "docs" || !reflect.DeepEqual(tm.Tags, []string{"search"}) || *tm.Alias != "find" || !*tm.AutoApply {
		t.Errorf("%+v %+v %v", tool, tm, ok)
	}
	if _, ok := (SMCPTool{Meta: map[string]any{"a2c_tool_meta": "x"}}).A2CToolMeta(); ok {
		t.Error("a non-object a2c_tool_meta must read as absent")
	}
}
