// Problem 71 (C1): c = a + b over n floats, first one element per thread, then with float4.
// Read content/c1.md first. Judge with: python practice/judge.py 71
//
// The tests call the two host functions at the bottom; keep their names and signatures.
// a, b and c are device pointers; launch on the default stream and return.
#include <cstdint>
#include <cuda_runtime.h>

constexpr int BLOCK = 256;  // threads per block

// Warm-up: thread i adds element i; the last block may have threads past the end.
__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// The exercise: a, b and c start on a 16-byte boundary here (the host function below makes sure).
// Thread i adds float4 number i; then the last n % 4 floats, which no float4 covers, are the tail.
__global__ void vector_add_vec4_kernel(const float* a, const float* b, float* c, int n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) {
    const float4 x = reinterpret_cast<const float4*>(a)[i], y = reinterpret_cast<const float4*>(b)[i];
    reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }

  if (i < n % 4) c[4 * (n / 4) + i] = a[4 * (n / 4) + i] + b[4 * (n / 4) + i];
}

void vector_add(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  vector_add_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(a, b, c, n);
}

// A float4 access must start on a 16-byte boundary. When a, b and c are the same number of floats
// past one, a few scalar adds (the head) bring all three to the boundary; when they differ, no
// float4 can be aligned for all three and the scalar kernel does the work.
void vector_add_vec4(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  const uintptr_t off = reinterpret_cast<uintptr_t>(a) % 16;
  if (reinterpret_cast<uintptr_t>(b) % 16 != off || reinterpret_cast<uintptr_t>(c) % 16 != off) {
    vector_add(a, b, c, n);
    return;
  }
  int head = static_cast<int>((16 - off) % 16 / 4);  // 0 to 3 floats before the boundary
  if (head > n) head = n;
  if (head > 0) vector_add(a, b, c, head);
  const int rest = n - head;
  const int vecs = rest / 4;
  const int blocks = vecs > 0 ? (vecs + BLOCK - 1) / BLOCK : 1;  // one block for the tail at least
  if (rest > 0) vector_add_vec4_kernel<<<blocks, BLOCK>>>(a + head, b + head, c + head, rest);
}
