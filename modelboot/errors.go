package modelboot

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors, usable with errors.Is across the package boundary.
var (
	// ErrOffline means the Ollama server cannot be reached.
	ErrOffline = errors.New("ollama offline")
	// ErrNotReady means the server is reachable but the model is not ready
	// yet (starting, pulling, warming) or failed to become ready.
	ErrNotReady = errors.New("embedding model not ready")
	// ErrModelMissing means the server does not have the model.
	ErrModelMissing = errors.New("embedding model missing")
	// ErrDimsChanged means a vector's width differs from the width recorded
	// at warm-up (including a zero-length vector). Vectors of two widths are
	// two vector spaces and must not be mixed.
	ErrDimsChanged = errors.New("embedding dimensions changed")
	// ErrZeroVector means an input embedded to a vector of zero norm, or was
	// empty. It carries no semantic evidence and cannot be normalised; the
	// caller should treat it as "no vector", never divide by it.
	ErrZeroVector = errors.New("zero embedding vector")
)

// DimsError reports a vector whose width differs from the recorded one.
// errors.Is(err, ErrDimsChanged) reports true for it.
type DimsError struct {
	Got, Want int
}

func (e *DimsError) Error() string {
	return fmt.Sprintf("embedding has %d dimensions, want %d", e.Got, e.Want)
}

// Is makes errors.Is(err, ErrDimsChanged) hold.
func (e *DimsError) Is(target error) bool { return target == ErrDimsChanged }

// InputError is the failure of one input of an [Boot.Embed] call.
type InputError struct {
	Index int // position in the texts passed to Embed
	Err   error
}

func (e InputError) Error() string { return "input " + strconv.Itoa(e.Index) + ": " + e.Err.Error() }

func (e InputError) Unwrap() error { return e.Err }

// BatchError is returned by [Boot.Embed] when some inputs failed and the rest
// were embedded. The vectors returned with it have one entry per input, nil
// for each failed one. errors.Is(err, ErrZeroVector) and the like report
// whether any input failed for that reason.
type BatchError struct {
	Failed []InputError // in input order
}

func (e *BatchError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d inputs failed to embed", len(e.Failed))
	for i, f := range e.Failed {
		if i == 3 {
			fmt.Fprintf(&sb, "; and %d more", len(e.Failed)-i)
			break
		}
		sb.WriteString("; ")
		sb.WriteString(f.Error())
	}
	return sb.String()
}

// Unwrap exposes every input's error to errors.Is and errors.As.
func (e *BatchError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		errs[i] = f
	}
	return errs
}
