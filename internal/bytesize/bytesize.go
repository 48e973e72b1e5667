// Package bytesize writes a byte count the way every message of this
// program does ("64 MiB", "1.5 MiB", "4096 bytes"), so that a limit reads
// the same in a flag's help, an error and a listing.
package bytesize

import "fmt"

// Format writes n in the largest binary unit that keeps it whole, else in
// MiB with one decimal from 1 MiB up, else in bytes.
func Format(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
