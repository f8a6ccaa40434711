//go:build !linux

package tune

import "os/exec"

// isolate is a no-op off Linux: a timeout kills the worker process only
// (exec.CommandContext's default).
func isolate(cmd *exec.Cmd) {}
