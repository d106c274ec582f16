//go:build amd64 && !purego

#include "textflag.h"

// func aesRowAsm(rk *[176]byte, out *uint16, i uint64, nblocks uint64)
//
// Encrypts the nblocks blocks LE16(i) || LE16(8b) || 0^96, b = 0..nblocks-1,
// under the expanded AES-128 key rk, and writes them to out: one row of
// FrodoKEM's matrix A. Eight blocks go through the rounds together.
TEXT ·aesRowAsm(SB), NOSPLIT, $0-32
	MOVQ rk+0(FP), AX
	MOVQ out+8(FP), DI
	MOVQ i+16(FP), R9
	ANDQ $0xffff, R9
	MOVQ nblocks+24(FP), CX
	MOVQ $0x80000, R10 // 8 << 16: the column step of one block

	CMPQ CX, $8
	JB   tail

#define ROUND8(off) \
	MOVOU off(AX), X8 \
	AESENC X8, X0 \
	AESENC X8, X1 \
	AESENC X8, X2 \
	AESENC X8, X3 \
	AESENC X8, X4 \
	AESENC X8, X5 \
	AESENC X8, X6 \
	AESENC X8, X7

#define LOADBLOCK(X) \
	MOVQ R9, X \
	PXOR X8, X \
	ADDQ R10, R9

loop8:
	MOVOU 0(AX), X8
	LOADBLOCK(X0)
	LOADBLOCK(X1)
	LOADBLOCK(X2)
	LOADBLOCK(X3)
	LOADBLOCK(X4)
	LOADBLOCK(X5)
	LOADBLOCK(X6)
	LOADBLOCK(X7)
	ROUND8(16)
	ROUND8(32)
	ROUND8(48)
	ROUND8(64)
	ROUND8(80)
	ROUND8(96)
	ROUND8(112)
	ROUND8(128)
	ROUND8(144)
	MOVOU 160(AX), X8
	AESENCLAST X8, X0
	AESENCLAST X8, X1
	AESENCLAST X8, X2
	AESENCLAST X8, X3
	AESENCLAST X8, X4
	AESENCLAST X8, X5
	AESENCLAST X8, X6
	AESENCLAST X8, X7
	MOVOU X0, 0(DI)
	MOVOU X1, 16(DI)
	MOVOU X2, 32(DI)
	MOVOU X3, 48(DI)
	MOVOU X4, 64(DI)
	MOVOU X5, 80(DI)
	MOVOU X6, 96(DI)
	MOVOU X7, 112(DI)
	ADDQ  $128, DI
	SUBQ  $8, CX
	CMPQ  CX, $8
	JAE   loop8

tail:
	TESTQ CX, CX
	JZ    done

loop1:
	MOVOU 0(AX), X8
	LOADBLOCK(X0)
	MOVOU 16(AX), X8
	AESENC X8, X0
	MOVOU 32(AX), X8
	AESENC X8, X0
	MOVOU 48(AX), X8
	AESENC X8, X0
	MOVOU 64(AX), X8
	AESENC X8, X0
	MOVOU 80(AX), X8
	AESENC X8, X0
	MOVOU 96(AX), X8
	AESENC X8, X0
	MOVOU 112(AX), X8
	AESENC X8, X0
	MOVOU 128(AX), X8
	AESENC X8, X0
	MOVOU 144(AX), X8
	AESENC X8, X0
	MOVOU 160(AX), X8
	AESENCLAST X8, X0
	MOVOU X0, 0(DI)
	ADDQ  $16, DI
	DECQ  CX
	JNZ   loop1

done:
	RET

