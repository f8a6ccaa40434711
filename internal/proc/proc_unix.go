//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

func isolate(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		// The group's id is the leader's pid (Setpgid with Pgid 0).
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
