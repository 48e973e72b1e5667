package remote

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFiles makes the files written at paths durable: one syncfs(2) of
// the store's file system instead of an fsync per object (a commit of a
// thousand objects took seconds with those).
func syncFiles(dir string, _ []string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