// func aesRowVAES(rk *[176]byte, out *uint16, i uint64, nblocks uint64)
//
// aesRowAsm with VAES on ymm registers: each VAESENC runs one round on two
// blocks, and eight registers (sixteen blocks) go through the rounds
// together, enough independent work to hide VAESENC's latency. Needs VAES
// and AVX2 (VEX-encoded, no AVX-512). The block counter lives in the
// upper word of each lane's first dword, so 8*nblocks must stay below
// 65536 (FrodoKEM's n is at most 1344).
TEXT ·aesRowVAES(SB), NOSPLIT, $0-32
	MOVQ rk+0(FP), AX
	MOVQ out+8(FP), DI
	MOVQ i+16(FP), R9
	ANDQ $0xffff, R9
	MOVQ nblocks+24(FP), CX
	TESTQ CX, CX
	JZ    vdone

	// Y8 holds the inputs of the next two blocks, b and b+1: lane 0 is
	// LE16(i) || LE16(8b) || 0^96 and lane 1 the same with 8(b+1).
	VMOVQ        R9, X8
	ADDQ         $0x80000, R9 // 8 << 16: one block's column step
	VMOVQ        R9, X10
	VINSERTI128  $1, X10, Y8, Y8
	// Y9 adds 16 << 16 to each lane's first dword: two blocks on.
	MOVQ         $0x100000, R10
	VMOVQ        R10, X9
	VINSERTI128  $1, X9, Y9, Y9
	// Y11 and Y12 are the first and last round keys in both lanes; the
	// other nine are broadcast into Y10 round by round.
	VBROADCASTI128 0(AX), Y11
	VBROADCASTI128 160(AX), Y12

vloop:
	// Sixteen inputs, whitened with round key 0. A short final batch
	// (fewer than sixteen blocks left) is encrypted whole and stored
	// in part below: the extra blocks cost no more time than the
	// latency a smaller batch would leave idle.
	VPXOR  Y11, Y8, Y0
	VPADDD Y9, Y8, Y8
	VPXOR  Y11, Y8, Y1
	VPADDD Y9, Y8, Y8
	VPXOR  Y11, Y8, Y2
	VPADDD Y9, Y8, Y8
	VPXOR  Y11, Y8, Y3
	VPADDD Y9, Y8, Y8
	VPXOR  Y11, Y8, Y4
	VPADDD Y9, Y8, Y8
	VPXOR  Y11, Y8, Y5
	VPADDD Y9, Y8, Y8
	VPXOR  Y11, Y8, Y6
	VPADDD Y9, Y8, Y8
	VPXOR  Y11, Y8, Y7
	VPADDD Y9, Y8, Y8
	// Round 1.
	VBROADCASTI128 16(AX), Y10
	VAESENC Y10, Y0, Y0
	VAESENC Y10, Y1, Y1
	VAESENC Y10, Y2, Y2
	VAESENC Y10, Y3, Y3
	VAESENC Y10, Y4, Y4
	VAESENC Y10, Y5, Y5
	VAESENC Y10, Y6, Y6
	VAESENC Y10, Y7, Y7
	// Round 2.
	VBROADCASTI128 32(AX), Y10
	VAESENC Y10, Y0, Y0
	VAESENC Y10, Y1, Y1
	VAESENC Y10, Y2, Y2
	VAESENC Y10, Y3, Y3
	VAESENC Y10, Y4, Y4
	VAESENC Y10, Y5, Y5
	VAESENC Y10, Y6, Y6
	VAESENC Y10, Y7, Y7
	// Round 3.
	VBROADCASTI128 48(AX), Y10
	VAESENC Y10, Y0, Y0
	VAESENC Y10, Y1, Y1
	VAESENC Y10, Y2, Y2
	VAESENC Y10, Y3, Y3
	VAESENC Y10, Y4, Y4
	VAESENC Y10, Y5, Y5
	VAESENC Y10, Y6, Y6
	VAESENC Y10, Y7, Y7
	// Round 4.
	VBROADCASTI128 64(AX), Y10
	VAESENC Y10, Y0, Y0
	VAESENC Y10, Y1, Y1
	VAESENC Y10, Y2, Y2
	VAESENC Y10, Y3, Y3
	VAESENC Y10, Y4, Y4
	VAESENC Y10, Y5, Y5
	VAESENC Y10, Y6, Y6
	VAESENC Y10, Y7, Y7
	// Round 5.
	VBROADCASTI128 80(AX), Y10
	VAESENC Y10, Y0, Y0
	VAESENC Y10, Y1, Y1
	VAESENC Y10, Y2, Y2
	VAESENC Y10, Y3, Y3
	VAESENC Y10, Y4, Y4
	VAESENC Y10, Y5, Y5
	VAESENC Y10, Y6, Y6
	VAESENC Y10, Y7, Y7
	// Round 6.
	VBROADCASTI128 96(AX), Y10
	VAESENC Y10, Y0, Y0
	VAESENC Y10, Y1, Y1
	VAESENC Y10, Y2, Y2
	VAESENC Y10, Y3, Y3
	VAESENC Y10, Y4, Y4
	VAESENC Y10, Y5, Y5
	VAESENC Y10, Y6, Y6
	VAESENC Y10, Y7, Y7
	// Round 7.
	VBROADCASTI128 112(AX), Y10
	VAESENC Y10, Y0, Y0
	VAESENC Y10, Y1, Y1
	VAESENC Y10, Y2, Y2
	VAESENC Y10, Y3, Y3
	VAESENC Y10, Y4, Y4
	VAESENC Y10, Y5, Y5
	VAESENC Y10, Y6, Y6
	VAESENC Y10, Y7, Y7
	// Round 8.
	VBROADCASTI128 128(AX), Y10
	VAESENC Y10, Y0, Y0
	VAESENC Y10, Y1, Y1
	VAESENC Y10, Y2, Y2
	VAESENC Y10, Y3, Y3
	VAESENC Y10, Y4, Y4
	VAESENC Y10, Y5, Y5
	VAESENC Y10, Y6, Y6
	VAESENC Y10, Y7, Y7
	// Round 9.
	VBROADCASTI128 144(AX), Y10
	VAESENC Y10, Y0, Y0
	VAESENC Y10, Y1, Y1
	VAESENC Y10, Y2, Y2
	VAESENC Y10, Y3, Y3
	VAESENC Y10, Y4, Y4
	VAESENC Y10, Y5, Y5
	VAESENC Y10, Y6, Y6
	VAESENC Y10, Y7, Y7
	// Round 10.
	VAESENCLAST Y12, Y0, Y0
	VAESENCLAST Y12, Y1, Y1
	VAESENCLAST Y12, Y2, Y2
	VAESENCLAST Y12, Y3, Y3
	VAESENCLAST Y12, Y4, Y4
	VAESENCLAST Y12, Y5, Y5
	VAESENCLAST Y12, Y6, Y6
	VAESENCLAST Y12, Y7, Y7
	CMPQ CX, $16
	JB   vtail

	// A whole batch: store all sixteen blocks.
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 128(DI)
	VMOVDQU Y5, 160(DI)
	VMOVDQU Y6, 192(DI)
	VMOVDQU Y7, 224(DI)
	ADDQ $256, DI
	SUBQ $16, CX
	JNZ  vloop
	JMP  vdone

