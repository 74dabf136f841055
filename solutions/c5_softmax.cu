// C5 reference: softmax of each row of x (rows × cols, row-major, float32) into y.
// x and y are device pointers; every host function launches on the default stream and returns;
// the caller synchronises.
//
// Scratch space: when one row is split across several blocks (softmax_split, softmax_fast on long
// rows), the blocks exchange their parts of the row through fixed __device__ arrays (tagged with a
// call number for the split kernel, in two banks that alternate by launch for the task kernel) and
// take their work in order from a ticket counter that resets itself. None of this is safe for calls
// on several streams at once; the contract has one.
#include <cfloat>
#include <cstdint>
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace {

constexpr unsigned FULL_MASK = 0xffffffffu;  // every lane of the warp takes part in a shuffle
constexpr int BLOCK = 256;                   // threads per block of the streaming kernels (1-3)
constexpr int WARP_ROWS_BLOCK = 256;         // threads per block of the lane-group kernel

// region: max-sum
// What softmax needs to know about part of a row: its largest element m and d = sum of e^(x - m).
// A part that has seen nothing is {-FLT_MAX, 0}, not {-inf, 0}: -inf - (-inf) is NaN, and that NaN
// would spread to the whole row as soon as two empty parts (or parts holding only -inf) combine.
struct MaxSum {
  float m, d;
};

__device__ __forceinline__ MaxSum empty_part() { return {-FLT_MAX, 0.0f}; }

// Two parts as one: rescale both sums to the larger maximum. The products are rounded separately
// (no fused multiply-add), so combine(a, b) and combine(b, a) agree bit for bit.
__device__ __forceinline__ MaxSum combine(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  return {m, __fmul_rn(a.d, __expf(a.m - m)) + __fmul_rn(b.d, __expf(b.m - m))};
}
// endregion: max-sum

// region: online-update
// One more element: when x raises the maximum, the sum so far was taken against the old maximum
// and is rescaled by e^(old - new) before e^(x - new) joins it (Milakov & Gimelshein, 2018).
__device__ __forceinline__ void online_add(MaxSum& s, float x) {
  const float m = fmaxf(s.m, x);
  s.d = s.d * __expf(s.m - m) + __expf(x - m);
  s.m = m;
}
// endregion: online-update

// region: warp-combine
// Butterfly over groups of WIDTH lanes: lanes i and i ^ k combine the same two parts, so after the
// step with k = 1 every lane of the group holds the group's part.
template <int WIDTH = 32>
__device__ __forceinline__ MaxSum warp_combine(MaxSum s) {
  for (int k = WIDTH / 2; k > 0; k /= 2)
    s = combine(s, {__shfl_xor_sync(FULL_MASK, s.m, k), __shfl_xor_sync(FULL_MASK, s.d, k)});
  return s;
}

// The block's part, in every thread. slots (one per warp) must not be written again before the
// next barrier.
template <int THREADS>
__device__ __forceinline__ MaxSum block_combine(MaxSum s, MaxSum* slots) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  s = warp_combine(s);
  if (lane == 0) slots[warp] = s;
  __syncthreads();
  return warp_combine(lane < THREADS / 32 ? slots[lane] : empty_part());
}
// endregion: warp-combine

// The naive kernel's two reductions, each with its own shared slots (one barrier each).
__device__ __forceinline__ float block_max(float v) {
  __shared__ float slots[BLOCK / 32];
  for (int k = 16; k > 0; k /= 2) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, k));
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < BLOCK / 32 ? slots[threadIdx.x % 32] : -INFINITY;
  for (int k = 16; k > 0; k /= 2) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, k));
  return v;
}

__device__ __forceinline__ float block_sum(float v) {
  __shared__ float slots[BLOCK / 32];
  for (int k = 16; k > 0; k /= 2) v += __shfl_xor_sync(FULL_MASK, v, k);
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < BLOCK / 32 ? slots[threadIdx.x % 32] : 0.0f;
  for (int k = 16; k > 0; k /= 2) v += __shfl_xor_sync(FULL_MASK, v, k);
  return v;
}

// ---- 1. naive: three passes, a block per row ----

// region: naive
// The row's maximum, then the sum of e^(x - max), then y: x is read three times. An all -inf row
// gives max = -inf, x - max = NaN, and so NaN everywhere, as torch.softmax does.
__global__ void naive_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const float* xr = x + (int64_t)blockIdx.x * cols;
  float* yr = y + (int64_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += BLOCK) m = fmaxf(m, xr[c]);
  m = block_max(m);
  float d = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) d += __expf(xr[c] - m);
  const float inv = 1.0f / block_sum(d);
  for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = __expf(xr[c] - m) * inv;
}
// endregion: naive

// ---- 2. online: maximum and sum in one pass, then y ----

// region: online
__global__ void online_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ MaxSum slots[BLOCK / 32];
  const float* xr = x + (int64_t)blockIdx.x * cols;
  float* yr = y + (int64_t)blockIdx.x * cols;
  MaxSum s = empty_part();
  for (int c = threadIdx.x; c < cols; c += BLOCK) online_add(s, xr[c]);  // read 1
  s = block_combine<BLOCK>(s, slots);
  const float inv = 1.0f / s.d;
  for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = __expf(xr[c] - s.m) * inv;  // read 2
}
// endregion: online

// ---- 3. by width: a warp per row while rows are short ----

