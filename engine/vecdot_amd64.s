#include "textflag.h"

// func dotInt8AVX2(a []int8, b []int16) int32
//
// The dot product of len(a) (a multiple of 16) int8 codes with as many int16 query
// components: each step widens 16 codes to int16 (VPMOVSXBW), multiplies them with the
// query and adds neighbouring products into int32 (VPMADDWD). Four accumulators keep four
// steps in flight. The caller keeps the sum within int32 (see queryCodes).
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3

loop64:
	CMPQ      CX, $64
	JL        loop16
	VPMOVSXBW (SI), Y4
	VPMADDWD  (DI), Y4, Y4
	VPADDD    Y4, Y0, Y0
	VPMOVSXBW 16(SI), Y5
	VPMADDWD  32(DI), Y5, Y5
	VPADDD    Y5, Y1, Y1
	VPMOVSXBW 32(SI), Y6
	VPMADDWD  64(DI), Y6, Y6
	VPADDD    Y6, Y2, Y2
	VPMOVSXBW 48(SI), Y7
	VPMADDWD  96(DI), Y7, Y7
	VPADDD    Y7, Y3, Y3
	ADDQ      $64, SI
	ADDQ      $128, DI
	SUBQ      $64, CX
	JMP       loop64

loop16:
	CMPQ      CX, $16
	JL        reduce
	VPMOVSXBW (SI), Y4
	VPMADDWD  (DI), Y4, Y4
	VPADDD    Y4, Y0, Y0
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $16, CX
	JMP       loop16

reduce:
	VPADDD       Y1, Y0, Y0
	VPADDD       Y3, Y2, Y2
	VPADDD       Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+48(FP)
	RET
