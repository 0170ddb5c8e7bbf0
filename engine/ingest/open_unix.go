//go:build unix

package ingest

import (
	"os"
	"syscall"
)

// readFlags open a file to read without waiting on it: opening a FIFO for reading blocks
// until some writer opens it, which hung an import, and a watched folder for good, on a pipe
// made beside the notes (issue 27). O_NONBLOCK changes nothing for a regular file; anything
// else is refused once opened (readOpened).
const readFlags = os.O_RDONLY | syscall.O_NONBLOCK
