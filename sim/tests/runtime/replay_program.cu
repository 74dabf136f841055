// A program for drills_sim_replay's tests (test_replay.py): its kernels live in a shared library,
// as a chapter's are, and it does each kind of operation the op log records. It prints the
// addresses the test needs and writes its final device bytes to argv[1].
//   replay_program OUT.bin [race]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

extern "C" void drills_sim_mark(const char* text);

namespace {

constexpr int kN = 300;            // not a multiple of the block: the tail is guarded
constexpr int kBlock = 128;
constexpr int kBlocks = (kN + kBlock - 1) / kBlock;
constexpr int kDynamicShared = 50 * 1024;

__device__ float g_bias;           // set with cudaMemcpyToSymbol
__device__ int g_launches;         // counted by the kernels, read back at the end

}  // namespace

__global__ void scale_add(const float* x, float* y, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + g_bias;
  if (i == 0) atomicAdd(&g_launches, 1);
}

// Per-block sums through dynamic shared memory.
__global__ void block_sum(const float* y, float* sums, int n) {
  extern __shared__ float part[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? y[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}

// The same reduction without the barrier between steps: a shared-memory race.
__global__ void racy_sum(const float* y, float* sums, int n) {
  __shared__ float part[kBlock];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? y[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2)
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
  if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorName(e_));                  \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

extern "C" int replay_program_main(int argc, char** argv) {
  if (argc < 2) return 2;
  const bool race = argc > 2 && strcmp(argv[2], "race") == 0;
  float host_x[kN];
  for (int i = 0; i < kN; ++i) host_x[i] = 0.25f * float(i % 37) - 3.0f;
  const float bias = 0.5f;

  float *x, *y, *copy, *sums, *pinned, *y2, *pinned_out, *y3;
  CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CHECK(cudaMalloc(&y, kN * sizeof(float)));
  CHECK(cudaMalloc(&copy, kN * sizeof(float)));
  CHECK(cudaMalloc(&sums, kBlocks * sizeof(float)));
  CHECK(cudaMalloc(&y2, kN * sizeof(float)));
  CHECK(cudaMalloc(&y3, kN * sizeof(float)));
  CHECK(cudaMallocHost(&pinned, kN * sizeof(float)));
  CHECK(cudaHostAlloc(&pinned_out, kN * sizeof(float), cudaHostAllocMapped));
  CHECK(cudaMemcpy(x, host_x, sizeof host_x, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyToSymbol(g_bias, &bias, sizeof bias));
  CHECK(cudaMemset(y, 0xFF, kN * sizeof(float)));
  CHECK(cudaMemset(sums, 0xFF, kBlocks * sizeof(float)));
  printf("x=0x%llx y=0x%llx copy=0x%llx sums=0x%llx y2=0x%llx y3=0x%llx n=%d blocks=%d\n",
         (unsigned long long)x, (unsigned long long)y, (unsigned long long)copy,
         (unsigned long long)sums, (unsigned long long)y2, (unsigned long long)y3, kN, kBlocks);
  fflush(stdout);

  CHECK(cudaFuncSetAttribute(block_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));

  drills_sim_mark("inputs");
  scale_add<<<kBlocks, kBlock>>>(x, y, kN, 2.0f);
  CHECK(cudaMemcpy(copy, y, kN * sizeof(float), cudaMemcpyDeviceToDevice));
  if (race)
    racy_sum<<<kBlocks, kBlock>>>(copy, sums, kN);
  else  // more dynamic shared memory than it needs: over 48 KiB, allowed by the attribute
    block_sum<<<kBlocks, kBlock, kDynamicShared>>>(copy, sums, kN);
  cudaError_t sync = cudaDeviceSynchronize();
  drills_sim_mark("done");
  if (race) {
    // A reset clears the fault (the simulator's rule, for test suites): what follows runs again.
    printf("sync=%s\n", cudaGetErrorName(sync));
    CHECK(cudaDeviceReset());
    float* again;
    CHECK(cudaMalloc(&again, kN * sizeof(float)));
    CHECK(cudaMemcpy(again, host_x, sizeof host_x, cudaMemcpyHostToDevice));
    scale_add<<<kBlocks, kBlock>>>(again, again, kN, 1.0f);
    CHECK(cudaDeviceSynchronize());
    return 0;
  }
  CHECK(sync);

  // Pinned memory the kernel reads directly, filled by plain host stores after it was logged.
  for (int i = 0; i < kN; ++i) pinned[i] = float(i);
  scale_add<<<kBlocks, kBlock>>>(pinned, y2, kN, -1.0f);
  // A kernel's results in pinned memory, one of them then changed by a host store (a value none
  // of whose bytes is 0, so a record-only run sees the store too), read by another kernel.
  scale_add<<<kBlocks, kBlock>>>(y2, pinned_out, kN, 1.0f);
  CHECK(cudaDeviceSynchronize());
  pinned_out[7] = 3.3f;
  scale_add<<<kBlocks, kBlock>>>(pinned_out, y3, kN, 1.0f);
  CHECK(cudaDeviceSynchronize());

  float out_y[kN], out_sums[kBlocks], out_y2[kN], out_y3[kN];
  int launches = 0;
  CHECK(cudaMemcpy(out_y, y, sizeof out_y, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(out_sums, sums, sizeof out_sums, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(out_y2, y2, sizeof out_y2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(out_y3, y3, sizeof out_y3, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&launches, g_launches, sizeof launches));
  FILE* f = fopen(argv[1], "wb");
  if (!f) return 1;
  fwrite(out_y, sizeof out_y, 1, f);
  fwrite(out_sums, sizeof out_sums, 1, f);
  fwrite(out_y2, sizeof out_y2, 1, f);
  fwrite(out_y3, sizeof out_y3, 1, f);
  fwrite(&launches, sizeof launches, 1, f);
  fclose(f);
  printf("launches=%d\n", launches);
  CHECK(cudaFree(x));
  CHECK(cudaFreeHost(pinned));
  return 0;
}
