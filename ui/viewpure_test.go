package ui

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// fingerprint writes down the state reachable from v: every field of our
// own types, through pointers, interfaces, slices and maps, as text. Two
// fingerprints differ when anything a View could change differs. It does
// not follow what is not state: funcs, channels, locks, and pointers into
// other modules' types (contexts, renderers' caches, the terminal), whose
// insides are theirs.
func fingerprint(v any, skip ...reflect.Type) string {
	var b strings.Builder
	fp := fingerprinter{seen: map[uintptr]int{}, b: &b, skip: skip}
	fp.walk(reflect.ValueOf(v), 0)
	return b.String()
}

type fingerprinter struct {
	seen map[uintptr]int
	b    *strings.Builder
	// skip are types written as their name only (the env, when each
	// screen is fingerprinted apart from it).
	skip []reflect.Type
}

const ourModule = "github.com/dpe-tui/dpe-tui"

// ours: a named type of this module, or an unnamed composite of them.
func ours(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		if t.Name() == "" {
			return ours(t.Elem())
		}
	}
	if t.Name() == "" || t.PkgPath() == "" {
		return true // builtin: string, int, []byte, …
	}
	return strings.HasPrefix(t.PkgPath(), ourModule)
}

func (f *fingerprinter) walk(v reflect.Value, depth int) {
	if depth > 60 {
		f.b.WriteString("…")
		return
	}
	if !v.IsValid() {
		f.b.WriteString("nil")
		return
	}
	switch v.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		fmt.Fprintf(f.b, "<%s %v>", v.Kind(), !v.IsNil())
		return
	case reflect.Uintptr:
		f.b.WriteString("<uintptr>")
		return
	}
	for _, t := range f.skip {
		if v.Type() == t {
			fmt.Fprintf(f.b, "<%s>", t)
			return
		}
	}
	if p := v.Type().PkgPath(); p == "sync" || p == "sync/atomic" || p == "context" {
		f.b.WriteString("<sync>")
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			f.b.WriteString("nil")
			return
		}
		if !ours(v.Type().Elem()) {
			fmt.Fprintf(f.b, "<%s>", v.Type())
			return
		}
		if id, ok := f.seen[v.Pointer()]; ok {
			fmt.Fprintf(f.b, "@%d", id)
			return
		}
		f.seen[v.Pointer()] = len(f.seen)
		f.b.WriteString("&")
		f.walk(v.Elem(), depth+1)
	case reflect.Interface:
		if v.IsNil() {
			f.b.WriteString("nil")
			return
		}
		fmt.Fprintf(f.b, "(%s)", v.Elem().Type())
		f.walk(v.Elem(), depth+1)
	case reflect.Struct:
		t := v.Type()
		f.b.WriteString("{")
		for i := range t.NumField() {
			fmt.Fprintf(f.b, "%s:", t.Field(i).Name)
			f.walk(v.Field(i), depth+1)
			f.b.WriteString(" ")
		}
		f.b.WriteString("}")
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			f.b.WriteString("nil")
			return
		}
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			fmt.Fprintf(f.b, "%d:%q", v.Len(), v.Bytes())
			return
		}
		f.b.WriteString("[")
		for i := range v.Len() {
			f.walk(v.Index(i), depth+1)
			f.b.WriteString(",")
		}
		f.b.WriteString("]")
	case reflect.Map:
		if v.IsNil() {
			f.b.WriteString("nil")
			return
		}
		// Values in the order of their keys, so that pointer numbers do
		// not follow the map's random order.
		type entry struct {
			k string
			v reflect.Value
		}
		var es []entry
		for it := v.MapRange(); it.Next(); {
			var kb strings.Builder
			(&fingerprinter{seen: map[uintptr]int{}, b: &kb, skip: f.skip}).walk(it.Key(), depth+1)
			es = append(es, entry{kb.String(), it.Value()})
		}
		sort.Slice(es, func(i, j int) bool { return es[i].k < es[j].k })
		f.b.WriteString("map[")
		for _, e := range es {
			f.b.WriteString(e.k + ":")
			f.walk(e.v, depth+1)
			f.b.WriteString(",")
		}
		f.b.WriteString("]")
	case reflect.String:
		fmt.Fprintf(f.b, "%q", v.String())
	case reflect.Bool:
		fmt.Fprint(f.b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		fmt.Fprint(f.b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		fmt.Fprint(f.b, v.Uint())
	case reflect.Float32, reflect.Float64:
		fmt.Fprint(f.b, v.Float())
	case reflect.Complex64, reflect.Complex128:
		fmt.Fprint(f.b, v.Complex())
	default:
		fmt.Fprintf(f.b, "<%s>", v.Kind())
	}
}