// region: online-warp
// The same two passes with one warp per row: no shared memory, no barrier, and no thread idle on a
// row of 128 (a 256-thread block would leave half of its threads without an element).
constexpr int ROWS_PER_WARP_BLOCK = BLOCK / 32;

__global__ void online_warp_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int lane = threadIdx.x % 32;
  const int64_t row = (int64_t)blockIdx.x * ROWS_PER_WARP_BLOCK + threadIdx.x / 32;
  if (row >= rows) return;  // the whole warp leaves: none of its lanes is needed for a shuffle
  const float* xr = x + row * cols;
  float* yr = y + row * cols;
  MaxSum s = empty_part();
  for (int c = lane; c < cols; c += 32) online_add(s, xr[c]);
  s = warp_combine(s);
  const float inv = 1.0f / s.d;
  for (int c = lane; c < cols; c += 32) yr[c] = __expf(xr[c] - s.m) * inv;
}
// endregion: online-warp

// ---- 4-6. the row (or a segment of it) held in registers: x read once ----

// VEC consecutive floats per access: 4 (one 16-byte float4) when the rows are 16-byte aligned.
template <int VEC>
__device__ __forceinline__ void load_vec(float* v, const float* p) {
  if constexpr (VEC == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else {
    for (int i = 0; i < VEC; ++i) v[i] = p[i];
  }
}

template <int VEC>
__device__ __forceinline__ void store_vec(float* p, const float* v) {
  if constexpr (VEC == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else {
    for (int i = 0; i < VEC; ++i) p[i] = v[i];
  }
}

// region: hold-in-registers
// A thread's N = CHUNKS * VEC values of the row, from `first` on, STRIDE threads apart: chunk k of
// thread t starts at first + (k * STRIDE + t) * VEC, so neighbouring threads read neighbouring
// addresses. Slots past the row's end hold -inf, which adds e^-inf = 0 to the sum.
template <int STRIDE, int VEC, int CHUNKS>
__device__ __forceinline__ void load_part(float (&v)[CHUNKS * VEC], const float* xr, int first, int t, int cols) {
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = first + (k * STRIDE + t) * VEC;
    if (c < cols) {
      load_vec<VEC>(v + k * VEC, xr + c);
    } else {
#pragma unroll
      for (int i = 0; i < VEC; ++i) v[k * VEC + i] = -INFINITY;
    }
  }
}

// The thread's own part, leaving e^(x - m) in v (one exponential per element, reused for y).
template <int N>
__device__ __forceinline__ MaxSum own_part(float (&v)[N]) {
  float m = -FLT_MAX;
#pragma unroll
  for (int i = 0; i < N; ++i) m = fmaxf(m, v[i]);
  float d = 0.0f;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    v[i] = __expf(v[i] - m);
    d += v[i];
  }
  return {m, d};
}

// y = e^(x - m) * e^(m - M) / D, with M and D the whole row's: one multiply per element.
template <int STRIDE, int VEC, int CHUNKS>
__device__ __forceinline__ void store_part(float* yr, float (&v)[CHUNKS * VEC], float own_max, MaxSum row,
                                           int first, int t, int cols) {
  const float scale = __expf(own_max - row.m) / row.d;
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = first + (k * STRIDE + t) * VEC;
    float out[VEC];
#pragma unroll
    for (int i = 0; i < VEC; ++i) out[i] = v[k * VEC + i] * scale;
    if (c < cols) store_vec<VEC>(yr + c, out);
  }
}
// endregion: hold-in-registers

// region: lane-groups
// Short rows: a group of LANES lanes per row, WARP_ROWS_BLOCK / LANES rows per block. Groups past
// the last row still run (with -inf) so that every lane of the warp reaches the shuffles.
template <int LANES, int VEC, int CHUNKS>
__global__ void __launch_bounds__(WARP_ROWS_BLOCK)
    lane_groups_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int lane = threadIdx.x % LANES;
  const int64_t row = (int64_t)blockIdx.x * (WARP_ROWS_BLOCK / LANES) + threadIdx.x / LANES;
  const bool live = row < rows;
  float v[CHUNKS * VEC];
  load_part<LANES, VEC, CHUNKS>(v, x + row * cols, 0, lane, live ? cols : 0);
  const MaxSum own = own_part(v);
  const MaxSum total = warp_combine<LANES>(own);
  store_part<LANES, VEC, CHUNKS>(y + row * cols, v, own.m, total, 0, lane, live ? cols : 0);
}
// endregion: lane-groups

// ---- rows split across blocks ----

// region: split-scratch
// One slot per segment of the rows of one launch. The flag holds the number of the call that
// wrote the slot, so that slots need no clearing between calls.
constexpr int MAX_SEGMENTS = 1 << 16;
__device__ MaxSum g_parts[MAX_SEGMENTS];
__device__ unsigned g_flags[MAX_SEGMENTS];
__device__ unsigned g_ticket;  // the next segment to take; wraps back to 0 after the launch's last
// endregion: split-scratch

