//go:build !unix

package instance

import (
	"fmt"
	"os"
)

// privateDir makes dir; on systems without unix permissions the user's own runtime
// folder is what keeps others out.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make the runtime folder %s: %w", dir, err)
	}
	return nil
}

// lockFile is a no-op here: a second app finds the first by its answer on the socket.
func lockFile(string) (func(), error) { return func() {}, nil }
