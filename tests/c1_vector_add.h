// The C1 contract, as the tests see it: c[i] = a[i] + b[i] for 0 <= i < n. a, b and c are device
// pointers to n floats each, and each may start at any float boundary (not only at 16 bytes). Each
// function launches on the default stream and returns without synchronising.
#pragma once

// Required: a file without these does not link, and the judge says which one is missing.
void vector_add(const float* a, const float* b, float* c, int n);       // one thread per element
void vector_add_vec4(const float* a, const float* b, float* c, int n);  // float4 body, scalar head and tail

// The reference's other variants. Weak: tested when the file defines them, skipped otherwise.
__attribute__((weak)) void vector_add_grid_stride(const float* a, const float* b, float* c, int n);
__attribute__((weak)) void vector_add_fast(const float* a, const float* b, float* c, int n);
__attribute__((weak)) void copy_vec4(const float* x, float* y, int n);  // y = x: the upper bound
