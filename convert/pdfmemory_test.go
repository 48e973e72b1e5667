package convert

import (
	"context"
	"reflect"
	"testing"
)

// A fresh PDFium instance stays in its first reservation: a first
// reservation smaller than the memory PDFium starts with sent every
// instance to one of the whole limit at once (256 MiB of heap, zeroed
// whenever the Go heap reuses memory).
func TestPDFMemoryStartsSmall(t *testing.T) {
	c := New(Options{})
	defer c.Close()
	inst, release, err := c.pdf.instance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	defer inst.Close()
	// The instance's api.Memory is wazero's *wasm.MemoryInstance, whose
	// Buffer is the pdfMemory's reservation.
	v := reflect.ValueOf(inst.GetImplementation()).Elem().FieldByName("Module")
	mem := v.MethodByName("Memory").Call(nil)[0].Elem().Elem()
	buf := mem.FieldByName("Buffer")
	if !buf.IsValid() {
		t.Fatal("wazero's memory keeps no Buffer field: this test cannot see the reservation")
	}
	size := wasmMemory(inst)
	if size == 0 || buf.Cap() >= pdfMemoryLimit {
		t.Errorf("a fresh instance of %d MiB reserved %d MiB (the limit is %d MiB)", size>>20, buf.Cap()>>20, pdfMemoryLimit>>20)
	}
	if buf.Cap() < int(size) {
		t.Errorf("reservation %d under the memory's size %d", buf.Cap(), size)
	}
}