vtail:
	// 1 <= CX <= 15 blocks left: store register k whole while two or
	// more remain, and its low lane (block 2k) if exactly one does.
	CMPQ CX, $1
	JE   vlast0
	VMOVDQU Y0, 0(DI)
	CMPQ CX, $2
	JE   vdone
	CMPQ CX, $3
	JE   vlast1
	VMOVDQU Y1, 32(DI)
	CMPQ CX, $4
	JE   vdone
	CMPQ CX, $5
	JE   vlast2
	VMOVDQU Y2, 64(DI)
	CMPQ CX, $6
	JE   vdone
	CMPQ CX, $7
	JE   vlast3
	VMOVDQU Y3, 96(DI)
	CMPQ CX, $8
	JE   vdone
	CMPQ CX, $9
	JE   vlast4
	VMOVDQU Y4, 128(DI)
	CMPQ CX, $10
	JE   vdone
	CMPQ CX, $11
	JE   vlast5
	VMOVDQU Y5, 160(DI)
	CMPQ CX, $12
	JE   vdone
	CMPQ CX, $13
	JE   vlast6
	VMOVDQU Y6, 192(DI)
	CMPQ CX, $14
	JE   vdone
	CMPQ CX, $15
	JE   vlast7
	JMP vdone

vlast0:
	VMOVDQU X0, 0(DI)
	JMP     vdone

vlast1:
	VMOVDQU X1, 32(DI)
	JMP     vdone

