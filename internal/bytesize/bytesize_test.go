package bytesize

import "testing"

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 1000: "1000 bytes", 1024: "1 KiB", 1536: "1536 bytes", 64 << 20: "64 MiB",
		3<<20 + 1<<19: "3.5 MiB", 2 << 30: "2 GiB", 1<<30 + 1: "1024.0 MiB",
	} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
