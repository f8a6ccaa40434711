package tty

import (
	"os"
	"syscall"
	"unsafe"
)

// fileIsTerminal asks the terminal driver (TCGETS), so /dev/null, a
// character device but no terminal, is not one.
func fileIsTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
