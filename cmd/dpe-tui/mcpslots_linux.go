package main

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// requestArriving reports whether c has bytes the server has not read
// yet (TIOCINQ, Linux's FIONREAD, on its socket): a request already sent.
func requestArriving(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	if cerr := raw.Control(func(fd uintptr) { n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); cerr != nil {
		return false
	}
	return err == nil && n > 0
}
