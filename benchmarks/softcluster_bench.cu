// C5, 64×1048576 (issue 11): a row handled by one thread-block CLUSTER, persistent clusters walking
// the rows, against the copy kernel timed in the same process; softmax_fast as committed beside it.
//
// cluster_stream_kernel<THREADS, R> (sm_90 only; this bench is not built for the simulator): the CS
// blocks of a cluster (CS chosen at launch) share a row, block b taking `slice` floats from b · slice.
// A block's slice is cut into tiles of THREADS float4 (one float4 a thread): the first R tiles are
// kept in registers, the next H (chosen at launch: the dynamic shared memory) in shared memory, filled
// by cp.async, and the rest, if any, is read twice (for the row's statistics, then again for y,
// from L2). The row's (max, sum) parts are exchanged through distributed shared memory: each block
// puts its part in its own shared memory, one cluster barrier, then every warp reads the CS parts
// (lanes < CS, one each) and combines them. Two slots alternate by row, so one barrier a row is
// enough: a block writes slot k & 1 again at row k + 2, after the barrier of row k + 1, which every
// peer reaches only after it read row k's slots. While a block writes row k it issues row k + CS'
// (its cluster's next row) into each buffer (shared tile or register tile) as soon as that buffer's
// value has been written out, so the next row's loads overlap this row's stores.
// No deadlock from blocks that are not resident: the hardware schedules a cluster's blocks together
// (all CS at once or none), so a cluster barrier only ever waits on blocks that are running. The grid
// is cudaOccupancyMaxActiveClusters clusters (at most one per row), each walking every clusters-th row.
// Run 1 on the H200 (2026-12-02 07:40 UTC): at most 7 clusters of 16 (112 SMs) run at once and the
// best of these reached 68.2% of the copy kernel at 64×1048576, no better than the split kernel.
// Run 2 adds split_smem_kernel (below): the split kernel's global-flag exchange, its segment partly
// in shared memory so that 2-4 blocks share a SM (best 73.8%). Run 3 (the default set; SOFTCLUSTER_SET=all
// for every candidate): the same kernel with whole-SM segments of 65536-81920 floats, 13-16 a row.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 -o softcluster_bench benchmarks/softcluster_bench.cu
//   ./softcluster_bench check              every candidate and softmax_fast against a float64 host
//                                          reference (4 kinds of input, each called twice)
//   ./softcluster_bench time REPS          CSV: copy kernel, cudaMemcpy, softmax_fast, candidates
//   ./softcluster_bench info               SMs, L2, active clusters per cluster size / candidate
//   ./softcluster_bench one NAME RxC       one call after one warm-up (for ncu)
// Timed rows: median of REPS CUDA-event timings after 3 warm-up calls (5 for the bounds), a fresh
// random input per variant; then one more call on NaN-poisoned y and up to 8 rows spread over the
// matrix, first and last included, against the host reference (worst error over the tolerance of
// tests/c5_softmax_test.cu: > 1 fails).
#include "../solutions/c5_softmax.cu"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

// One more float4 into a running (max, sum). The running max starts at -FLT_MAX (empty_part), so
// m - new_m is never -inf - (-inf): an all -inf float4 leaves the part as it was.
__device__ __forceinline__ void add4(MaxSum& s, float4 q) {
  const float m = fmaxf(fmaxf(s.m, fmaxf(q.x, q.y)), fmaxf(q.z, q.w));
  s.d = s.d * __expf(s.m - m) + ((__expf(q.x - m) + __expf(q.y - m)) + (__expf(q.z - m) + __expf(q.w - m)));
  s.m = m;
}

__device__ __forceinline__ float4 softmax4(float4 q, float m, float inv) {
  return make_float4(__expf(q.x - m) * inv, __expf(q.y - m) * inv, __expf(q.z - m) * inv, __expf(q.w - m) * inv);
}

__device__ __forceinline__ void store_stream(float* p, float4 v) {  // y is not read again: evict first
  __stcs(reinterpret_cast<float4*>(p), v);
}

constexpr int STREAM_UNROLL = 4;  // tiles of the L2-read part in flight at once

