//go:build !amd64

package engine

// dotInt8 is the dot product of int8 codes with int16 query components.
func dotInt8(a []int8, b []int16) int32 { return dotInt8Go(a, b) }
