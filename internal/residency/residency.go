// Package residency gives memory the process no longer reads back to the operating system.
//
// The entity extractor's dictionary and language models are embedded in the executable and
// parsed once into the heap; the pages they were read from (about 45 MB of the file) stay
// resident afterwards, counted in the process's memory though nothing reads them again.
package residency

// ExecutableData is what ReleaseExecutableData did: the bytes of the executable's read-only
// data it asked the kernel to reclaim, and how many of its pages were resident before and
// after, in bytes.
type ExecutableData struct {
	Mapped, ResidentBefore, ResidentAfter int64
}
