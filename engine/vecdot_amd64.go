package engine

import "golang.org/x/sys/cpu"

// dotInt8AVX2 is in vecdot_amd64.s; len(a) must be a multiple of 16 and len(b) >= len(a).
//
//go:noescape
func dotInt8AVX2(a []int8, b []int16) int32

// dotInt8 is the dot product of int8 codes with int16 query components. Go does not
// vectorize loops: in Go the scan of 100k x 1024 codes takes 46 ms, with AVX2 3.3 ms.
func dotInt8(a []int8, b []int16) int32 {
	if !cpu.X86.HasAVX2 {
		return dotInt8Go(a, b)
	}
	n := len(a) &^ 15
	return dotInt8AVX2(a[:n], b[:n]) + dotInt8Go(a[n:], b[n:len(a)])
}
