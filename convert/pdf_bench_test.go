package convert

import (
	"context"
	"os"
	"testing"
)

// BenchmarkPDFConvertFile converts the PDF named by $DPE_PDF_BENCH (the
// bench's 193-page concatenation of Debian's manuals, say) with one
// converter, for profiling: -cpuprofile shows where a conversion's time
// goes once the engine is started.
func BenchmarkPDFConvertFile(b *testing.B) {
	file := os.Getenv("DPE_PDF_BENCH")
	if file == "" {
		b.Skip("DPE_PDF_BENCH not set (a PDF to convert)")
	}
	c := New(Options{})
	defer c.Close()
	for b.Loop() {
		if _, err := c.ConvertFile(context.Background(), file); err != nil {
			b.Fatal(err)
		}
	}
}
