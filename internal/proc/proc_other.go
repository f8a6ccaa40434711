//go:build !unix

package proc

import "os/exec"

// isolate leaves exec.CommandContext's default off Unix: the context's
// end kills the process itself.
func isolate(cmd *exec.Cmd) {}
