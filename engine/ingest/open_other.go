//go:build !unix

package ingest

import "os"

// readFlags open a file to read; only unix has FIFOs that block an open.
const readFlags = os.O_RDONLY
