//go:build !linux

package tty

import "os"

// fileIsTerminal takes a character device for a terminal where no
// terminal ioctl is wired up.
func fileIsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
