// C1 reference: c = a + b, element by element, over n floats. a, b and c are device pointers; each
// may start at any float boundary (the tests pass pointers 4, 8 or 12 bytes past a 16-byte one).
// Every host function launches on the default stream and returns; the caller synchronises.
#include <cstdint>
#include <cuda_runtime.h>

namespace {

constexpr int BLOCK = 256;  // threads per block in every kernel here

// One thread per element: ceil(n / 256) blocks. blockIdx.x * blockDim.x is unsigned arithmetic;
// widening it first keeps the index right however large the grid is.
// region: one-per-thread
__global__ void add_one_per_thread_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ c, int n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
// endregion: one-per-thread

// Grid-stride loop: a grid that just fills the GPU walks the whole array, each thread taking every
// (gridDim.x * blockDim.x)-th element. The index is 64-bit: i + stride can pass 2^31 - 1 when n is
// close to it, and a 32-bit i would wrap to a negative index that still passes `i < n`.
// region: grid-stride
__global__ void add_grid_stride_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}
// endregion: grid-stride

// float4: one 16-byte load or store moves four floats. The first `head` floats (0 to 3) bring a, b
// and c to a 16-byte boundary; the float4 body follows; the last (n - head) % 4 floats are the tail.
// Each thread handles UNROLL float4s, BLOCK apart, so that a warp's accesses stay contiguous, and
// issues all its loads before the first add: 2 * UNROLL * 16 bytes in flight per thread.
// region: vec4-kernel
template <int UNROLL>
__global__ void add_vec4_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                int n, int head) {
  const int64_t nvec = (n - head) / 4;  // whole float4s after the head
  const float4* a4 = reinterpret_cast<const float4*>(a + head);
  const float4* b4 = reinterpret_cast<const float4*>(b + head);
  float4* c4 = reinterpret_cast<float4*>(c + head);
  const int64_t first = (int64_t)blockIdx.x * (BLOCK * UNROLL) + threadIdx.x;

  // region: vec4-body
  float4 va[UNROLL], vb[UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const int64_t i = first + u * BLOCK;
    if (i < nvec) {
      va[u] = a4[i];
      vb[u] = b4[i];
    }
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const int64_t i = first + u * BLOCK;
    if (i < nvec) c4[i] = make_float4(va[u].x + vb[u].x, va[u].y + vb[u].y, va[u].z + vb[u].z, va[u].w + vb[u].w);
  }
  // endregion: vec4-body

  // region: vec4-tail
  // The scalars no float4 covers go to the first threads of the grid: at most 3 + 3 of them.
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t tail = head + 4 * nvec;  // first element of the tail
  if (t < head) c[t] = a[t] + b[t];
  if (t < n - tail) c[tail + t] = a[tail + t] + b[tail + t];
  // endregion: vec4-tail
}
// endregion: vec4-kernel

// The chapter's upper bound: the same float4 structure, one read and one write per element.
// region: copy-vec4
__global__ void copy_vec4_kernel(const float* __restrict__ x, float* __restrict__ y, int n, int head) {
  const int64_t nvec = (n - head) / 4;
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nvec) reinterpret_cast<float4*>(y + head)[i] = reinterpret_cast<const float4*>(x + head)[i];
  const int64_t tail = head + 4 * nvec;
  if (i < head) y[i] = x[i];
  if (i < n - tail) y[tail + i] = x[tail + i];
}
// endregion: copy-vec4

int offset_in_16B(const void* p) { return static_cast<int>(reinterpret_cast<uintptr_t>(p) % 16); }

// Floats before p reaches a 16-byte boundary (p is float-aligned, so the offset is 0, 4, 8 or 12 bytes).
// region: head-floats
int head_floats(const void* p, int n) {
  const int head = (16 - offset_in_16B(p)) % 16 / 4;
  return head < n ? head : n;
}
// endregion: head-floats

int blocks_for(int64_t items, int per_block) {
  const int64_t b = (items + per_block - 1) / per_block;
  return b > 0 ? static_cast<int>(b) : 1;  // the head and tail need a block even when no float4 is left
}

// As many blocks as the GPU holds at once: more would only queue behind them.
// region: resident-blocks
template <class Kernel>
int resident_blocks(Kernel kernel) {
  int device = 0, sms = 1, per_sm = 1;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, 0);
  return sms * (per_sm > 0 ? per_sm : 1);
}
// endregion: resident-blocks

// region: grid-stride-launch
void add_grid_stride(const float* a, const float* b, float* c, int n) {
  const int fill = resident_blocks(add_grid_stride_kernel);
  const int needed = blocks_for(n, BLOCK);
  add_grid_stride_kernel<<<needed < fill ? needed : fill, BLOCK>>>(a, b, c, n);
}
// endregion: grid-stride-launch

// float4 needs a, b and c at the same offset within 16 bytes, so that one head aligns all three;
// otherwise no float4 access is possible and the scalar grid-stride kernel does the work.
// region: vec4-dispatch
template <int UNROLL>
void add_vec4(const float* a, const float* b, float* c, int n) {
  const int off = offset_in_16B(a);
  if (offset_in_16B(b) != off || offset_in_16B(c) != off) {
    add_grid_stride(a, b, c, n);
    return;
  }
  const int head = head_floats(a, n);
  add_vec4_kernel<UNROLL><<<blocks_for((n - head) / 4, BLOCK * UNROLL), BLOCK>>>(a, b, c, n, head);
}
// endregion: vec4-dispatch

}  // namespace

// ---- the contract: what the tests call ----

// region: contract
void vector_add(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  add_one_per_thread_kernel<<<blocks_for(n, BLOCK), BLOCK>>>(a, b, c, n);
}

void vector_add_vec4(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  add_vec4<1>(a, b, c, n);
}
// endregion: contract

// ---- the variants the chapter discusses, each behind its own host function ----

void vector_add_grid_stride(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  add_grid_stride(a, b, c, n);
}

// Four float4s per thread: 128 bytes of loads in flight per thread instead of 32.
// region: vector-add-fast
void vector_add_fast(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  add_vec4<4>(a, b, c, n);
}
// endregion: vector-add-fast

void copy_vec4(const float* x, float* y, int n) {
  if (n <= 0) return;
  int head = head_floats(x, n);
  if (offset_in_16B(y) != offset_in_16B(x)) head = n;  // no common alignment: all scalar (tests only)
  copy_vec4_kernel<<<blocks_for(head == n ? n : (n - head) / 4, BLOCK), BLOCK>>>(x, y, n, head);
}