// firstDiff is where two fingerprints part, with some context.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("before: …%s…\nafter:  …%s…", a[from:min(len(a), i+120)], b[from:min(len(b), i+120)])
}

// viewParts fingerprints the model by part: the env, the root's own
// fields, and each screen apart (named by its place and type).
func viewParts(m *model) map[string]string {
	envT := reflect.TypeOf(m.e)
	// The renderer's caches are its memo of pure functions (the same
	// element and width give the same lines), behind its own lock.
	rT := reflect.TypeOf(m.e.renderer)
	out := map[string]string{"env": fingerprint(m.e, rT)}
	root := *m
	root.stack, root.overlay, root.underHelp = nil, nil, nil
	out["root"] = fingerprint(&root, envT, rT)
	for i, s := range m.stack {
		out[fmt.Sprintf("stack[%d] %T", i, s)] = fingerprint(s, envT, rT)
	}
	if m.overlay != nil {
		out[fmt.Sprintf("overlay %T", m.overlay)] = fingerprint(m.overlay, envT, rT)
	}
	if m.underHelp != nil {
		out[fmt.Sprintf("underHelp %T", m.underHelp)] = fingerprint(m.underHelp, envT, rT)
	}
	return out
}

// viewOnlyReads fails the test when drawing m changes it: View twice,
// the state before and after must be the same, and so must the frames.
func viewOnlyReads(t *testing.T, name string, m *model) {
	t.Helper()
	before := viewParts(m)
	f1 := m.view().Content
	f2 := m.view().Content
	after := viewParts(m)
	for part, fp := range before {
		if after[part] != fp {
			t.Errorf("%s: View changed %s:\n%s", name, part, firstDiff(fp, after[part]))
		}
	}
	if f1 != f2 {
		t.Errorf("%s: two Views of one state differ", name)
	}
}

// typeInto types text, one key a rune.
func typeInto(t *testing.T, m *model, text string) {
	t.Helper()
	for _, r := range text {
		press(t, m, string(r))
	}
}

