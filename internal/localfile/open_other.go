//go:build !unix

package localfile

import "os"

// nonBlock: other systems have no O_NONBLOCK; the Stat before the open
// refused FIFOs and devices.
const nonBlock = 0

// openNoBlock opens p read-only; the Lstat before it refused what is not
// a regular file.
func openNoBlock(p string) (*os.File, error) { return os.Open(p) }
