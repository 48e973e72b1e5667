//go:build !linux

package remote

import "os"

// syncFiles makes the files written at paths durable, one fsync each.
func syncFiles(_ string, paths []string) error {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
