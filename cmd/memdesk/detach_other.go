//go:build !unix

package main

import "syscall"

// detached: elsewhere a started process already outlives the one that started it.
func detached() *syscall.SysProcAttr { return nil }
