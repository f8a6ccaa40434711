//go:build linux

package tune

import (
	"os/exec"
	"syscall"
)

// isolate puts the worker in its own process group, so a timeout kills it
// and anything it started (compilers, sanitizers) in one signal, and asks
// the kernel to kill it if the tuner dies first (kill -9 included), so no
// orphan keeps the GPU busy.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
