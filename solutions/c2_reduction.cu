// C2 reference: the sum of n values. x is a device pointer to n values that may start at any
// element boundary; out is a device pointer to one value, which every function overwrites (its old
// value is never read). Every host function launches on the default stream and returns; the caller
// synchronises.
//
// Scratch space: the one-element-per-thread ladder writes one partial sum per block into a
// workspace that is kept between calls and grown with cudaMalloc when a longer input needs more;
// the grid-stride kernels have at most MAX_BLOCKS blocks and keep their partial sums in a fixed
// __device__ array. Neither is safe for calls on several streams at once; the contract has one.
#include <cstdint>
#include <cuda_runtime.h>

namespace {

constexpr int BLOCK = 256;                  // threads per block in every kernel here
// region: full-mask
constexpr unsigned FULL_MASK = 0xffffffffu; // all 32 lanes take part in a shuffle
// endregion: full-mask

// ---- building blocks: a warp's sum and a block's sum ----

// Butterfly: the step with distance d adds the value of lane (lane ^ d). After the steps 16, ..., d
// a lane holds the sum of the 32 / d lanes that agree with it in the bits below d (after d = 16:
// lanes l and l ^ 16; after d = 8: the four lanes equal mod 8), so after d = 1 every lane holds the
// whole warp's sum. No shared memory, no barrier.
// region: warp-sum
template <class T>
__device__ T warp_sum(T v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(FULL_MASK, v, d);
  return v;
}
// endregion: warp-sum

// Each warp sums its 32 values with shuffles; lane 0 of each warp leaves the warp's sum in shared
// memory; after one barrier, warp 0 sums those BLOCK / 32 values. The result is right in thread 0.
// region: block-sum
template <class T>
__device__ T block_sum(T v) {
  __shared__ T warp_sums[BLOCK / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_sum(lane < BLOCK / 32 ? warp_sums[lane] : T(0));
  return v;
}
// endregion: block-sum

// ---- the ladder: one element per thread (two from step 4), one partial sum per block ----

// 1. Interleaved addressing, divergent: in the step with distance s only threads whose index is a
// multiple of 2s add, so every warp keeps running, mostly idle, until 2s passes 32.
// region: interleaved-divergent
__global__ void interleaved_divergent_kernel(const float* __restrict__ x, float* __restrict__ partials, int n) {
  __shared__ float s[BLOCK];
  const unsigned t = threadIdx.x;
  const int64_t i = (int64_t)blockIdx.x * BLOCK + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned d = 1; d < BLOCK; d *= 2) {
    if (t % (2 * d) == 0) s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}
// endregion: interleaved-divergent

// 2. Interleaved addressing, strided index: the busy threads are now 0, 1, 2, ... (whole warps
// retire), but thread t touches s[2dt]: a warp's 32 words are 2d apart, a 2-, 4-, 8-... way conflict.
__global__ void interleaved_strided_kernel(const float* __restrict__ x, float* __restrict__ partials, int n) {
  __shared__ float s[BLOCK];
  const unsigned t = threadIdx.x;
  const int64_t i = (int64_t)blockIdx.x * BLOCK + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  // region: strided-loop
  for (unsigned d = 1; d < BLOCK; d *= 2) {
    const unsigned k = 2 * d * t;
    if (k < BLOCK) s[k] += s[k + d];
    __syncthreads();
  }
  // endregion: strided-loop
  if (t == 0) partials[blockIdx.x] = s[0];
}

// 3. Sequential addressing: thread t adds s[t + d] to s[t], d = 128, 64, ..., 1. The busy threads
// are contiguous and so are the words they touch: no divergence within a warp while d >= 32, and
// no bank conflict.
__global__ void sequential_kernel(const float* __restrict__ x, float* __restrict__ partials, int n) {
  __shared__ float s[BLOCK];
  const unsigned t = threadIdx.x;
  const int64_t i = (int64_t)blockIdx.x * BLOCK + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  // region: sequential-loop
  for (unsigned d = BLOCK / 2; d > 0; d /= 2) {
    if (t < d) s[t] += s[t + d];
    __syncthreads();
  }
  // endregion: sequential-loop
  if (t == 0) partials[blockIdx.x] = s[0];
}

// 4. First add during load: a block covers 2 * BLOCK elements and each thread adds its two while
// loading, so no thread is idle in the first step and half as many blocks are launched.
__global__ void first_add_kernel(const float* __restrict__ x, float* __restrict__ partials, int n) {
  __shared__ float s[BLOCK];
  const unsigned t = threadIdx.x;
  // region: first-add-load
  const int64_t i = (int64_t)blockIdx.x * (2 * BLOCK) + t;
  float v = i < n ? x[i] : 0.0f;
  if (i + BLOCK < n) v += x[i + BLOCK];
  s[t] = v;
  // endregion: first-add-load
  __syncthreads();
  for (unsigned d = BLOCK / 2; d > 0; d /= 2) {
    if (t < d) s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}

// 5. The same load, then block_sum: shuffles inside each warp, shared memory only for the 8 warp
// sums, one barrier instead of eight.
// region: warp-shuffle-kernel
__global__ void warp_shuffle_kernel(const float* __restrict__ x, float* __restrict__ partials, int n) {
  const int64_t i = (int64_t)blockIdx.x * (2 * BLOCK) + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  if (i + BLOCK < n) v += x[i + BLOCK];
  v = block_sum(v);
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
}
// endregion: warp-shuffle-kernel

// Scratch for the ladder's partial sums, kept between calls and grown when a longer input needs
// more (as PyTorch's caching allocator keeps memory): a cudaMalloc per call would cost more than
// the sum. cudaFree waits for the kernels that may still use the old buffer.
// region: workspace
float* workspace(int64_t count) {
  static float* buffer = nullptr;
  static int64_t capacity = 0;
  if (count > capacity) {
    cudaFree(buffer);
    buffer = nullptr;
    capacity = 0;
    if (cudaMalloc(&buffer, count * sizeof(float)) != cudaSuccess) return nullptr;
    capacity = count;
  }
  return buffer;
}
// endregion: workspace

using LadderKernel = void (*)(const float*, float*, int);

// Launch `kernel` on x, then on its partial sums, and so on, until one block is left: that launch
// writes *out. Each launch boundary is a grid-wide barrier.
// region: reduce-in-passes
void reduce_in_passes(LadderKernel kernel, int per_block, const float* x, float* out, int n) {
  const int64_t level1 = (n + (int64_t)per_block - 1) / per_block;
  const int64_t level2 = (level1 + per_block - 1) / per_block;
  float* ping = level1 > 1 ? workspace(level1 + level2) : nullptr;
  float* pong = ping ? ping + level1 : nullptr;
  if (level1 > 1 && ping == nullptr) return;  // out of memory: the tests see the launch error
  const float* in = x;
  int count = n;
  for (;;) {
    const int blocks = static_cast<int>((count + (int64_t)per_block - 1) / per_block);
    float* dst = blocks == 1 ? out : ping;
    kernel<<<blocks, BLOCK>>>(in, dst, count);
    if (blocks == 1) return;
    in = dst;
    count = blocks;
    float* spare = ping;
    ping = pong;
    pong = spare;
  }
}
// endregion: reduce-in-passes

// ---- grid-stride: a grid that just fills the GPU, many elements per thread ----

constexpr int MAX_BLOCKS = 2048;
__device__ double g_partials[MAX_BLOCKS];  // storage for one partial sum per block, float or int

template <class T>
__device__ T* partials() { return reinterpret_cast<T*>(g_partials); }

template <class T> struct Vec4;
template <> struct Vec4<float> { using type = float4; };
template <> struct Vec4<int> { using type = int4; };

template <class V>
__device__ auto sum4(const V& v) { return (v.x + v.y) + (v.z + v.w); }

// Each thread adds up its share of x, then block_sum, then one value per block: into its slot of
// the partials (a second kernel adds them) or, with ATOMIC, straight into *out with one atomicAdd.
// WIDTH 4 reads 16 bytes per load, four loads in flight per thread; the elements before x's first
// 16-byte boundary (the head) and after the last whole vector (the tail) are read one by one.
// region: grid-stride-kernel
template <class T, int WIDTH, bool ATOMIC>
__global__ void grid_stride_kernel(const T* __restrict__ x, int n, T* __restrict__ out) {
  const int64_t tid = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * BLOCK;
  T sum = 0;
  if (WIDTH == 1) {
    // region: scalar-loop
    for (int64_t i = tid; i < n; i += stride) sum += x[i];
    // endregion: scalar-loop
  } else {
    // region: vec4-loop
    using V = typename Vec4<T>::type;
    const int misaligned = static_cast<int>(reinterpret_cast<uintptr_t>(x) % 16) / sizeof(T);
    const int head = min(n, (4 - misaligned) % 4);
    const int64_t nvec = (n - head) / 4;
    const V* xv = reinterpret_cast<const V*>(x + head);
    int64_t i = tid;
    for (; i + 3 * stride < nvec; i += 4 * stride) {
      const V a = xv[i], b = xv[i + stride], c = xv[i + 2 * stride], d = xv[i + 3 * stride];
      sum += (sum4(a) + sum4(b)) + (sum4(c) + sum4(d));
    }
    for (; i < nvec; i += stride) sum += sum4(xv[i]);
    const int64_t tail = head + 4 * nvec;
    if (tid < head) sum += x[tid];
    if (tid < n - tail) sum += x[tail + tid];
    // endregion: vec4-loop
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) {
    if (ATOMIC)
      atomicAdd(out, sum);
    else
      partials<T>()[blockIdx.x] = sum;
  }
}
// endregion: grid-stride-kernel

// The second pass: one block adds the partial sums, always in the same order, so the same input
// gives the same bits on every call.
// region: final-sum
template <class T>
__global__ void final_sum_kernel(int count, T* __restrict__ out) {
  T sum = 0;
  for (int i = threadIdx.x; i < count; i += BLOCK) sum += partials<T>()[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) *out = sum;
}
// endregion: final-sum

// As many blocks as the GPU holds at once (more would only queue), at most MAX_BLOCKS, and no more
// than give each thread WIDTH * 4 elements: small inputs get small grids.
// region: grid-for
template <class Kernel>
int grid_for(Kernel kernel, int n, int width) {
  int device = 0, sms = 1, per_sm = 1;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, 0);
  int64_t blocks = (int64_t)sms * (per_sm > 0 ? per_sm : 1);
  const int64_t useful = (n + (int64_t)BLOCK * width * 4 - 1) / ((int64_t)BLOCK * width * 4);
  if (blocks > useful) blocks = useful;
  if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
  return blocks > 0 ? static_cast<int>(blocks) : 1;
}
// endregion: grid-for

// region: two-pass
template <class T, int WIDTH>
void two_pass(const T* x, T* out, int n) {
  const auto kernel = grid_stride_kernel<T, WIDTH, false>;
  const int blocks = grid_for(kernel, n, WIDTH);
  kernel<<<blocks, BLOCK>>>(x, n, nullptr);
  final_sum_kernel<T><<<1, BLOCK>>>(blocks, out);
}
// endregion: two-pass

// region: one-pass-atomic
template <class T>
void one_pass_atomic(const T* x, T* out, int n) {
  const auto kernel = grid_stride_kernel<T, 4, true>;
  cudaMemsetAsync(out, 0, sizeof(T));  // the blocks add into *out: it must start at zero
  kernel<<<grid_for(kernel, n, 4), BLOCK>>>(x, n, out);
}
// endregion: one-pass-atomic

// ---- the upper bound: read n floats and write them back (the same float4 structure) ----

__global__ void copy_vec4_kernel(const float* __restrict__ x, float* __restrict__ y, int n, int head) {
  const int64_t nvec = (n - head) / 4;
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nvec) reinterpret_cast<float4*>(y + head)[i] = reinterpret_cast<const float4*>(x + head)[i];
  const int64_t tail = head + 4 * nvec;
  if (i < head) y[i] = x[i];
  if (i < n - tail) y[tail + i] = x[tail + i];
}

template <class T>
bool empty_input(T* out, int n) {
  if (n > 0) return false;
  cudaMemsetAsync(out, 0, sizeof(T));  // the sum of nothing is zero
  return true;
}

}  // namespace

