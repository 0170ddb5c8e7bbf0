//go:build !linux

package residency

// ReleaseExecutableData does nothing where there is no madvise(MADV_PAGEOUT): the pages
// stay until the operating system wants them.
func ReleaseExecutableData() (ExecutableData, error) { return ExecutableData{}, nil }
