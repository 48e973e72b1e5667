package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestHash_UpstreamNestingDepthVector: nesting_depth.json (core §2.8
// step 0, limit 64) through `hash`: single objects with --object,
// expanded documents as they are, each case both as its indented input
// and as its input_json text. At the limit the object hashes; over it,
// exit 1 and the first problem line names the vector's code at the object
// itself. For an expanded document the vector's path is relative to the
// offending object, so the element named there must be refused alone the
// same way.
func TestHash_UpstreamNestingDepthVector(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(vectorDir, "nesting_depth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Limit int `json:"limit"`
		Cases []struct {
			Name       string          `json:"name"`
			ObjectKind string          `json:"object_kind"`
			Input      json.RawMessage `json:"input"`
			InputJSON  string          `json:"input_json"`
			Accept     bool            `json:"accept"`
			Code       string          `json:"code"`
			Path       *string         `json:"path"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Limit != 64 || len(v.Cases) == 0 {
		t.Fatalf("nesting_depth.json: limit %d, %d cases, %v", v.Limit, len(v.Cases), err)
	}
	hashed := regexp.MustCompile(`^(content|page|doc)_hash dpe1:[0-9a-f]{64}\n$`)
	dir := t.TempDir()
	run := func(path, kind string) (int, string, string) {
		args := []string{"hash", path}
		if kind != "expanded_document" {
			args = append(args, "--object", kind)
		}
		return runCLI(t, args...)
	}
	for _, c := range v.Cases {
		for form, in := range map[string][]byte{"input": c.Input, "input_json": []byte(c.InputJSON)} {
			path := filepath.Join(dir, c.Name+"."+form+".json")
			if err := os.WriteFile(path, in, 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := run(path, c.ObjectKind)
			if c.Accept {
				if code != exitOK || !strings.HasPrefix(out, kindHash(c.ObjectKind)) || c.ObjectKind != "expanded_document" && !hashed.MatchString(out) {
					t.Errorf("%s (%s): exit %d, %q %s; want it hashed", c.Name, form, code, out, errOut)
				}
				continue
			}
			place, ok := firstProblem(errOut, c.Code)
			if code != exitRuntime || out != "" || !ok {
				t.Errorf("%s (%s): exit %d, stdout %q, stderr %q; want %s", c.Name, form, code, out, errOut, c.Code)
				continue
			}
			if c.ObjectKind != "expanded_document" {
				if pointerOf(place) != *c.Path {
					t.Errorf("%s (%s): problem at %q, want %q\n%s", c.Name, form, place, *c.Path, errOut)
				}
				continue
			}
			el := inlineElementAt(t, in, place)
			alone := filepath.Join(dir, c.Name+"."+form+".element.json")
			if err := os.WriteFile(alone, el, 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, errEl := run(alone, "element")
			if at, ok := firstProblem(errEl, c.Code); code != exitRuntime || !ok || pointerOf(at) != *c.Path {
				t.Errorf("%s (%s): refused at %s, but that element alone: exit %d %s; want %s at %q", c.Name, form, place, code, errEl, c.Code, *c.Path)
			}
		}
	}
}

// kindHash is what `hash` prints first for an object of the vector's
// object_kind.
func kindHash(kind string) string {
	switch kind {
	case "element":
		return "content_hash "
	case "page":
		return "page_hash "
	}
	return "doc_hash "
}

// firstProblem is the place of hash's first problem line when it names
// code: the JSON path as printed ("$" for the whole object).
func firstProblem(errOut, code string) (string, bool) {
	first, _, _ := strings.Cut(errOut, "\n")
	fields := strings.Fields(first)
	if len(fields) < 2 || fields[0] != code {
		return "", false
	}
	return strings.TrimSuffix(fields[1], ":"), true
}

// pointerOf is the JSON Pointer (the vectors' notation) of a JSON path
// hash prints ("$.pages[0]["a/b"]" → "/pages/0/a~1b").
func pointerOf(path string) string {
	var b strings.Builder
	rest := strings.TrimPrefix(path, "$")
	seg := func(k string) {
		b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
	}
	for rest != "" {
		switch {
		case rest[0] == '.':
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			seg(rest[1 : end+1])
			rest = rest[end+1:]
		case strings.HasPrefix(rest, `["`):
			dec := json.NewDecoder(strings.NewReader(rest[1:]))
			var k string
			if dec.Decode(&k) != nil {
				return path
			}
			seg(k)
			rest = rest[1+int(dec.InputOffset())+1:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return path
			}
			seg(rest[1:end])
			rest = rest[end+1:]
		default:
			return path
		}
	}
	return b.String()
}

// inlineElementAt is the element at hash's JSON path
// ($.pages[i].elements[j]) of an expanded document.
func inlineElementAt(t *testing.T, doc []byte, path string) []byte {
	t.Helper()
	m := regexp.MustCompile(`^\$\.pages\[(\d+)\]\.elements\[(\d+)\]$`).FindStringSubmatch(path)
	if m == nil {
		t.Fatalf("%q is not the place of an inline element", path)
	}
	pi, _ := strconv.Atoi(m[1])
	ei, _ := strconv.Atoi(m[2])
	var d struct {
		Pages []struct {
			Elements []json.RawMessage `json:"elements"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(doc, &d); err != nil || pi >= len(d.Pages) || ei >= len(d.Pages[pi].Elements) {
		t.Fatalf("no element at %s: %v", path, err)
	}
	return d.Pages[pi].Elements[ei]
}