// region: split-exchange
// The row's part from all of its `segments` blocks: publish this block's part, wait until every
// segment of the row has published in this call, then combine the parts in the same order in every
// block, so that all of them normalise by bit-identical values. Waiting is safe because segments
// are taken in ticket order and every row has no more segments than the GPU holds blocks at once:
// the blocks of the oldest unfinished row have all started, and none of them waits for a later row.
__device__ __forceinline__ MaxSum row_total(MaxSum block_part, int64_t first_slot, int seg, int segments, unsigned call) {
  __shared__ MaxSum total;
  if (threadIdx.x == 0) {
    volatile float* slot = &g_parts[first_slot + seg].m;
    slot[0] = block_part.m;
    slot[1] = block_part.d;
    __threadfence();  // the part is visible to every block before the flag is
    *reinterpret_cast<volatile unsigned*>(&g_flags[first_slot + seg]) = call;
  }
  if (threadIdx.x < 32) {
    MaxSum s = empty_part();
    for (int i = threadIdx.x; i < segments; i += 32) {
      const volatile unsigned* flag = &g_flags[first_slot + i];
      while (*flag != call) __nanosleep(256);
      __threadfence();
      const volatile float* slot = &g_parts[first_slot + i].m;
      s = combine(s, {slot[0], slot[1]});
    }
    s = warp_combine(s);
    if (threadIdx.x == 0) total = s;
  }
  __syncthreads();
  return total;
}
// endregion: split-exchange

// region: block-rows
// A block holds SEGMENT = THREADS * VEC * CHUNKS floats of a row in registers; a row of cols floats
// takes `segments` = ceil(cols / SEGMENT) blocks. With one segment the block index is the row; with
// more, each block takes the next ticket, which names its row and segment.
template <int THREADS, int VEC, int CHUNKS>
__global__ void __launch_bounds__(THREADS)
    block_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int segments, unsigned call) {
  constexpr int SEGMENT = THREADS * VEC * CHUNKS;
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ unsigned ticket;
  unsigned item = blockIdx.x;
  if (segments > 1) {
    if (threadIdx.x == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
    __syncthreads();
    item = ticket;
  }
  const int64_t row = item / segments;
  const int seg = static_cast<int>(item % segments);
  const float* xr = x + row * cols;
  float v[CHUNKS * VEC];
  load_part<THREADS, VEC, CHUNKS>(v, xr, seg * SEGMENT, threadIdx.x, cols);
  const MaxSum own = own_part(v);
  MaxSum total = block_combine<THREADS>(own, slots);
  if (segments > 1) total = row_total(total, row * segments, seg, segments, call);
  store_part<THREADS, VEC, CHUNKS>(y + row * cols, v, own.m, total, seg * SEGMENT, threadIdx.x, cols);
}
// endregion: block-rows

// region: shifted-rows
// Rows that do not start on a 16-byte boundary (8192×4097: row r starts 4097·4·r bytes in) still
// get float4 accesses for their middle: the h = 0..3 floats before the row's first boundary and the
// 0..3 after its last whole float4 are single floats, held by threads 0..2 in two more registers.
// x and y must sit at the same offset within 16 bytes, so that one h serves both.
template <int THREADS, int CHUNKS>
__global__ void __launch_bounds__(THREADS)
    shifted_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ MaxSum slots[THREADS / 32];
  const float* xr = x + (int64_t)blockIdx.x * cols;
  float* yr = y + (int64_t)blockIdx.x * cols;
  const int t = threadIdx.x;
  const int to_boundary = static_cast<int>((16 - reinterpret_cast<uintptr_t>(xr) % 16) % 16 / 4);
  const int h = to_boundary < cols ? to_boundary : cols;  // the head: single floats
  const int body = (cols - h) / 4 * 4;                    // whole float4s from xr + h on
  const int tail = cols - h - body;                       // single floats after them
  float v[CHUNKS * 4], edge[2];
  load_part<THREADS, 4, CHUNKS>(v, xr + h, 0, t, body);
  edge[0] = t < h ? xr[t] : -INFINITY;
  edge[1] = t < tail ? xr[h + body + t] : -INFINITY;
  const MaxSum own = own_part(v), own_edge = own_part(edge);
  const MaxSum total = block_combine<THREADS>(combine(own, own_edge), slots);
  store_part<THREADS, 4, CHUNKS>(yr + h, v, own.m, total, 0, t, body);
  const float scale = __expf(own_edge.m - total.m) / total.d;
  if (t < h) yr[t] = edge[0] * scale;
  if (t < tail) yr[h + body + t] = edge[1] * scale;
}
// endregion: shifted-rows

// ---- 7. a row across a thread-block cluster (sm_90) ----

// region: cluster-rows
// block_rows_kernel's split, with the K blocks of a row launched as one thread-block cluster: the
// hardware runs them at the same time on neighbouring SMs, and they exchange their parts through each
// other's shared memory and the cluster barrier instead of global flags, so no block waits on a flag
// that travels through a saturated L2. The simulator runs compute_80 PTX, which has no clusters:
// there the same kernel takes tickets and exchanges through row_total, as block_rows_kernel does.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define ROW_CLUSTER(k) __cluster_dims__(k, 1, 1)
#else
#define ROW_CLUSTER(k)
#endif