template <int THREADS, int R>
__global__ void __launch_bounds__(THREADS, 1)
    cluster_stream_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols, int slice,
                          int held_tiles, int spare_tiles) {
#if __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  constexpr int TILE = THREADS * 4;  // floats a tile
  extern __shared__ float4 held[];   // (held + spare) × THREADS float4: buffer j of thread t at j·THREADS + t
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ MaxSum part[2];
  cg::cluster_group cluster = cg::this_cluster();
  const int cs = static_cast<int>(cluster.num_blocks());
  const int b = static_cast<int>(cluster.block_rank());
  const int clusters = gridDim.x / cs;
  const int t = threadIdx.x, lane = t % 32;
  const int first = b * slice;
  const int len = cols - first < slice ? cols - first : slice;  // <= 0: this block has no columns
  const int tiles = len > 0 ? (len + TILE - 1) / TILE : 0;
  const int H = tiles - R < held_tiles ? (tiles - R > 0 ? tiles - R : 0) : held_tiles;
  const int P = spare_tiles < H ? spare_tiles : H;
  // Shared tile i of the row with base `base` lives in buffer (base + i) mod NB. The next row's first
  // P tiles go to the P buffers the current row leaves free, loaded a whole row ahead; its tile
  // i + P goes to the buffer of the current row's tile i as soon as that tile has been written out.
  const int NB = H + P;
  auto buf = [&](int base, int i) { const int j = base + i; return (j >= NB ? j - NB : j) * THREADS + t; };
  auto ok = [&](int i) { return i * TILE + t * 4 < len; };
  auto at = [&](int i) { return first + i * TILE + t * 4; };  // column of thread t's float4 of tile i
  const float4 none = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
  float4 v[R > 0 ? R : 1];

  int row = blockIdx.x / cs, base = 0;
  if (row < rows) {  // the first row's register and shared tiles (one commit group)
    const float* xr = x + static_cast<int64_t>(row) * cols;
    for (int i = 0; i < H; ++i)
      if (ok(R + i)) copy16_async(&held[buf(0, i)], xr + at(R + i));
    asm volatile("cp.async.commit_group;" ::: "memory");
#pragma unroll
    for (int i = 0; i < R; ++i) v[i] = ok(i) ? *reinterpret_cast<const float4*>(xr + at(i)) : none;
  }
  for (int k = 0; row < rows; row += clusters, ++k) {
    const float* xr = x + static_cast<int64_t>(row) * cols;
    float* yr = y + static_cast<int64_t>(row) * cols;
    const int next = row + clusters;
    const float* xn = x + static_cast<int64_t>(next) * cols;
    const int next_base = base + H >= NB ? base + H - NB : base + H;
    if (next < rows)  // the next row's first P shared tiles, a row ahead
      for (int i = 0; i < P; ++i)
        if (ok(R + i)) copy16_async(&held[buf(next_base, i)], xn + at(R + i));
    asm volatile("cp.async.commit_group;" ::: "memory");
    MaxSum s = empty_part();
    // The part read twice first: its loads go out while the shared tiles may still be landing.
    for (int i0 = R + H; i0 < tiles; i0 += STREAM_UNROLL) {
      float4 q[STREAM_UNROLL];
#pragma unroll
      for (int u = 0; u < STREAM_UNROLL; ++u)
        q[u] = i0 + u < tiles && ok(i0 + u) ? *reinterpret_cast<const float4*>(xr + at(i0 + u)) : none;
#pragma unroll
      for (int u = 0; u < STREAM_UNROLL; ++u) add4(s, q[u]);
    }
#pragma unroll
    for (int i = 0; i < R; ++i) add4(s, v[i]);
    // This row's tiles have landed (all groups but the newest, the next row's first P tiles). Only
    // this thread reads the buffers it filled: no barrier.
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    for (int i = 0; i < H; ++i)
      if (ok(R + i)) add4(s, held[buf(base, i)]);
    s = block_combine<THREADS>(s, slots);  // slots are written again only after the cluster barrier
    if (t == 0) part[k & 1] = s;
    cluster.sync();  // every block's part of this row is in its shared memory
    MaxSum total = lane < cs ? *cluster.map_shared_rank(&part[k & 1], lane) : empty_part();
    total = warp_combine(total);  // every warp combines the parts itself: no block barrier
    const float m = total.m, inv = 1.0f / total.d;  // an all -inf row: e^(-inf + FLT_MAX) · 1/0 = NaN
    // Shared tiles first: each is written out, and its buffer refilled with the next row at once.
    for (int i = 0; i < H; ++i) {
      if (ok(R + i)) {
        float4* h = &held[buf(base, i)];
        store_stream(yr + at(R + i), softmax4(*h, m, inv));
        if (next < rows && i + P < H && ok(R + i + P)) copy16_async(h, xn + at(R + i + P));
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
#pragma unroll
    for (int i = 0; i < R; ++i) {
      if (ok(i)) store_stream(yr + at(i), softmax4(v[i], m, inv));
      if (next < rows) v[i] = ok(i) ? *reinterpret_cast<const float4*>(xn + at(i)) : none;
    }
    for (int i0 = R + H; i0 < tiles; i0 += STREAM_UNROLL) {  // the rest again, from L2
      float4 q[STREAM_UNROLL];
#pragma unroll
      for (int u = 0; u < STREAM_UNROLL; ++u)
        q[u] = i0 + u < tiles && ok(i0 + u) ? __ldcg(reinterpret_cast<const float4*>(xr + at(i0 + u))) : none;
#pragma unroll
      for (int u = 0; u < STREAM_UNROLL; ++u)
        if (i0 + u < tiles && ok(i0 + u)) store_stream(yr + at(i0 + u), softmax4(q[u], m, inv));
    }
    base = next_base;
  }
  cluster.sync();  // a peer may still be reading this block's last part
#endif
}

// The largest slice a block of a CS-cluster takes: cols / CS, rounded up to whole float4.
int slice_of(int cols, int cs) { return ((cols + cs - 1) / cs + 3) / 4 * 4; }

template <int THREADS, int R>
struct ClusterStream {
  // `buffers` shared tiles: `held` of them hold the row, the others take the next row's first tiles.
  static cudaLaunchConfig_t config(int cs, int buffers, int clusters, cudaLaunchAttribute* attr) {
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(clusters * cs);
    c.blockDim = dim3(THREADS);
    c.dynamicSmemBytes = static_cast<size_t>(buffers) * THREADS * 16;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = cs;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    c.attrs = attr;
    c.numAttrs = 1;
    return c;
  }
  // Clusters of this shape the GPU runs at once (0: cannot launch).
  static int active(int cs, int buffers) {
    static std::map<std::pair<int, int>, int> memo;
    auto it = memo.find({cs, buffers});
    if (it != memo.end()) return it->second;
    const auto kernel = cluster_stream_kernel<THREADS, R>;
    static const bool ready = [&] {  // once: the most any launch of this kernel asks for
      int device = 0, optin = 0;
      cudaFuncAttributes a = {};
      cudaGetDevice(&device);
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
      cudaFuncGetAttributes(&a, kernel);
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - static_cast<int>(a.sharedSizeBytes));
      cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
      return true;
    }();
    (void)ready;
    cudaLaunchAttribute attr;
    cudaLaunchConfig_t c = config(cs, buffers, 1, &attr);
    int n = 0;
    if (cudaOccupancyMaxActiveClusters(&n, kernel, &c) != cudaSuccess) n = 0;
    cudaGetLastError();
    return memo[{cs, buffers}] = n;
  }
  static void launch(const float* x, float* y, int rows, int cols, int cs, int held, int spare) {
    const int n = active(cs, held + spare);
    const int clusters = n < rows ? n : rows;
    cudaLaunchAttribute attr;
    cudaLaunchConfig_t c = config(cs, held + spare, clusters > 0 ? clusters : 1, &attr);
    cudaLaunchKernelEx(&c, cluster_stream_kernel<THREADS, R>, x, y, rows, cols, slice_of(cols, cs), held, spare);
  }
};

// ---- run 2: the split kernel (global-flag exchange through row_total), its segment partly in shared
// memory so that several blocks share a SM and one block's wait for its row-mates overlaps the
// others' loads and stores. Not persistent: blocks take tickets as block_rows_kernel does, with the
// same deadlock argument (a row has no more segments than the GPU holds blocks at once). RC float4 a
// thread in registers, SC float4 a thread in dynamic shared memory (cp.async), SEGMENT =
// THREADS·4·(RC + SC) floats; MINB blocks a SM asked of ptxas (__launch_bounds__).
template <int THREADS, int RC, int SC, int MINB>
__global__ void __launch_bounds__(THREADS, MINB)
    split_smem_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int segments, unsigned call) {
  constexpr int REG = THREADS * 4 * RC;
  constexpr int SEGMENT = THREADS * 4 * (RC + SC);
  extern __shared__ float4 held[];  // SC × THREADS float4
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ unsigned ticket;
  const int t = threadIdx.x;
  if (t == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  const int64_t row = ticket / segments;
  const int seg = static_cast<int>(ticket % segments);
  const float* xr = x + row * cols;
  float* yr = y + row * cols;
  const int first = seg * SEGMENT;
  const float4 none = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
#pragma unroll
  for (int k = 0; k < SC; ++k) {  // the shared part first: it lands while the registers load
    const int c = first + REG + (k * THREADS + t) * 4;
    if (c < cols) {
      copy16_async(&held[k * THREADS + t], xr + c);
    } else {
      held[k * THREADS + t] = none;
    }
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  float4 v[RC > 0 ? RC : 1];
#pragma unroll
  for (int k = 0; k < RC; ++k) {
    const int c = first + (k * THREADS + t) * 4;
    v[k] = c < cols ? *reinterpret_cast<const float4*>(xr + c) : none;
  }
  float m = -FLT_MAX;
#pragma unroll
  for (int k = 0; k < RC; ++k) m = fmaxf(fmaxf(m, fmaxf(v[k].x, v[k].y)), fmaxf(v[k].z, v[k].w));
  asm volatile("cp.async.wait_all;" ::: "memory");  // only this thread reads its chunks: no barrier
#pragma unroll 4
  for (int k = 0; k < SC; ++k) {  // shared chunks a few at a time: registers stay for the others
    const float4 q = held[k * THREADS + t];
    m = fmaxf(fmaxf(m, fmaxf(q.x, q.y)), fmaxf(q.z, q.w));
  }
  float d = 0.0f;
#pragma unroll
  for (int k = 0; k < RC; ++k) {  // e^(x - m) in place, used again for y
    v[k] = make_float4(__expf(v[k].x - m), __expf(v[k].y - m), __expf(v[k].z - m), __expf(v[k].w - m));
    d += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
#pragma unroll 4
  for (int k = 0; k < SC; ++k) {
    float4 q = held[k * THREADS + t];
    q = make_float4(__expf(q.x - m), __expf(q.y - m), __expf(q.z - m), __expf(q.w - m));
    d += (q.x + q.y) + (q.z + q.w);
    held[k * THREADS + t] = q;
  }
  const MaxSum block = block_combine<THREADS>(MaxSum{m, d}, slots);
  const MaxSum total = row_total(block, row * segments, seg, segments, call);
  const float scale = __expf(m - total.m) / total.d;
#pragma unroll
  for (int k = 0; k < RC; ++k) {
    const int c = first + (k * THREADS + t) * 4;
    if (c < cols) store_stream(yr + c, make_float4(v[k].x * scale, v[k].y * scale, v[k].z * scale, v[k].w * scale));
  }
#pragma unroll 4
  for (int k = 0; k < SC; ++k) {
    const int c = first + REG + (k * THREADS + t) * 4;
    const float4 q = held[k * THREADS + t];
    if (c < cols) store_stream(yr + c, make_float4(q.x * scale, q.y * scale, q.z * scale, q.w * scale));
  }
}

template <int THREADS, int RC, int SC, int MINB>
struct SplitSmem {
  static constexpr int SEGMENT = THREADS * 4 * (RC + SC);
  static constexpr int SMEM = SC * THREADS * 16;
  static int per_sm() {  // blocks a SM holds
    static const int n = [] {
      const auto kernel = split_smem_kernel<THREADS, RC, SC, MINB>;
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
      int b = 0;
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, THREADS, SMEM);
      return b;
    }();
    return n;
  }
  static void launch(const float* x, float* y, int rows, int cols) {
    static const int sms = [] {
      int device = 0, n = 0;
      cudaGetDevice(&device);
      cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device);
      return n;
    }();
    const int segments = (cols + SEGMENT - 1) / SEGMENT;
    if (segments > per_sm() * sms || segments > MAX_SEGMENTS) {  // waiting could deadlock
      launch_online(x, y, rows, cols);
      return;
    }
    const int rows_per_launch = MAX_SEGMENTS / segments;
    for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
      const int n = rows - r0 < rows_per_launch ? rows - r0 : rows_per_launch;
      split_smem_kernel<THREADS, RC, SC, MINB><<<n * segments, THREADS, SMEM>>>(
          x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, cols, segments, ++g_calls);
    }
  }
};

}  // namespace

