//go:build unix

package main

import "syscall"

// detached puts a started process in a session of its own, so the app `memdesk quick`
// starts is not stopped with the terminal or the launcher that ran the command.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