template <int THREADS, int CHUNKS, int K>
__global__ void __launch_bounds__(THREADS) ROW_CLUSTER(K)
    cluster_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, unsigned call) {
  constexpr int SEGMENT = THREADS * 4 * CHUNKS;
  __shared__ MaxSum slots[THREADS / 32];
#if __CUDA_ARCH__ >= 900
  __shared__ MaxSum part, total;
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const unsigned item = blockIdx.x;  // the cluster's blocks are consecutive: block_rank() == item % K
#else
  __shared__ unsigned ticket;
  if (threadIdx.x == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  const unsigned item = ticket;
#endif
  const int64_t row = item / K;
  const int seg = static_cast<int>(item % K);
  float v[CHUNKS * 4];
  load_part<THREADS, 4, CHUNKS>(v, x + row * cols, seg * SEGMENT, threadIdx.x, cols);
  const MaxSum own = own_part(v);
  const MaxSum block = block_combine<THREADS>(own, slots);
#if __CUDA_ARCH__ >= 900
  if (threadIdx.x == 0) part = block;
  cluster.sync();  // every block's part is in its shared memory
  if (threadIdx.x < 32) {
    MaxSum s = threadIdx.x < K ? *cluster.map_shared_rank(&part, threadIdx.x) : empty_part();
    s = warp_combine(s);
    if (threadIdx.x == 0) total = s;
  }
  // The others may still be reading this block's part: arrive now, wait just before leaving.
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  __syncthreads();
  const MaxSum row_sum = total;
#else
  const MaxSum row_sum = row_total(block, row * K, seg, K, call);
#endif
  store_part<THREADS, 4, CHUNKS>(y + row * cols, v, own.m, row_sum, seg * SEGMENT, threadIdx.x, cols);
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}
// endregion: cluster-rows

// region: smem-rows
// 65536 floats a block, half in registers (load_part) and half in dynamic shared memory, which
// cp.async fills without passing through registers: a whole row of 65536 floats in one block, with no
// exchange at all (K = 1), or a row of up to K × 65536 floats on a cluster of K blocks (K = 16: a row
// of 1048576 floats, 4 MB, on 16 SMs). One block a SM: 102 registers × 512 threads and 128 KB of
// shared memory. Without clusters (compute_80, the simulator) the K blocks take tickets and exchange
// through row_total. softmax_fast uses K = 1 only: on the H200 at most 7 such 16-block clusters run at
// once, and K = 16 measured 66.7% of the copy kernel at 64×1048576, below the split kernel's 68.5%.
__device__ __forceinline__ void copy16_async(float4* smem, const float* gmem) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(a), "l"(gmem) : "memory");
}

template <int THREADS, int CHUNKS, int K>
__global__ void __launch_bounds__(THREADS) ROW_CLUSTER(K)
    smem_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, unsigned call) {
  constexpr int REG = THREADS * 4 * CHUNKS;  // floats in registers; as many in shared memory
  constexpr int SEGMENT = 2 * REG;
  extern __shared__ float4 held[];           // CHUNKS * THREADS float4
  __shared__ MaxSum slots[THREADS / 32];
  const int t = threadIdx.x;
#if __CUDA_ARCH__ >= 900
  const unsigned item = blockIdx.x;
#else
  __shared__ unsigned ticket;
  if (K > 1 && t == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  const unsigned item = K > 1 ? ticket : blockIdx.x;
#endif
  const int64_t row = item / K;
  const int seg = static_cast<int>(item % K);
  const float* xr = x + row * cols;
  const int first = seg * SEGMENT;
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {  // the shared half: issued first, lands while the rest loads
    const int c = first + REG + (k * THREADS + t) * 4;
    if (c < cols) {
      copy16_async(&held[k * THREADS + t], xr + c);
    } else {
      held[k * THREADS + t] = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    }
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  float v[CHUNKS * 4];
  load_part<THREADS, 4, CHUNKS>(v, xr, first, t, cols);
  const MaxSum own = own_part(v);
  asm volatile("cp.async.wait_all;" ::: "memory");  // only this thread reads its chunks: no barrier
  float ms = -FLT_MAX, ds = 0.0f;
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    const float4 q = held[k * THREADS + t];
    ms = fmaxf(fmaxf(fmaxf(ms, q.x), fmaxf(q.y, q.z)), q.w);
  }
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {  // e^(x - ms) back in place, used again for y
    float4 q = held[k * THREADS + t];
    q.x = __expf(q.x - ms), q.y = __expf(q.y - ms), q.z = __expf(q.z - ms), q.w = __expf(q.w - ms);
    ds += (q.x + q.y) + (q.z + q.w);
    held[k * THREADS + t] = q;
  }
  const MaxSum own_held = {ms, ds};
  const MaxSum block = block_combine<THREADS>(combine(own, own_held), slots);
  MaxSum row_sum = block;
  if constexpr (K > 1) {
#if __CUDA_ARCH__ >= 900
    __shared__ MaxSum part, total;
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    if (t == 0) part = block;
    cluster.sync();
    if (t < 32) {
      MaxSum s = t < K ? *cluster.map_shared_rank(&part, t) : empty_part();
      s = warp_combine(s);
      if (t == 0) total = s;
    }
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    __syncthreads();
    row_sum = total;
#else
    row_sum = row_total(block, row * K, seg, K, call);
#endif
  }
  store_part<THREADS, 4, CHUNKS>(y + row * cols, v, own.m, row_sum, first, t, cols);
  const float scale = __expf(own_held.m - row_sum.m) / row_sum.d;
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = first + REG + (k * THREADS + t) * 4;
    const float4 q = held[k * THREADS + t];
    if (c < cols) *reinterpret_cast<float4*>(y + row * cols + c) = make_float4(q.x * scale, q.y * scale, q.z * scale, q.w * scale);
  }
#if __CUDA_ARCH__ >= 900
  if constexpr (K > 1) asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}
