// Package proc runs the external tools swigen starts (nvcc, ptxas,
// cuobjdump, pip) so that a timeout or a cancel stops all of it: each
// runs in its own process group, and the context's end kills the group,
// not only the process swigen started. A wrapper script whose child
// sleeps (holding the output pipe) would otherwise outlive the kill and
// keep Wait waiting for ever.
package proc

import (
	"os/exec"
	"time"
)

// waitDelay bounds how long Wait waits for the output pipes to close
// after the group was killed (a process that left the group may still
// hold them).
const waitDelay = 5 * time.Second

// Isolate prepares cmd, made by exec.CommandContext, to run in its own
// process group that the context's end kills. Call it before cmd starts.
func Isolate(cmd *exec.Cmd) {
	isolate(cmd)
	cmd.WaitDelay = waitDelay
}