namespace bench {

#define CHECK_CUDA(call)                                                                           \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

using Launch = std::function<void(const float*, float*, int, int)>;

struct Cand {
  std::string name;
  Launch launch;
  std::function<int()> clusters;  // active clusters (info); empty for the baselines
  int min_cols = 0;               // applies to rows at least this long (and cols % 4 == 0)
};

// cs blocks a row; R register tiles (THREADS float4 each) and `held` shared tiles of the row, `spare`
// shared tiles for the next row's first tiles; the rest of a block's slice is read twice (L2).
template <int T, int R>
Cand cluster(int cs, int held, int spare = 0) {
  const double kb = (R + held) * T * 16 / 1024.0;
  return {"cluster T" + std::to_string(T) + " cs" + std::to_string(cs) + " r" + std::to_string(R) + " h" +
              std::to_string(held) + " p" + std::to_string(spare) + " = " + std::to_string(static_cast<int>(kb)) +
              " KB of the row on chip",
          [cs, held, spare](const float* x, float* y, int r, int c) { ClusterStream<T, R>::launch(x, y, r, c, cs, held, spare); },
          [cs, held, spare] { return ClusterStream<T, R>::active(cs, held + spare); }};
}

// The split kernel with RC float4 a thread in registers and SC in shared memory, MINB blocks a SM asked of ptxas.
template <int T, int RC, int SC, int MINB>
Cand split() {
  using S = SplitSmem<T, RC, SC, MINB>;
  return {"split-smem T" + std::to_string(T) + " r" + std::to_string(RC) + " s" + std::to_string(SC) + " seg" +
              std::to_string(S::SEGMENT) + " minb" + std::to_string(MINB),
          S::launch, [] { return S::per_sm(); }};
}

const std::vector<Cand>& candidates() {
  static const std::vector<Cand> all = {
      // run 2: the split kernel with part of its segment in shared memory, several blocks a SM
      split<512, 4, 4, 2>(),   // 16384-float segments: 64 KB, half in registers
      split<512, 0, 8, 3>(),   // 16384, all in shared memory
      split<256, 8, 8, 4>(),   // 16384, half in registers, 256 threads
      split<256, 0, 16, 3>(),  // 16384, all in shared memory, 256 threads
      split<256, 4, 12, 4>(),  // 16384, a quarter in registers
      split<512, 8, 8, 2>(),   // 32768-float segments: 128 KB, half in registers
      split<512, 4, 12, 2>(),  // 32768, a quarter in registers
      split<1024, 2, 6, 2>(),  // 32768, 1024 threads
      split<512, 2, 6, 4>(),   // 16384-float segments, 4 blocks a SM
      split<256, 4, 4, 5>(),   // 8192-float segments (128 a row), 5 blocks a SM
      split<256, 0, 8, 6>(),   // 8192, all in shared memory, 6 blocks a SM
      // the reference's split kernel, all in registers, with segments small enough for 2 blocks a SM
      {"split block_rows T512 v4 c8 seg16384 = the reference's kernel", launch_block_rows<512, 4, 8>, {}},
      {"split block_rows T256 v4 c16 seg16384 = the reference's kernel", launch_block_rows<256, 4, 16>, {}},
      // run 1's best three (16 blocks a row: a block's 256 KB slice all on chip; 7 clusters at once)
      cluster<1024, 4>(16, 12, 2),
      cluster<512, 10>(16, 22, 6),
      cluster<512, 4>(16, 28),
      // two blocks a SM (96 KB of shared memory each): 14 clusters of 16 at once, one block's
      // statistics overlap the other's memory traffic; most of the slice read twice (L2)
      cluster<512, 0>(16, 12),
      cluster<512, 0>(16, 0),
      {"smem_rows K16 T512 c16 = the reference: one row a cluster; not persistent", launch_smem_rows<512, 16, 16>, {},
       1 << 20},
  };
  // run 3: whole-SM blocks as smem_rows_kernel<512, 16, 1> (91-92% at 1024x65536, where it needs no
  // exchange) with the split kernel's global flags: 16 or fewer segments a row, so a row's blocks start
  // closer together than block_rows_kernel's 32 and wait less for each other; all 132 SMs, no cluster.
  static const std::vector<Cand> run3 = {
      split<512, 16, 16, 1>(),  // 65536-float segments (256 KB: half registers, half shared memory): 16 a row
      split<1024, 8, 8, 1>(),   // 65536, 1024 threads
      split<512, 16, 24, 1>(),  // 81920-float segments (64 KB registers + 192 KB shared): 13 a row
      split<512, 12, 20, 1>(),  // 65536, less in registers
      split<1024, 2, 6, 2>(),   // run 2's best (73.8%)
  };
  const char* set = std::getenv("SOFTCLUSTER_SET");  // "all": runs 1-2's candidates too
  return set && !std::strcmp(set, "all") ? all : run3;
}

bool applies(const Cand& c, int cols) { return cols % 4 == 0 && cols >= c.min_cols && cols <= (c.min_cols ? c.min_cols : cols); }

bool launchable(const Cand& c) { return !c.clusters || c.clusters() > 0; }

__global__ void fill_kernel(float* x, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed ^ static_cast<uint32_t>(i >> 32) * 40503u;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
    const float v = (h >> 8) * (2.0f / 16777216.0f) - 1.0f;  // [-1, 1)
    x[i] = v == 0.0f ? 0.5f : v;
  }
}