// endregion: smem-rows

// ---- 8. rows longer than the GPU holds at once: x kept in L2 between its two reads ----

// region: task-scratch
// One 64-bit word per piece of the rows of a launch: the piece's part, its sum with the sign bit set
// (so a published part is never 0) and its maximum. 0 means "not yet": one store publishes both
// halves, so no fence or flag is needed. Two banks alternate by launch, and each launch clears the
// bank the next one uses (the launch before it has finished by then). The ticket counters alternate
// the same way: a launch counts up its own and zeroes the next launch's, so a launch of which only
// some blocks run (the simulator's time model samples blocks) leaves the next one a clean start.
constexpr int TASK_SLOTS = 1 << 16;
__device__ unsigned long long g_task_parts[2][TASK_SLOTS];
__device__ unsigned g_task_tickets[2];

// The bank of parts launch number `call` uses, of two that alternate by launch; its blocks share
// clearing the other, which the next launch uses (the one before this launch has finished with it).
template <int THREADS, int SLOTS>
__device__ __forceinline__ unsigned long long* launch_bank(unsigned long long (&banks)[2][SLOTS], unsigned call) {
  unsigned long long* next = banks[(call + 1) & 1];
  for (int i = blockIdx.x * THREADS + threadIdx.x; i < SLOTS; i += gridDim.x * THREADS) next[i] = 0;
  return banks[call & 1];
}

__device__ __forceinline__ unsigned long long pack_part(MaxSum p) {
  return static_cast<unsigned long long>(__float_as_uint(p.d) | 0x80000000u) << 32 | __float_as_uint(p.m);
}
__device__ __forceinline__ MaxSum unpack_part(unsigned long long v) {
  return {__uint_as_float(static_cast<unsigned>(v)), __uint_as_float(static_cast<unsigned>(v >> 32) & 0x7fffffffu)};
}

// Ticket i's task: `lag` stats first, then write 0, stats lag, write 1, stats lag + 1, ..., and the
// last writes. unit: the piece, numbered along the rows.
__device__ __forceinline__ void task_of(int i, int lag, int units, bool& write, int& unit) {
  if (i < lag) {
    write = false, unit = i;
  } else if (i - lag < 2 * (units - lag)) {
    write = (i - lag) % 2 == 0;
    unit = write ? (i - lag) / 2 : lag + (i - lag) / 2;
  } else {
    write = true, unit = i - units;
  }
}

// The (m, d) of a row from its n published parts, in every lane of the calling warp (lane: this
// thread's lane, which the caller often knows without threadIdx.x % 32); waits for parts not yet
// published, SLEEP ns between looks. A lane requests AT_ONCE words before it waits for any, so
// n <= 32 · AT_ONCE parts take one trip to L2; every caller combines them in the same order.
template <int AT_ONCE, int SLEEP = 64>
__device__ __forceinline__ MaxSum collect_parts(const volatile unsigned long long* row_parts, int n, int lane) {
  MaxSum s = empty_part();
  for (int i0 = lane; i0 < n; i0 += 32 * AT_ONCE) {
    unsigned long long w[AT_ONCE];
#pragma unroll
    for (int u = 0; u < AT_ONCE; ++u) w[u] = i0 + 32 * u < n ? row_parts[i0 + 32 * u] : 0;
#pragma unroll
    for (int u = 0; u < AT_ONCE; ++u) {
      if (i0 + 32 * u < n) {
        while (w[u] == 0) {
          __nanosleep(SLEEP);
          w[u] = row_parts[i0 + 32 * u];
        }
        s = combine(s, unpack_part(w[u]));
      }
    }
  }
  return warp_combine(s);
}

// e^(x - m) as 2^((x - m) · log2 e) with ex2.approx.ftz. __expf is the same approximation without
// .ftz, and ptxas keeps its results below 2^-126 with a compare and two predicated multiplies around
// each MUFU.EX2 (benchmarks/c5_softmax.sass); flushed to 0 instead (within the tolerance's 2^-126
// term), an exponential is FADD, FMUL, MUFU.EX2.
__device__ __forceinline__ float exp_diff_ftz(float x, float m) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"((x - m) * 1.4426950408889634f));
  return r;
}
// endregion: task-scratch

