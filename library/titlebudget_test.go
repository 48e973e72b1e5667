package library

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A title is a field of every record the Finder writes for a document, so
// a megabytes-long one (an e-mail's Subject:, a hand-written .dpe.json's
// title) was analysed and stored once per element: a 50 MB subject took
// serve --docs past 5 GB. Listed, read and indexed, each such file now
// costs about its own size a few times, not once per element.
func TestFinder_HugeTitlesCostTheirFileOnce(t *testing.T) {
	dir := t.TempDir()
	const size = 4 << 20
	huge := strings.Repeat("s", size)
	eml := "From: a@example.com\r\nSubject: " + huge + "\r\nContent-Type: text/plain\r\n\r\n"
	for i := range 200 {
		eml += fmt.Sprintf("paragraph %d\r\n\r\n", i)
	}
	var els []string
	for i := range 200 {
		els = append(els, fmt.Sprintf(`{"element_id":"e%d","category":"NarrativeText","text":"paragraph %d"}`, i, i))
	}
	dpeJSON := `{"title":"` + huge + `","pages":[{"page_index":0,"elements":[` + strings.Join(els, ",") + `]}]}`
	for name, data := range map[string]string{"header.eml": eml, "title.dpe.json": dpeJSON} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	lib, err := Open(Options{Dir: dir, Finder: &FinderOptions{Memory: true, Rescan: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := lib.Finder().Wait(ctx); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// Reading, probing, converting, checking and indexing each file copies
	// its title some tens of times in all (about 230 MiB here); a copy per
	// record is 200 copies of each, 1.6 GiB (it was 4.2 GiB).
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d MiB for %d MiB of files", got>>20, 2*size>>20)
	if limit := uint64(2 * 48 * size); got > limit {
		t.Fatalf("listing and indexing allocated %d MiB, over %d MiB (48 copies of each file)", got>>20, limit>>20)
	}
	if st := lib.Finder().Status(); !strings.Contains(st.String(), "2/2 documents") {
		t.Fatalf("status %s, want both documents indexed", st)
	}
}