void fill(float* x, int64_t n, uint32_t seed) {
  fill_kernel<<<1024, 256>>>(x, n, seed);
  CHECK_CUDA(cudaGetLastError());
}

// tests/c5_softmax_test.cu's relative tolerance (derived in content/c5.md).
double eps(double n, double t) { return std::ldexp(64.0 + 1.2 * (t + std::log(n) + 1.0), -23) + std::ldexp(std::sqrt(n), -21); }

struct Reference {
  std::vector<double> want, tol;
};

// The float64 softmax of `rows` rows and each element's tolerance; an all -inf row is NaN.
Reference reference(const float* x, int rows, int cols) {
  Reference ref;
  ref.want.resize((size_t)rows * cols);
  ref.tol.resize((size_t)rows * cols);
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + (size_t)r * cols;
    double m = -INFINITY, d = 0;
    for (int c = 0; c < cols; ++c) m = std::max(m, (double)xr[c]);
    for (int c = 0; c < cols; ++c) d += std::exp(xr[c] - m);
    for (int c = 0; c < cols; ++c) {
      const size_t i = (size_t)r * cols + c;
      const double w = std::exp(xr[c] - m) / d;
      ref.want[i] = w;
      ref.tol[i] = (w > 0 ? w * eps(cols, m - xr[c]) : 0.0) + std::ldexp(1.0, -126);
    }
  }
  return ref;
}