// region: task-rows
// A row of 1048576 floats is 4 MB: no block holds it, and the GPU does not hold 64 of them. So no
// row stays on chip. The rows are cut into pieces of PIECE4 float4 and the work into two kinds of
// task per piece: "stats" reads the piece from DRAM and publishes its part; "write" reads it again,
// `lag` pieces later, when it is still in L2, and writes y with the row's (M, D) from all of the
// row's parts. Blocks live for one task each and take tasks in ticket order: `lag` stats first, then
// write 0, stats lag, write 1, stats lag + 1, ..., and the last writes. So x comes from DRAM once,
// every SM takes the next task when it is free, and a write waits only for stats tasks with earlier
// tickets (lag >= a row of pieces), which never wait: every wait ends. L2 is told to keep what stats
// read (evict_last) and to drop what the write reads (evict_first); y is stored .cs (streaming), so
// it does not push x out either. A piece is VEC float4 a thread in registers, two blocks a SM.
__device__ __forceinline__ float4 ld_policy(const float4* p, unsigned long long policy) {
  float4 v;
  asm volatile("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
  return v;
}

// A stats task's end, called by every thread of the block (t: its thread): the part of the piece whose
// VEC float4 the threads hold (a thread's float4 past the row's end are -inf), each warp's by butterfly,
// then warp 0 alone combines the warps' parts (the other warps are done) and publishes it as one word,
// parts[row · pieces + piece].
template <int THREADS, int VEC>
__device__ __forceinline__ void publish_part(const float4 (&q)[VEC], int t, MaxSum* slots, unsigned long long* parts,
                                             int row, int pieces, int piece) {
  float m = -FLT_MAX, d = 0.0f;
#pragma unroll
  for (int v = 0; v < VEC; ++v) m = fmaxf(fmaxf(fmaxf(m, q[v].x), fmaxf(q[v].y, q[v].z)), q[v].w);
#pragma unroll
  for (int v = 0; v < VEC; ++v)
    d += (exp_diff_ftz(q[v].x, m) + exp_diff_ftz(q[v].y, m)) + (exp_diff_ftz(q[v].z, m) + exp_diff_ftz(q[v].w, m));
  const MaxSum w = warp_combine(MaxSum{m, d});
  if (t % 32 == 0) slots[t / 32] = w;
  __syncthreads();
  if (t < 32) {
    const MaxSum p = warp_combine(t < THREADS / 32 ? slots[t] : empty_part());
    if (t == 0) *reinterpret_cast<volatile unsigned long long*>(&parts[static_cast<int64_t>(row) * pieces + piece]) = pack_part(p);
  }
}

// A write task's end: y = e^(x - m) · inv for the float4 of the piece thread t holds (n4: the piece's
// float4 within the row; m, inv: the row's maximum and 1 / its sum), stored .cs (streaming: not kept in L2).
template <int THREADS, int VEC>
__device__ __forceinline__ void store_piece(float4* yp, const float4 (&q)[VEC], int t, int n4, float m, float inv) {
#pragma unroll
  for (int v = 0; v < VEC; ++v)
    if (v * THREADS + t < n4)
      __stcs(&yp[v * THREADS + t], make_float4(exp_diff_ftz(q[v].x, m) * inv, exp_diff_ftz(q[v].y, m) * inv,
                                               exp_diff_ftz(q[v].z, m) * inv, exp_diff_ftz(q[v].w, m) * inv));
}

template <int THREADS, int VEC>
__global__ void __launch_bounds__(THREADS, 2)
    tasks_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int pieces, int units, int lag,
                      unsigned call) {
  constexpr int PIECE4 = THREADS * VEC;  // float4 a piece: element v of thread t at v·THREADS + t
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ MaxSum total;
  __shared__ unsigned ticket;
  const int t = threadIdx.x;
  unsigned long long* parts = launch_bank<THREADS>(g_task_parts, call);
  if (t == 0) {
    ticket = atomicAdd(&g_task_tickets[call & 1], 1u);
    if (blockIdx.x == 0) g_task_tickets[(call + 1) & 1] = 0;
  }
  __syncthreads();
  bool write;
  int unit;
  task_of(static_cast<int>(ticket), lag, units, write, unit);
  const int row = unit / pieces, piece = unit % pieces;
  const float4* xp = reinterpret_cast<const float4*>(x + static_cast<int64_t>(row) * cols) + piece * PIECE4;
  const int n4 = cols / 4 - piece * PIECE4 < PIECE4 ? cols / 4 - piece * PIECE4 : PIECE4;  // float4 in this piece
  float4 q[VEC];
  if (!write) {  // stats: the piece from DRAM, kept in L2 for its second read
    unsigned long long keep;
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(keep));
#pragma unroll
    for (int v = 0; v < VEC; ++v)
      q[v] = v * THREADS + t < n4 ? ld_policy(xp + v * THREADS + t, keep)
                                  : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    publish_part<THREADS>(q, t, slots, parts, row, pieces, piece);
    return;
  }
  unsigned long long drop;  // write: the piece again, from L2, dropped first after this read
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(drop));
#pragma unroll
  for (int v = 0; v < VEC; ++v)
    q[v] = v * THREADS + t < n4 ? ld_policy(xp + v * THREADS + t, drop) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (t < 32) {  // warp 0 collects the row's parts while the piece is in flight (one trip to L2 for 256 pieces)
    const MaxSum s = collect_parts<8>(&parts[static_cast<int64_t>(row) * pieces], pieces, t);
    if (t == 0) total = s;
  }
  __syncthreads();
  const float m = total.m, inv = 1.0f / total.d;
  store_piece<THREADS>(reinterpret_cast<float4*>(y + static_cast<int64_t>(row) * cols) + piece * PIECE4, q, t, n4, m,
                       inv);
}
// endregion: task-rows

// ---- the upper bound ----

// region: copy-bound
// The same bytes as softmax (x read once, y written once), as a flat float4 copy with a scalar
// tail: what the memory system allows, measured in the same run.
__global__ void copy_vec4_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) reinterpret_cast<float4*>(y)[i] = reinterpret_cast<const float4*>(x)[i];
  const int64_t tail = n / 4 * 4;
  if (i < n - tail) y[tail + i] = x[tail + i];
}
// endregion: copy-bound

// ---- exercise: log softmax ----