// ---- the contract: what the tests call ----

// Deterministic: float4 grid-stride partial sums, then one block adds them in a fixed order.
// region: contract
void reduce_sum(const float* x, float* out, int n) {
  if (empty_input(out, n)) return;
  two_pass<float, 4>(x, out, n);
}

// Exact: integer addition is associative (it wraps modulo 2^32), so any order gives the same bits.
void reduce_sum_int(const int* x, int* out, int n) {
  if (empty_input(out, n)) return;
  two_pass<int, 4>(x, out, n);
}
// endregion: contract

// ---- the variants the chapter discusses, each behind its own host function ----

void reduce_interleaved_divergent(const float* x, float* out, int n) {
  if (empty_input(out, n)) return;
  reduce_in_passes(interleaved_divergent_kernel, BLOCK, x, out, n);
}

void reduce_interleaved_strided(const float* x, float* out, int n) {
  if (empty_input(out, n)) return;
  reduce_in_passes(interleaved_strided_kernel, BLOCK, x, out, n);
}

void reduce_sequential(const float* x, float* out, int n) {
  if (empty_input(out, n)) return;
  reduce_in_passes(sequential_kernel, BLOCK, x, out, n);
}

void reduce_first_add(const float* x, float* out, int n) {
  if (empty_input(out, n)) return;
  reduce_in_passes(first_add_kernel, 2 * BLOCK, x, out, n);
}