// TestView_OnlyReads: for every screen and overlay, in several states and
// after a resize that leaves the selection outside the new height, View
// changes nothing: layout (clamps, heights, caches) is Update's.
func TestView_OnlyReads(t *testing.T) {
	resizes := [][2]int{{80, 24}, {60, 7}, {120, 40}, {40, 5}}
	check := func(t *testing.T, name string, m *model) {
		t.Helper()
		viewOnlyReads(t, name, m)
		for _, sz := range resizes {
			run(t, m, m.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]}))
			viewOnlyReads(t, fmt.Sprintf("%s at %dx%d", name, sz[0], sz[1]), m)
		}
		run(t, m, m.update(tea.WindowSizeMsg{Width: 80, Height: 24}))
	}
	office := func(t *testing.T) *model {
		m := newTestModel(t, newFakeAgent(t))
		listOffice(t, m)
		return m
	}
	for _, sc := range []struct {
		name string
		make func(t *testing.T) *model
		// then: states reached from it one after another.
		then [][]string
	}{
		{"office", office, [][]string{{"G"}, {"/", "l", "a", "p", "enter"}, {"esc"}, {"?"}, {"esc", "E"}}},
		{"servers", func(t *testing.T) *model {
			m := office(t)
			press(t, m, "down", "enter")
			return m
		}, [][]string{{"G"}, {"tab"}, {"g"}}},
		{"resources", func(t *testing.T) *model {
			m := office(t)
			pushResources(t, m, "laptop", "library")
			return m
		}, [][]string{{"G"}, {"m"}, {"G"}, {"/", "r", "e", "enter"}, {"esc", "esc"}}},
		{"document", func(t *testing.T) *model { return openTables(t, 80, 24) },
			[][]string{{"G"}, {"]"}, {"["}, {"t", "l", "l"}, {"enter"}, {"esc", "esc"}, {"v"}, {"G"}, {"esc", "."}, {"G"}, {"esc", "x"}, {"esc", "?"}, {"esc", "/", "v", "a", "l", "u", "e", "enter"}, {"n"}, {"S"}, {"G"}, {"esc"}, {"\\"}}},
		{"finder", func(t *testing.T) *model {
			m := office(t)
			press(t, m, "F")
			typeInto(t, m, "revenue")
			press(t, m, "enter")
			return m
		}, [][]string{{"G"}, {"enter"}}},
		{"profiles", func(t *testing.T) *model {
			opt, _, _ := twoProfiles(t)
			m := New(opt).m
			listOffice(t, m)
			press(t, m, "P")
			return m
		}, [][]string{{"G"}, {"esc"}}},
		{"error", func(t *testing.T) *model {
			m := office(t)
			m.e.setErr("open dpe://h/x", fmt.Errorf("get_dpe failed. %s", strings.Repeat("word ", 200)))
			press(t, m, "E")
			return m
		}, [][]string{{"G"}}},
		{"connect failed", func(t *testing.T) *model {
			m := New(Options{Theme: "dark", Width: 80, Height: 24, StatusTimeout: -1, Connect: func(context.Context) (Agent, error) { return nil, nil }}).m
			m.update(connectFailedMsg{err: fmt.Errorf("dial tcp 127.0.0.1:1: connection refused")})
			return m
		}, [][]string{{"G"}}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			m := sc.make(t)
			check(t, sc.name, m)
			for i, keys := range sc.then {
				press(t, m, keys...)
				check(t, fmt.Sprintf("%s %d %v", sc.name, i, keys), m)
			}
		})
	}
}

// TestList_ResizeKeepsTheCursorInView: layout runs in Update, so after a
// resize that leaves the selected row below the new height the next frame
// shows it, marked, on every list screen.
func TestList_ResizeKeepsTheCursorInView(t *testing.T) {
	f := newFakeAgent(t)
	for i := range 30 {
		f.computers = append(f.computers, protocol.SessionInfo{SID: fmt.Sprint("x", i), Name: fmt.Sprintf("box-%02d", i), Role: protocol.RoleComputer})
	}
	m := newTestModel(t, f)
	listOffice(t, m)
	press(t, m, "G")
	run(t, m, m.update(tea.WindowSizeMsg{Width: 80, Height: 8}))
	if fr := frame(m); !strings.Contains(fr, "▌ laptop") || strings.Count(fr, "box-") != 8-chromeHeight-1-1 {
		t.Fatalf("the office's last row is not shown selected, under as many rows as fit, after the resize:\n%s", fr)
	}
	r := pushResources(t, m, "laptop", "library")
	run(t, m, m.update(tea.WindowSizeMsg{Width: 80, Height: 24}))
	press(t, m, "G")
	run(t, m, m.update(tea.WindowSizeMsg{Width: 80, Height: 14}))
	if fr := frame(m); r.list.cur != len(r.visible)-1 || !strings.Contains(fr, "▌ README") || !strings.Contains(fr, "Meeting notes") {
		t.Fatalf("the last resource is not shown selected after the resize (cursor %d):\n%s", r.list.cur, fr)
	}
}
