//go:build !unix

package collect

import (
	"os"
	"os/exec"
)

// Without process groups (Windows, where collect does not run: needLinux)
// these act on the process alone, so that the package builds.

func inGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }

func interruptGroup(cmd *exec.Cmd) error { return cmd.Process.Signal(os.Interrupt) }