// region: log-softmax
// log y = x - m - log d: the same online pass, and no exponential at all in the second one.
__global__ void log_softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ MaxSum slots[BLOCK / 32];
  const float* xr = x + (int64_t)blockIdx.x * cols;
  float* yr = y + (int64_t)blockIdx.x * cols;
  MaxSum s = empty_part();
  for (int c = threadIdx.x; c < cols; c += BLOCK) online_add(s, xr[c]);
  s = block_combine<BLOCK>(s, slots);
  const float shift = s.m + logf(s.d);
  for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = xr[c] - shift;
}
// endregion: log-softmax

// ---- host side: launch configurations ----

bool rows_16B_aligned(const void* x, const void* y, int cols) {
  return cols % 4 == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
}

bool same_offset_in_16B(const void* x, const void* y) {
  return reinterpret_cast<uintptr_t>(x) % 16 == reinterpret_cast<uintptr_t>(y) % 16 &&
         reinterpret_cast<uintptr_t>(x) % 4 == 0;
}

// Blocks of this kernel the GPU holds at once (blocks of `threads` threads and `shared` bytes of dynamic
// shared memory): a split row must not need more.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, size_t shared = 0) {
  int device = 0, sms = 1, per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared);
  return sms * per_sm;
}

unsigned g_calls = 0;  // numbers each launch of the split kernel (the flags' tag)

void launch_online(const float* x, float* y, int rows, int cols) {
  online_kernel<<<rows, BLOCK>>>(x, y, cols);
}

template <int LANES, int VEC, int CHUNKS>
void launch_lane_groups(const float* x, float* y, int rows, int cols) {
  constexpr int rows_per_block = WARP_ROWS_BLOCK / LANES;
  lane_groups_kernel<LANES, VEC, CHUNKS><<<(rows + rows_per_block - 1) / rows_per_block, WARP_ROWS_BLOCK>>>(
      x, y, rows, cols);
}

// region: split-launch
// One block per row while a row fits in one block's registers; otherwise `segments` blocks per row,
// launched in batches of rows that fit the scratch slots. When a row would need more blocks than
// the GPU holds at once, waiting could deadlock: the two-read online kernel takes over.
template <int THREADS, int VEC, int CHUNKS>
void launch_block_rows(const float* x, float* y, int rows, int cols) {
  constexpr int SEGMENT = THREADS * VEC * CHUNKS;
  const auto kernel = block_rows_kernel<THREADS, VEC, CHUNKS>;
  const int segments = (cols + SEGMENT - 1) / SEGMENT;
  if (segments == 1) {
    kernel<<<rows, THREADS>>>(x, y, cols, 1, 0);
    return;
  }
  static const int resident = resident_blocks(kernel, THREADS);
  if (segments > resident || segments > MAX_SEGMENTS) {
    launch_online(x, y, rows, cols);
    return;
  }
  const int rows_per_launch = MAX_SEGMENTS / segments;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = rows - r0 < rows_per_launch ? rows - r0 : rows_per_launch;
    kernel<<<n * segments, THREADS>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, cols, segments, ++g_calls);
  }
}
// endregion: split-launch

template <int THREADS, int CHUNKS>
void launch_shifted_rows(const float* x, float* y, int rows, int cols) {
  shifted_rows_kernel<THREADS, CHUNKS><<<rows, THREADS>>>(x, y, cols);
}

// region: cluster-launch
// K blocks a row, rows × K blocks; the batches only matter where the exchange goes through the
// scratch slots (the simulator).
template <int THREADS, int CHUNKS, int K>
void launch_cluster_rows(const float* x, float* y, int rows, int cols) {
  constexpr int rows_per_launch = MAX_SEGMENTS / K;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = rows - r0 < rows_per_launch ? rows - r0 : rows_per_launch;
    cluster_rows_kernel<THREADS, CHUNKS, K><<<n * K, THREADS>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, cols,
                                                                ++g_calls);
  }
}
// endregion: cluster-launch

// region: smem-launch
template <int THREADS, int CHUNKS, int K>
void launch_smem_rows(const float* x, float* y, int rows, int cols) {
  constexpr int SMEM = CHUNKS * THREADS * 16;
  const auto kernel = smem_rows_kernel<THREADS, CHUNKS, K>;
  static const bool ready = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    if (K > 8) cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    return true;
  }();
  (void)ready;
  constexpr int rows_per_launch = MAX_SEGMENTS / K;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = rows - r0 < rows_per_launch ? rows - r0 : rows_per_launch;
    kernel<<<n * K, THREADS, SMEM>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, cols, ++g_calls);
  }
}
// endregion: smem-launch

// region: task-launch
unsigned g_task_calls = 0;  // numbers each launch of the task kernel: its parity picks the bank of slots

// Two tasks a piece, in batches of rows that fit the slots. The lag, in bytes of x between a piece's
// two reads, is a fifth of L2 (12 MB, 3 rows of 4 MB, on the H200's 60 MB; measured: 2 rows leave
// writes waiting for their row, 6 push x out of L2 before its second read), and at least a row of
// pieces, which is what makes every wait end.
template <int THREADS, int VEC>
void launch_tasks_rows(const float* x, float* y, int rows, int cols) {
  constexpr int PIECE = THREADS * VEC * 4;  // floats
  static const int lag_bytes = [] {
    int device = 0, l2 = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
    return l2 / 5;
  }();
  const int pieces = (cols + PIECE - 1) / PIECE;
  const int rows_per_launch = TASK_SLOTS / pieces;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = rows - r0 < rows_per_launch ? rows - r0 : rows_per_launch;
    const int units = n * pieces;
    int lag = lag_bytes / (PIECE * 4);
    lag = lag < pieces ? pieces : lag;
    lag = lag > units ? units : lag;
    tasks_rows_kernel<THREADS, VEC><<<2 * units, THREADS>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, cols,
                                                            pieces, units, lag, ++g_task_calls);
  }
}
// endregion: task-launch

