// The G1 contract, as the tests see it. C (M×N, float) = A (M×K, __half) · B (K×N, __half), the
// products summed in float. Row-major, device pointers; each function launches on the default
// stream and returns without synchronising.
//
// The judged shapes have M, N and K multiples of 16 (one mma tile), but not of the block tiles:
// a kernel must still handle partial tiles of 32, 64 or 128. The reference handles any shape.
#pragma once

#include <cuda_fp16.h>

// Required: a file without these does not link, and the judge says which one is missing.
void hgemm_wmma(const __half* A, const __half* B, float* C, int M, int N, int K);  // nvcuda::wmma, one warp per 16×16 tile
void hgemm_mma(const __half* A, const __half* B, float* C, int M, int N, int K);   // ldmatrix + mma.sync + XOR swizzle

// Optional: the learner's best (cp.async pipeline, larger warp tiles). The performance tier times
// it when the file defines it, hgemm_mma otherwise.
__attribute__((weak)) void hgemm_fast(const __half* A, const __half* B, float* C, int M, int N, int K);

// The reference's other rungs of the chapter's ladder. Weak: tested when the file defines them.
__attribute__((weak)) void hgemm_mma_unswizzled(const __half* A, const __half* B, float* C, int M, int N, int K);
__attribute__((weak)) void hgemm_cp_async(const __half* A, const __half* B, float* C, int M, int N, int K);
__attribute__((weak)) void hgemm_multistage(const __half* A, const __half* B, float* C, int M, int N, int K);