vlast2:
	VMOVDQU X2, 64(DI)
	JMP     vdone

vlast3:
	VMOVDQU X3, 96(DI)
	JMP     vdone

vlast4:
	VMOVDQU X4, 128(DI)
	JMP     vdone

vlast5:
	VMOVDQU X5, 160(DI)
	JMP     vdone

vlast6:
	VMOVDQU X6, 192(DI)
	JMP     vdone

vlast7:
	VMOVDQU X7, 224(DI)
	JMP     vdone

vdone:
	VZEROUPPER
	RET

// The first dword of each 128-bit lane of the zmm counter: the column
// offsets 8b << 16 of the lane's block b = 0..3, and the step of four.
DATA vaesLanes<>+0(SB)/4, $0
DATA vaesLanes<>+16(SB)/4, $0x80000
DATA vaesLanes<>+32(SB)/4, $0x100000
DATA vaesLanes<>+48(SB)/4, $0x180000
DATA vaesLanes<>+64(SB)/4, $0x200000
DATA vaesLanes<>+80(SB)/4, $0x200000
DATA vaesLanes<>+96(SB)/4, $0x200000
DATA vaesLanes<>+112(SB)/4, $0x200000
GLOBL vaesLanes<>(SB), RODATA|NOPTR, $128

// func aesRowVAES512(rk *[176]byte, out *uint16, i uint64, nblocks uint64)
//
// aesRowVAES on zmm registers (AVX-512F and VAES): four blocks per
// instruction, eight registers (32 blocks) through the rounds together.
// The last batch is encrypted whole and stored under a mask of its
// remaining blocks, so no branch depends on which of them remain (and
// nblocks is public anyway). 8*nblocks must stay below 65536.
TEXT ·aesRowVAES512(SB), NOSPLIT, $0-32
	MOVQ rk+0(FP), AX
	MOVQ out+8(FP), DI
	MOVQ i+16(FP), R9
	ANDQ $0xffff, R9
	MOVQ nblocks+24(FP), CX
	TESTQ CX, CX
	JZ    zdone

	// Z8: LE16(i) || LE16(8b) || 0^96 for blocks b = 0..3, one a lane;
	// Z9 steps each lane four blocks on.
	VMOVQ      R9, X8
	VSHUFI64X2 $0, Z8, Z8, Z8
	VPADDD     vaesLanes<>+0(SB), Z8, Z8
	VMOVDQU64  vaesLanes<>+64(SB), Z9
	// Z11 and Z12: the first and last round keys in all four lanes;
	// the other nine are broadcast into Z10 round by round.
	VBROADCASTI32X4 0(AX), Z11
	VBROADCASTI32X4 160(AX), Z12