using Launcher = void (*)(const float*, float*, int, int);

// region: dispatch
// softmax_fast's choice by row width: the first configuration whose row capacity holds the row.
// Lane groups while a warp's registers hold the row, then a block per row, then blocks per row.
// The H200 sweep of benchmarks/h200/c5.sh (2026-12-01, benchmarks/h200-c5-2026-12-01.md) picked
// the rows marked "swept": each beat the configuration it replaced in both runs of that day.
struct Plan {
  int max_cols;  // widest row this configuration takes in one pass
  Launcher launch;
};

constexpr Plan kVec4Plans[] = {
    {32, launch_lane_groups<8, 4, 1>},          // 8 lanes × 1 float4: 32 rows a block
    {128, launch_lane_groups<16, 4, 2>},        // swept: half a warp per row, two float4 a lane
    {256, launch_lane_groups<32, 4, 2>},        // a warp per row
    {512, launch_lane_groups<32, 4, 4>},
    {1024, launch_lane_groups<32, 4, 8>},       // a warp per row, 32 floats a lane
    {4096, launch_block_rows<256, 4, 4>},       // a block per row
    {8192, launch_block_rows<256, 4, 8>},
    {16384, launch_block_rows<512, 4, 8>},
    {32768, launch_block_rows<1024, 4, 4>},     // 16384-float segments, two blocks per row
    {65536, launch_smem_rows<512, 16, 1>},      // measured: the whole row in one block, registers + shared memory
    {1 << 30, launch_tasks_rows<512, 8>},       // measured: no row on chip, x kept in L2 between its two reads
};
// Rows not on 16-byte boundaries but x and y at the same offset: float4 in the middle of each row.
// Short rows stay scalar (lane groups); longer than one block holds: scalar, split.
constexpr Plan kShiftedPlans[] = {
    {4096 + 3, launch_shifted_rows<256, 4>},    // swept: 256 threads, four float4 each
    {8192 + 3, launch_shifted_rows<1024, 2>},
    {16384 + 3, launch_shifted_rows<1024, 4>},
};

constexpr Plan kScalarPlans[] = {
    {32, launch_lane_groups<32, 1, 1>},
    {128, launch_lane_groups<32, 1, 4>},
    {512, launch_lane_groups<32, 1, 16>},
    {1024, launch_lane_groups<32, 1, 32>},
    {4096, launch_block_rows<512, 1, 8>},
    {8192, launch_block_rows<1024, 1, 8>},
    {1 << 30, launch_block_rows<1024, 1, 16>},
};

template <size_t N>
Launcher choose(const Plan (&plans)[N], int cols) {
  for (const Plan& p : plans)
    if (cols <= p.max_cols) return p.launch;
  return plans[N - 1].launch;
}
// endregion: dispatch

}  // namespace

// ---- the contract: what the tests call ----

void softmax_naive(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  naive_kernel<<<rows, BLOCK>>>(x, y, cols);
}

void softmax_online(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  launch_online(x, y, rows, cols);
}

// ---- the ladder the chapter measures, each behind its own host function ----

// 3. A warp per row up to 1024 columns, a block per row beyond: still two reads of x.
void softmax_by_width(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  if (cols <= 1024) {
    online_warp_kernel<<<(rows + ROWS_PER_WARP_BLOCK - 1) / ROWS_PER_WARP_BLOCK, BLOCK>>>(x, y, rows, cols);
  } else {
    launch_online(x, y, rows, cols);
  }
}

// 4. The row in registers, one read of x, scalar accesses: lane groups up to 1024 columns, a block
// per row up to 16384; longer rows do not fit one block's registers and fall back to two reads.
void softmax_registers(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  if (cols <= 16384) {
    choose(kScalarPlans, cols)(x, y, rows, cols);
  } else {
    launch_online(x, y, rows, cols);
  }
}

// 5. As 4, and longer rows split across blocks that exchange their parts: one read at any width.
void softmax_split(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  choose(kScalarPlans, cols)(x, y, rows, cols);
}

// 6. As 5 with float4 accesses: everywhere when every row starts on a 16-byte boundary, in the
// middle of each row when rows of 1024 to 16387 floats start elsewhere (odd widths).
void softmax_fast(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  if (rows_16B_aligned(x, y, cols)) {
    choose(kVec4Plans, cols)(x, y, rows, cols);
  } else if (cols > 1024 && cols <= 16384 + 3 && same_offset_in_16B(x, y)) {
    choose(kShiftedPlans, cols)(x, y, rows, cols);
  } else {
    choose(kScalarPlans, cols)(x, y, rows, cols);
  }
}

void copy_vec4(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const int64_t n = (int64_t)rows * cols;
  const int64_t threads = n / 4 > n % 4 ? n / 4 : n % 4;
  copy_vec4_kernel<<<static_cast<unsigned>((threads + 255) / 256), 256>>>(x, y, n);
}

void log_softmax_online(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  log_softmax_kernel<<<rows, BLOCK>>>(x, y, cols);
}
