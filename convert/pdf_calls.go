package convert

import (
	"context"
	"math"
	"reflect"
	"unsafe"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/tetratelabs/wazero/api"
)

// Every call into PDFium is killable (guard): the runtime compiles PDFium
// with a check at each loop head that ends a call once its module is
// closed (wazero's WithCloseOnContextDone), and inst.Kill closes it. That
// option also makes wazero start a goroutine for every call, to close the
// module when the call's context ends; reading a page's text is several
// calls per character, and those goroutines were three quarters of a
// conversion's CPU time (5.2 s of 6.3 s on Debian's 193 manual pages).
// guard never needs them: it kills with inst.Kill, which closes the module
// itself, and the compiled checks end the call in flight just the same.
//
// pdfUnwatchCalls turns the goroutine off for the compiled PDFium behind
// inst (all instances of its runtime share it) and reports whether it
// did. wazero keeps the switch in an unexported field of its compiled
// module, reached by reflection through go-pdfium's and wazero's internal
// types; if a new version moves it, nothing is changed and calls stay
// watched (slower, still killable), and TestPDFUnwatchCalls says so.
func pdfUnwatchCalls(inst pdfium.Pdfium) bool {
	f, ok := pdfWatchSwitch(inst)
	if !ok || !f.Bool() {
		return false
	}
	f.SetBool(false)
	return true
}

// pdfWatchSwitch is the settable ensureTermination of the compiled module
// behind inst, ok false when it is not where this wazero keeps it.
func pdfWatchSwitch(inst pdfium.Pdfium) (f reflect.Value, ok bool) {
	defer func() {
		if recover() != nil {
			f, ok = reflect.Value{}, false
		}
	}()
	mod, ok := pdfModule(inst)
	if !ok {
		return reflect.Value{}, false
	}
	// The api.Module is a *wasm.ModuleInstance → its Engine
	// (*wazevo.moduleEngine) → parent (*wazevo.compiledModule).
	v := reflect.ValueOf(mod).Elem().FieldByName("Engine").Elem()
	f = v.Elem().FieldByName("parent").Elem().FieldByName("ensureTermination")
	if f.Kind() != reflect.Bool {
		return reflect.Value{}, false
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), true
}

// pdfChars reads a text page's characters with one call into PDFium each
// (a character's code, loose box or origin). go-pdfium's own requests
// allocate and free the out-parameters in the module around every call
// (malloc, memset, the call, free: four calls for a box, seven for an
// origin), and each call into the module costs about what PDFium's work
// for a character does; pdfChars keeps one scratch buffer for the life of
// the instance and calls the exports itself. The module and the text
// page's handle are go-pdfium's, reached by reflection like
// pdfWatchSwitch's; where they are not found, pageRuns asks go-pdfium.
type pdfChars struct {
	mod                  api.Module
	unicode, loose, orig api.Function
	font                 api.Function
	buf                  uint32 // 16 bytes: a FS_RECTF, or two doubles; then a font's flags and name
	stack                []uint64
	// monoFonts is the verdict (monospace) on each font without the
	// FixedPitch flag, by its name.
	monoFonts map[string]bool
}

// pdfFontNameMax is the longest font name pdfChars reads; a longer one is
// judged by its flags alone.
const pdfFontNameMax = 64

// chars is r's pdfChars, made on first use; nil when go-pdfium's
// internals are not where this build expects them.
func (r *pdfReader) chars() *pdfChars {
	if r.direct != nil || r.noDirect {
		return r.direct
	}
	r.noDirect = true
	mod, ok := pdfModule(r.inst)
	if !ok {
		return nil
	}
	c := &pdfChars{mod: mod, unicode: mod.ExportedFunction("FPDFText_GetUnicode"),
		loose: mod.ExportedFunction("FPDFText_GetLooseCharBox"), orig: mod.ExportedFunction("FPDFText_GetCharOrigin"),
		font: mod.ExportedFunction("FPDFText_GetFontInfo"), stack: make([]uint64, 5), monoFonts: map[string]bool{}}
	malloc := mod.ExportedFunction("malloc")
	if c.unicode == nil || c.loose == nil || c.orig == nil || c.font == nil || malloc == nil {
		return nil
	}
	res, err := malloc.Call(context.Background(), 16+4+pdfFontNameMax)
	if err != nil || len(res) == 0 || res[0] == 0 {
		return nil
	}
	c.buf = uint32(res[0])
	r.direct, r.noDirect = c, false
	return c
}

