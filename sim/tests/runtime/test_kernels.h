// Kernels of two separately compiled modules (kernels_a.cu, kernels_b.cu), reached through host
// functions so the tests see several registered fat binaries.
#pragma once

#include <cuda_runtime.h>

// Module A
const void* kernel_add();            // y[i] = a[i] + b[i] * coef[0]; counts calls in `counter`
const void* kernel_fill_float();     // template instance fill<float>
const void* kernel_shared_tile();    // uses a static __shared__ float[32][33] (4224 bytes)
const void* kernel_dynamic_shared(); // extern __shared__ only
const void* kernel_bounded();        // __launch_bounds__(128)
const void* kernel_all_arrive();     // every block waits until all blocks of the grid have arrived
const void* symbol_counter();        // __device__ int counter
const void* symbol_coef();           // __constant__ float coef[4]
cudaError_t launch_add(const float* a, const float* b, float* y, int n, cudaStream_t s = 0);
cudaError_t launch_fill(float* p, float v, int n);
cudaError_t launch_dynamic(float* p, int n, size_t shared_bytes);
cudaError_t launch_out_of_bounds(float* p, int n);   // writes p[n + 100000]
cudaError_t launch_with_block(dim3 block);           // fill<float> on a null pointer, n = 0
cudaError_t launch_spin(int* flag);                  // spins until *flag != 0
// all_arrive: *arrived counts the blocks in; seen[b] is what block b read when it left.
cudaError_t launch_all_arrive(unsigned* arrived, unsigned* seen, int blocks, int threads);

// Module B
const void* kernel_transpose_naive();
const void* kernel_transpose_tiled();
const void* symbol_table();          // __device__ float table[16]
cudaError_t launch_transpose_naive(const float* x, float* y, int m, int n);
cudaError_t launch_transpose_tiled(const float* x, float* y, int m, int n);
