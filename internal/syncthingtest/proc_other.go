//go:build !linux

package syncthingtest

import (
	"os"
	"syscall"
)

// childAttr: outside Linux there is no parent-death signal; stop ends the process.
func childAttr() *syscall.SysProcAttr { return nil }

// terminate ends the process: SIGTERM is not portable.
func terminate(p *os.Process) error { return p.Kill() }