zloop:
	// 32 inputs, whitened with round key 0.
	VPXORD  Z11, Z8, Z0
	VPADDD  Z9, Z8, Z8
	VPXORD  Z11, Z8, Z1
	VPADDD  Z9, Z8, Z8
	VPXORD  Z11, Z8, Z2
	VPADDD  Z9, Z8, Z8
	VPXORD  Z11, Z8, Z3
	VPADDD  Z9, Z8, Z8
	VPXORD  Z11, Z8, Z4
	VPADDD  Z9, Z8, Z8
	VPXORD  Z11, Z8, Z5
	VPADDD  Z9, Z8, Z8
	VPXORD  Z11, Z8, Z6
	VPADDD  Z9, Z8, Z8
	VPXORD  Z11, Z8, Z7
	VPADDD  Z9, Z8, Z8
	// Round 1.
	VBROADCASTI32X4 16(AX), Z10
	VAESENC Z10, Z0, Z0
	VAESENC Z10, Z1, Z1
	VAESENC Z10, Z2, Z2
	VAESENC Z10, Z3, Z3
	VAESENC Z10, Z4, Z4
	VAESENC Z10, Z5, Z5
	VAESENC Z10, Z6, Z6
	VAESENC Z10, Z7, Z7
	// Round 2.
	VBROADCASTI32X4 32(AX), Z10
	VAESENC Z10, Z0, Z0
	VAESENC Z10, Z1, Z1
	VAESENC Z10, Z2, Z2
	VAESENC Z10, Z3, Z3
	VAESENC Z10, Z4, Z4
	VAESENC Z10, Z5, Z5
	VAESENC Z10, Z6, Z6
	VAESENC Z10, Z7, Z7
	// Round 3.
	VBROADCASTI32X4 48(AX), Z10
	VAESENC Z10, Z0, Z0
	VAESENC Z10, Z1, Z1
	VAESENC Z10, Z2, Z2
	VAESENC Z10, Z3, Z3
	VAESENC Z10, Z4, Z4
	VAESENC Z10, Z5, Z5
	VAESENC Z10, Z6, Z6
	VAESENC Z10, Z7, Z7
	// Round 4.
	VBROADCASTI32X4 64(AX), Z10
	VAESENC Z10, Z0, Z0
	VAESENC Z10, Z1, Z1
	VAESENC Z10, Z2, Z2
	VAESENC Z10, Z3, Z3
	VAESENC Z10, Z4, Z4
	VAESENC Z10, Z5, Z5
	VAESENC Z10, Z6, Z6
	VAESENC Z10, Z7, Z7
	// Round 5.
	VBROADCASTI32X4 80(AX), Z10
	VAESENC Z10, Z0, Z0
	VAESENC Z10, Z1, Z1
	VAESENC Z10, Z2, Z2
	VAESENC Z10, Z3, Z3
	VAESENC Z10, Z4, Z4
	VAESENC Z10, Z5, Z5
	VAESENC Z10, Z6, Z6
	VAESENC Z10, Z7, Z7
	// Round 6.
	VBROADCASTI32X4 96(AX), Z10
	VAESENC Z10, Z0, Z0
	VAESENC Z10, Z1, Z1
	VAESENC Z10, Z2, Z2
	VAESENC Z10, Z3, Z3
	VAESENC Z10, Z4, Z4
	VAESENC Z10, Z5, Z5
	VAESENC Z10, Z6, Z6
	VAESENC Z10, Z7, Z7
	// Round 7.
	VBROADCASTI32X4 112(AX), Z10
	VAESENC Z10, Z0, Z0
	VAESENC Z10, Z1, Z1
	VAESENC Z10, Z2, Z2
	VAESENC Z10, Z3, Z3
	VAESENC Z10, Z4, Z4
	VAESENC Z10, Z5, Z5
	VAESENC Z10, Z6, Z6
	VAESENC Z10, Z7, Z7
	// Round 8.
	VBROADCASTI32X4 128(AX), Z10
	VAESENC Z10, Z0, Z0
	VAESENC Z10, Z1, Z1
	VAESENC Z10, Z2, Z2
	VAESENC Z10, Z3, Z3
	VAESENC Z10, Z4, Z4
	VAESENC Z10, Z5, Z5
	VAESENC Z10, Z6, Z6
	VAESENC Z10, Z7, Z7
	// Round 9.
	VBROADCASTI32X4 144(AX), Z10
	VAESENC Z10, Z0, Z0
	VAESENC Z10, Z1, Z1
	VAESENC Z10, Z2, Z2
	VAESENC Z10, Z3, Z3
	VAESENC Z10, Z4, Z4
	VAESENC Z10, Z5, Z5
	VAESENC Z10, Z6, Z6
	VAESENC Z10, Z7, Z7
	// Round 10.
	VAESENCLAST Z12, Z0, Z0
	VAESENCLAST Z12, Z1, Z1
	VAESENCLAST Z12, Z2, Z2
	VAESENCLAST Z12, Z3, Z3
	VAESENCLAST Z12, Z4, Z4
	VAESENCLAST Z12, Z5, Z5
	VAESENCLAST Z12, Z6, Z6
	VAESENCLAST Z12, Z7, Z7

	// R11: one bit per quadword of this batch to store, two per block:
	// all 64 for a whole batch, the low 2*CX bits for the last.
	MOVQ  $-1, R11
	CMPQ  CX, $32
	JAE   zstore
	MOVQ  CX, R12
	SHLQ  $1, R12
	BZHIQ R12, R11, R11