// pdfModule is the wazero module behind inst.
func pdfModule(inst pdfium.Pdfium) (mod api.Module, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	// PdfiumImplementation.Module holds an imports.module{mod api.Module}.
	v := reflect.ValueOf(inst.GetImplementation()).Elem().FieldByName("Module").Elem()
	cp := reflect.New(v.Type()).Elem()
	cp.Set(v)
	f := cp.FieldByName("mod")
	mod, ok = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(api.Module)
	return mod, ok && mod != nil
}

// pdfTextPageHandle is the module's pointer for go-pdfium's text page tp.
func pdfTextPageHandle(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE) (h uint64, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	m := reflect.ValueOf(inst.GetImplementation()).Elem().FieldByName("textPageRefs")
	v := m.MapIndex(reflect.ValueOf(tp))
	if !v.IsValid() || v.IsNil() {
		return 0, false
	}
	hp := v.Elem().FieldByName("handle")
	if hp.IsNil() {
		return 0, false
	}
	return hp.Elem().Uint(), true
}

func (c *pdfChars) call(f api.Function, args ...uint64) (uint64, error) {
	n := copy(c.stack, args)
	if err := f.CallWithStack(context.Background(), c.stack[:max(n, 1)]); err != nil {
		return 0, err
	}
	return c.stack[0], nil
}

// unicodeAt is FPDFText_GetUnicode.
func (c *pdfChars) unicodeAt(tp uint64, i int) (rune, error) {
	u, err := c.call(c.unicode, tp, uint64(i))
	return rune(uint32(u)), err
}

// looseBox is FPDFText_GetLooseCharBox: left, top, right, bottom; ok is
// false when PDFium has no box for the character.
func (c *pdfChars) looseBox(tp uint64, i int) (l, t, r, b float64, ok bool, err error) {
	res, err := c.call(c.loose, tp, uint64(i), uint64(c.buf))
	if err != nil || uint32(res) == 0 {
		return 0, 0, 0, 0, false, err
	}
	mem := c.mod.Memory()
	var v [4]float32
	for k := range v {
		bits, _ := mem.ReadUint32Le(c.buf + 4*uint32(k))
		v[k] = math.Float32frombits(bits)
	}
	return float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3]), true, nil
}

// originY is the y of FPDFText_GetCharOrigin.
func (c *pdfChars) originY(tp uint64, i int) (float64, bool) {
	res, err := c.call(c.orig, tp, uint64(i), uint64(c.buf), uint64(c.buf+8))
	if err != nil || uint32(res) == 0 {
		return 0, false
	}
	bits, _ := c.mod.Memory().ReadUint64Le(c.buf + 8)
	return math.Float64frombits(bits), true
}

// monospace is whether character i is in a fixed-pitch font (see
// pdfMonospace), from FPDFText_GetFontInfo.
func (c *pdfChars) monospace(tp uint64, i int) (bool, error) {
	flags, name := c.buf+16, c.buf+20
	n, err := c.call(c.font, tp, uint64(i), uint64(name), pdfFontNameMax, uint64(flags))
	if err != nil || uint32(n) == 0 {
		return false, err
	}
	mem := c.mod.Memory()
	fl, _ := mem.ReadUint32Le(flags)
	if fl&1 != 0 {
		return true, nil
	}
	var b []byte
	if n := uint32(n); n <= pdfFontNameMax {
		b, _ = mem.Read(name, n-1) // without its NUL
	}
	if v, ok := c.monoFonts[string(b)]; ok {
		return v, nil
	}
	v := pdfMonospace(int(fl), string(b))
	c.monoFonts[string(b)] = v
	return v, nil
}