// Worst |got - want| / tolerance (> 1: wrong); NaN is right only where the reference is NaN.
double worst_error(const Reference& ref, const float* y) {
  double worst = 0;
  for (size_t i = 0; i < ref.want.size(); ++i) {
    const double w = ref.want[i], g = y[i];
    const double err = std::isnan(w) ? (std::isnan(g) ? 0 : INFINITY) : (std::isnan(g) ? INFINITY : std::fabs(g - w) / ref.tol[i]);
    worst = std::max(worst, err);
  }
  return worst;
}

std::vector<float> host_input(int rows, int cols, uint32_t seed, const char* kind) {
  const size_t n = (size_t)rows * cols;
  std::vector<float> x(n);
  uint32_t state = seed * 747796405u + 1;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    const float v = ((state >> 8) * (2.0f / 16777216.0f)) - 1.0f;
    x[i] = v == 0.0f ? 0.5f : v;
  }
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      float& v = x[(size_t)r * cols + c];
      if (!std::strcmp(kind, "scaled")) v *= 1000.0f;
      if (!std::strcmp(kind, "neginf") && ((r * 31 + c) % 5 == 0 || (rows > 1 && r == rows - 1))) v = -INFINITY;
      if (!std::strcmp(kind, "latemax") && c >= cols - cols / 4) v += 8.0f;
    }
  return x;
}

