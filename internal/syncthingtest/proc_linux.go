package syncthingtest

import (
	"os"
	"syscall"
)

// childAttr has the kernel kill syncthing if the test binary dies without its cleanups (a
// go test timeout, a kill -9), so no instance outlives its test. The signal is tied to the
// thread that started the child, which the Go runtime keeps while the binary runs.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// terminate asks syncthing to shut down cleanly.
func terminate(p *os.Process) error {
	return p.Signal(syscall.SIGTERM)
}
