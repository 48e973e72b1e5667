package convert

import (
	"reflect"
	"unsafe"

	"github.com/klippa-app/go-pdfium"
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
	// *implementation_webassembly.PdfiumImplementation → its Module (an
	// imports.module wrapping the api.Module) → *wasm.ModuleInstance →
	// its Engine (*wazevo.moduleEngine) → parent (*wazevo.compiledModule).
	v := reflect.ValueOf(inst.GetImplementation()).Elem().FieldByName("Module").Elem()
	v = v.FieldByName("mod").Elem().Elem().FieldByName("Engine").Elem()
	f = v.Elem().FieldByName("parent").Elem().FieldByName("ensureTermination")
	if f.Kind() != reflect.Bool {
		return reflect.Value{}, false
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), true
}
