// The C3 contract, as the tests see it. x is M×N and y is N×M, row-major, device pointers; each
// function launches on the default stream and returns without synchronising.
#pragma once

// Required: a file without these does not link, and the judge says which one is missing.
void transpose_naive(const float* x, float* y, int M, int N);
void transpose_tiled(const float* x, float* y, int M, int N);

// The reference's other variants. Weak: tested when the file defines them, skipped otherwise.
__attribute__((weak)) void transpose_tiled_unpadded(const float* x, float* y, int M, int N);
__attribute__((weak)) void transpose_tiled_swizzled(const float* x, float* y, int M, int N);
__attribute__((weak)) void transpose_fast(const float* x, float* y, int M, int N);
__attribute__((weak)) void copy_tiled(const float* x, float* y, int M, int N);  // y is M×N: the upper bound
__attribute__((weak)) void transpose_inplace_square(float* a, int n);