zstore:
	// Register k takes mask bits 8k..8k+7.
	KMOVW     R11, K1
	VMOVDQU64 Z0, K1, 0(DI)
	SHRQ      $8, R11
	KMOVW     R11, K1
	VMOVDQU64 Z1, K1, 64(DI)
	SHRQ      $8, R11
	KMOVW     R11, K1
	VMOVDQU64 Z2, K1, 128(DI)
	SHRQ      $8, R11
	KMOVW     R11, K1
	VMOVDQU64 Z3, K1, 192(DI)
	SHRQ      $8, R11
	KMOVW     R11, K1
	VMOVDQU64 Z4, K1, 256(DI)
	SHRQ      $8, R11
	KMOVW     R11, K1
	VMOVDQU64 Z5, K1, 320(DI)
	SHRQ      $8, R11
	KMOVW     R11, K1
	VMOVDQU64 Z6, K1, 384(DI)
	SHRQ      $8, R11
	KMOVW     R11, K1
	VMOVDQU64 Z7, K1, 448(DI)
	ADDQ $512, DI
	SUBQ $32, CX
	JA   zloop

zdone:
	VZEROUPPER
	RET

// func dot8AVX2(out *uint16, row *uint16, st *uint16, n uint64)
//
// out[k] += sum_j row[j] * st[k*n + j] (mod 2^16) for k = 0..7. n is a
// multiple of 16.
TEXT ·dot8AVX2(SB), NOSPLIT, $0-32
	MOVQ out+0(FP), DI
	MOVQ row+8(FP), SI
	MOVQ st+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ CX, BX
	SHLQ $1, BX // BX = 2n, the byte stride of st's rows
	LEAQ (DX)(BX*4), R8 // st row 4
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	LEAQ (BX)(BX*2), R9 // 3 * 2n
	XORQ AX, AX

dotloop:
	VMOVDQU (SI)(AX*1), Y8
	VPMULLW (DX)(AX*1), Y8, Y9
	VPADDW  Y9, Y0, Y0
	LEAQ    (DX)(BX*1), R10
	VPMULLW (R10)(AX*1), Y8, Y10
	VPADDW  Y10, Y1, Y1
	LEAQ    (DX)(BX*2), R10
	VPMULLW (R10)(AX*1), Y8, Y11
	VPADDW  Y11, Y2, Y2
	LEAQ    (DX)(R9*1), R10
	VPMULLW (R10)(AX*1), Y8, Y12
	VPADDW  Y12, Y3, Y3
	VPMULLW (R8)(AX*1), Y8, Y9
	VPADDW  Y9, Y4, Y4
	LEAQ    (R8)(BX*1), R10
	VPMULLW (R10)(AX*1), Y8, Y10
	VPADDW  Y10, Y5, Y5
	LEAQ    (R8)(BX*2), R10
	VPMULLW (R10)(AX*1), Y8, Y11
	VPADDW  Y11, Y6, Y6
	LEAQ    (R8)(R9*1), R10
	VPMULLW (R10)(AX*1), Y8, Y12
	VPADDW  Y12, Y7, Y7
	ADDQ    $32, AX
	CMPQ    AX, BX
	JB      dotloop

	// Horizontal sums: three rounds of pairwise adds leave, in each
	// 128-bit lane, word k = that lane's part of accumulator k.
	VPHADDW Y1, Y0, Y0
	VPHADDW Y3, Y2, Y2
	VPHADDW Y5, Y4, Y4
	VPHADDW Y7, Y6, Y6
	VPHADDW Y2, Y0, Y0
	VPHADDW Y6, Y4, Y4
	VPHADDW Y4, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDW  X1, X0, X0
	VMOVDQU (DI), X1
	VPADDW  X1, X0, X0
	VMOVDQU X0, (DI)
	VZEROUPPER
	RET

