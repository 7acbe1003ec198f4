//go:build unix

package collect

import (
	"os/exec"
	"syscall"
)

// inGroup makes cmd, once started, the leader of a process group of its
// own, so that the end of its context kills it and everything it started.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills the process group cmd leads.
func killGroup(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// interruptGroup sends the process group cmd leads SIGINT, as Ctrl-C does.
func interruptGroup(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