void reduce_warp_shuffle(const float* x, float* out, int n) {
  if (empty_input(out, n)) return;
  reduce_in_passes(warp_shuffle_kernel, 2 * BLOCK, x, out, n);
}

// Scalar loads, grid-stride, two passes: what the float4 loads of reduce_sum add on top.
void reduce_grid_stride(const float* x, float* out, int n) {
  if (empty_input(out, n)) return;
  two_pass<float, 1>(x, out, n);
}

// float4 grid-stride, one atomicAdd per block: one launch, but the order in which the blocks'
// sums arrive changes from run to run, and so can the last bits of the result.
void reduce_atomic(const float* x, float* out, int n) {
  if (empty_input(out, n)) return;
  one_pass_atomic<float>(x, out, n);
}

void copy_vec4(const float* x, float* y, int n) {
  if (n <= 0) return;
  int head = static_cast<int>((16 - reinterpret_cast<uintptr_t>(x) % 16) % 16 / 4);
  if (head > n) head = n;
  if (reinterpret_cast<uintptr_t>(y) % 16 != reinterpret_cast<uintptr_t>(x) % 16) head = n;  // all scalar
  const int64_t items = head == n ? n : (n - head) / 4;
  const int blocks = items > 0 ? static_cast<int>((items + BLOCK - 1) / BLOCK) : 1;
  copy_vec4_kernel<<<blocks, BLOCK>>>(x, y, n, head);
}