// func axpy4x8AVX2(bp *uint16, s *uint16, rows *uint16, n uint64, rowStride uint64)
//
// For k = 0..7: bp[k*n + j] += sum_{m<4} s[k*n + m] * rows[m*rowStride + j]
// (mod 2^16), j < n. s points at column i of S'; n is a multiple of 16;
// rowStride is in entries.
//
// Two rows of bp at a time: each 16 columns of the four rows of A are
// loaded once for both (Y4-Y7), with both rows' eight multipliers
// broadcast in Y8-Y15, so that a step is 6 loads and 2 stores for 8
// multiplications.
TEXT ·axpy4x8AVX2(SB), NOSPLIT, $0-40
	MOVQ bp+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ rows+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ rowStride+32(FP), BX
	SHLQ $1, CX // 2n: byte stride of bp's and S's rows
	SHLQ $1, BX // byte stride of rows
	LEAQ (DX)(BX*1), R8  // row 1
	LEAQ (DX)(BX*2), R9  // row 2
	LEAQ (R8)(BX*2), R10 // row 3
	MOVQ $4, R11

krow:
	VPBROADCASTW 0(SI), Y8
	VPBROADCASTW 2(SI), Y9
	VPBROADCASTW 4(SI), Y10
	VPBROADCASTW 6(SI), Y11
	VPBROADCASTW 0(SI)(CX*1), Y12
	VPBROADCASTW 2(SI)(CX*1), Y13
	VPBROADCASTW 4(SI)(CX*1), Y14
	VPBROADCASTW 6(SI)(CX*1), Y15
	LEAQ (DI)(CX*1), R12 // bp's next row
	XORQ AX, AX

col:
	VMOVDQU (DX)(AX*1), Y4
	VMOVDQU (R8)(AX*1), Y5
	VMOVDQU (R9)(AX*1), Y6
	VMOVDQU (R10)(AX*1), Y7
	VPMULLW Y4, Y8, Y0
	VPMULLW Y5, Y9, Y1
	VPADDW  (DI)(AX*1), Y0, Y0
	VPMULLW Y4, Y12, Y2
	VPMULLW Y5, Y13, Y3
	VPADDW  (R12)(AX*1), Y2, Y2
	VPADDW  Y1, Y0, Y0
	VPADDW  Y3, Y2, Y2
	VPMULLW Y6, Y10, Y1
	VPMULLW Y6, Y14, Y3
	VPADDW  Y1, Y0, Y0
	VPADDW  Y3, Y2, Y2
	VPMULLW Y7, Y11, Y1
	VPMULLW Y7, Y15, Y3
	VPADDW  Y1, Y0, Y0
	VPADDW  Y3, Y2, Y2
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y2, (R12)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      col

	LEAQ (DI)(CX*2), DI
	LEAQ (SI)(CX*2), SI
	DECQ R11
	JNZ  krow
	VZEROUPPER
	RET

// func sampleAVX2(s *uint16, n uint64, cdf *[cdfMaxSize][16]uint16, m uint64)
//
// Replaces each of the n entries of s (n a multiple of 16) with a sample of
// the error distribution: with prnd = s >> 1 and sign = s & 1, the sample
// is the number of the first m table entries below prnd, negated if sign
// is 1. Every entry is compared with the whole table (VPCMPGTW), so the
// time does not depend on the samples.
TEXT ·sampleAVX2(SB), NOSPLIT, $0-32
	MOVQ s+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ cdf+16(FP), SI
	MOVQ m+24(FP), R8
	SHLQ $5, R8 // bytes of table
	SHLQ $1, CX // bytes of s
	XORQ AX, AX
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15 // 16 x 1
	VPXOR    Y14, Y14, Y14 // 0

sloop:
	VMOVDQU (DI)(AX*1), Y0
	VPSRLW  $1, Y0, Y1   // prnd
	VPAND   Y15, Y0, Y2  // sign
	VPXOR   Y3, Y3, Y3   // the sample
	XORQ    BX, BX

tloop:
	VPCMPGTW (SI)(BX*1), Y1, Y4 // -1 where prnd > T[j]
	VPSUBW   Y4, Y3, Y3
	ADDQ     $32, BX
	CMPQ     BX, R8
	JB       tloop

	VPSUBW  Y2, Y14, Y4 // -sign
	VPXOR   Y4, Y3, Y3
	VPADDW  Y2, Y3, Y3
	VMOVDQU Y3, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      sloop
	VZEROUPPER
	RET