struct Shape {
  int rows, cols;
};

void call_fast(const float* x, float* y, int r, int c) { softmax_fast(x, y, r, c); }

int check_mode() {
  // A tiny row (most blocks of a cluster have no columns); short rows, many a cluster; rows that end
  // inside a tile; 20 rows of 4 MB (more rows than clusters of 8 or 16: every cluster walks); a row
  // not a multiple of the slice.
  const Shape shapes[] = {{3, 8}, {300, 4100}, {5, 65540}, {37, 100000}, {20, 1048576}, {2, 1048572}, {2, 1081348}};
  const char* kinds[] = {"uniform", "scaled", "neginf", "latemax"};
  int failures = 0;
  std::printf("name,shape,inputs,worst_error_over_tolerance,status\n");
  for (const Shape& s : shapes) {
    const size_t n = (size_t)s.rows * s.cols;
    const char* max_elements = std::getenv("SOFTCLUSTER_MAX");  // simulator runs: the small shapes only
    if (max_elements && n > std::strtoull(max_elements, nullptr, 10)) continue;
    float *dx, *dy;
    CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    std::vector<float> y(n);
    for (const char* kind : kinds) {
      const std::vector<float> x = host_input(s.rows, s.cols, s.rows * 131u + s.cols, kind);
      const Reference ref = reference(x.data(), s.rows, s.cols);
      CHECK_CUDA(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      auto one = [&](const std::string& name, const Launch& fn) {
        for (int rep = 0; rep < 2; ++rep) {
          CHECK_CUDA(cudaMemset(dy, 0xFF, n * sizeof(float)));  // poison: NaN
          fn(dx, dy, s.rows, s.cols);
          cudaError_t err = cudaGetLastError();
          if (err == cudaSuccess) err = cudaDeviceSynchronize();
          double worst = INFINITY;
          if (err == cudaSuccess) {
            CHECK_CUDA(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
            worst = worst_error(ref, y.data());
          }
          const bool ok = worst <= 1;
          failures += !ok;
          std::printf("%s,%dx%d,%s%s,%.4g,%s%s\n", name.c_str(), s.rows, s.cols, kind, rep ? " (again)" : "", worst,
                      ok ? "pass" : "FAIL", err == cudaSuccess ? "" : (std::string(" ") + cudaGetErrorString(err)).c_str());
          std::fflush(stdout);
          if (err != cudaSuccess) std::exit(2);
        }
      };
      const char* only = std::getenv("SOFTCLUSTER_ONLY");  // a substring of the names (simulator runs)
      if (!only) one("softmax_fast", call_fast);
      for (const Cand& c : candidates())
        if (applies(c, s.cols) && (!only || c.name.find(only) != std::string::npos) && launchable(c)) one(c.name, c.launch);
    }
    CHECK_CUDA(cudaFree(dx));
    CHECK_CUDA(cudaFree(dy));
  }
  std::fprintf(stderr, "check: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}

float median_ms(const std::function<void()>& call, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) call();
  CHECK_CUDA(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t(reps);
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    call();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&t[i], a, b);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  CHECK_CUDA(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[reps / 2];
}

double sample_check(const Launch& fn, const float* dx, float* dy, const Shape& s) {
  const int64_t n = (int64_t)s.rows * s.cols;
  CHECK_CUDA(cudaMemset(dy, 0xFF, n * sizeof(float)));
  fn(dx, dy, s.rows, s.cols);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> xr(s.cols), yr(s.cols);
  double worst = 0;
  const int samples = std::max(2, std::min(8, s.rows));
  for (int k = 0; k < samples; ++k) {
    const int64_t r = (int64_t)(s.rows - 1) * k / (samples - 1);
    CHECK_CUDA(cudaMemcpy(xr.data(), dx + r * s.cols, s.cols * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(yr.data(), dy + r * s.cols, s.cols * sizeof(float), cudaMemcpyDeviceToHost));
    worst = std::max(worst, worst_error(reference(xr.data(), 1, s.cols), yr.data()));
  }
  return worst;
}

const Shape kShapes[] = {{64, 1048576}, {1024, 65536}, {8192, 4097}};

int time_mode(int reps) {
  std::printf("shape,name,kind,ms,gbps,pct_copy_kernel,pct_memcpy,sample_worst_error_over_tolerance\n");
  for (const Shape& s : kShapes) {
    const int64_t n = (int64_t)s.rows * s.cols;
    const double bytes = 2.0 * n * sizeof(float);
    float *dx, *dy;
    CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    fill(dx, n, 12345u + s.cols);
    const float copy_ms = median_ms([&] { copy_vec4(dx, dy, s.rows, s.cols); }, 5, reps);
    const float memcpy_ms =
        median_ms([&] { cudaMemcpyAsync(dy, dx, n * sizeof(float), cudaMemcpyDeviceToDevice); }, 5, reps);
    auto row = [&](const std::string& name, const std::string& kind, float ms, const std::string& check) {
      const double gbps = bytes / (ms * 1e-3) / 1e9;
      std::printf("%dx%d,%s,%s,%.4f,%.0f,%.1f,%.1f,%s\n", s.rows, s.cols, name.c_str(), kind.c_str(), ms, gbps,
                  100.0 * copy_ms / ms, 100.0 * memcpy_ms / ms, check.c_str());
      std::fflush(stdout);
    };
    row("copy_vec4", "bound", copy_ms, "");
    row("cudaMemcpy", "bound", memcpy_ms, "");
    uint32_t seed = 1;
    auto timed = [&](const std::string& name, const std::string& kind, const Launch& fn) {
      fill(dx, n, 777u * seed++ + s.rows);  // fresh random input for each variant
      fn(dx, dy, s.rows, s.cols);  // a candidate that cannot launch is reported, not fatal
      cudaError_t err = cudaGetLastError();
      if (err == cudaSuccess) err = cudaDeviceSynchronize();
      if (err != cudaSuccess) {
        std::printf("%dx%d,%s,%s,,,,,%s\n", s.rows, s.cols, name.c_str(), kind.c_str(), cudaGetErrorString(err));
        std::fflush(stdout);
        return;
      }
      const float ms = median_ms([&] { fn(dx, dy, s.rows, s.cols); }, 3, reps);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.4g", sample_check(fn, dx, dy, s));
      row(name, kind, ms, buf);
    };
    timed("softmax_fast", "fast", call_fast);
    for (const Cand& c : candidates()) {
      if (!applies(c, s.cols)) continue;
      if (launchable(c)) {
        timed(c.name, "candidate", c.launch);
      } else {
        std::printf("%dx%d,%s,candidate,,,,,no cluster of this shape fits the GPU\n", s.rows, s.cols, c.name.c_str());
      }
    }
    // the copy kernel once more at the end: the bound did not drift while the candidates ran
    row("copy_vec4 (again)", "bound", median_ms([&] { copy_vec4(dx, dy, s.rows, s.cols); }, 5, reps), "");
    CHECK_CUDA(cudaFree(dx));
    CHECK_CUDA(cudaFree(dy));
  }
  return 0;
}

int info_mode() {
  cudaDeviceProp p;
  CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
  std::printf("name=%s sms=%d l2_bytes=%d regs_per_sm=%d smem_per_sm=%zu smem_per_block_optin=%zu\n", p.name,
              p.multiProcessorCount, p.l2CacheSize, p.regsPerMultiprocessor, p.sharedMemPerMultiprocessor,
              p.sharedMemPerBlockOptin);
  for (int cs : {1, 2, 3, 4, 6, 8, 10, 11, 12, 14, 16})
    std::printf("active clusters, T512 one block a SM (224 KB shared), cluster size %d: %d\n", cs,
                ClusterStream<512, 0>::active(cs, 28));
  for (const Cand& c : candidates())
    if (c.clusters) std::printf("active clusters (split-smem: blocks a SM): %s %d\n", c.name.c_str(), c.clusters());
  return 0;
}

int one_mode(const std::string& name, const char* shape) {
  Shape s{};
  if (std::sscanf(shape, "%dx%d", &s.rows, &s.cols) != 2) return 2;
  Launch fn;
  if (name == "softmax_fast") fn = call_fast;
  for (const Cand& c : candidates())
    if (c.name == name) fn = c.launch;
  if (!fn) {
    std::fprintf(stderr, "unknown candidate %s\n", name.c_str());
    return 2;
  }
  const int64_t n = (int64_t)s.rows * s.cols;
  float *dx, *dy;
  CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
  fill(dx, n, 99u);
  fn(dx, dy, s.rows, s.cols);  // one warm-up call (the launcher's first call sets attributes)
  CHECK_CUDA(cudaDeviceSynchronize());
  fn(dx, dy, s.rows, s.cols);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  return 0;
}

}  // namespace bench

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "check") return bench::check_mode();
  if (mode == "time" && argc > 2) return bench::time_mode(std::atoi(argv[2]));
  if (mode == "info") return bench::info_mode();
  if (mode == "one" && argc > 3) return bench::one_mode(argv[2], argv[3]);
  std::fprintf(stderr, "usage: %s check | time REPS | info | one NAME RxC\n", argv[0]);
  return 2;
}
