// The contract between the simulator's two halves.
//
//   runtime/  (the libcudart replacement): registration, fat binaries, device memory, streams,
//             events, the CUDA runtime API. It owns every allocation and calls launch().
//   engine/   (PTX front end + SIMT executor): parses PTX once per module, runs one launch,
//             counts what Nsight Compute counts and checks what a GPU does not.
//
// Neither half includes the other's private headers; this file is all they share.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sim {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

// One live device allocation (cudaMalloc, a module's .global variable, ...).
struct Allocation {
  uint64_t base = 0;     // device address
  uint64_t size = 0;     // bytes
  std::string label;     // for messages: "cudaMalloc #3 (4194304 bytes)" or "__device__ int counter"
};

// Device memory as the engine sees it. Device addresses are not host addresses: host code that
// dereferences one faults, as on a GPU. The engine reaches the bytes only through translate().
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  // Host bytes backing [addr, addr + size) when the whole range lies in one live allocation;
  // nullptr otherwise (the engine then reports out-of-bounds, naming nearest()).
  virtual uint8_t* translate(uint64_t addr, uint64_t size) = 0;
  // The live allocation containing addr, or the closest one below it; nullptr when there is none.
  virtual const Allocation* nearest(uint64_t addr) const = 0;
  // Allocate device memory for a module-scope variable (.global / .const in the PTX).
  virtual uint64_t allocate(uint64_t size, const std::string& label) = 0;
};

// A module-scope variable of a loaded module (for cudaMemcpyToSymbol, __cudaRegisterVar).
struct Symbol {
  std::string name;
  uint64_t address = 0;
  uint64_t size = 0;
};

// Latencies in SM cycles behind each block's critical-path estimate (metric sim__block_cycles),
// which the time model (sim/model) turns into a latency bound. The defaults are the H200's;
// sim/model/gpus.py says where each comes from and passes its own (DRILLS_SIM_LATENCY).
struct Latencies {
  uint32_t alu = 5;        // integer and fp32 arithmetic, conversions, selects
  uint32_t sfu = 20;       // division, square root, transcendental approximations
  uint32_t shared = 30;    // a shared-memory load or atomic
  uint32_t global = 1500;  // a global load or atomic, from DRAM under a streaming load
  uint32_t warp = 25;      // shuffles, votes, warp reductions
  uint32_t barrier = 20;   // from the last warp's arrival at bar.sync to the release
  uint32_t loads = 8;      // global loads a warp has in flight at most (ptxas unrolls loops ~4 deep)
};

struct LaunchParams {
  std::string kernel;               // mangled entry name, as in the PTX
  Dim3 grid, block;
  uint64_t dynamic_shared_bytes = 0;
  void** args = nullptr;            // args[i] points at parameter i; sizes come from the PTX .param list
  int host_threads = 0;             // blocks run in parallel on this many host threads; 0 = all cores
  double watchdog_seconds = 60.0;   // stop a launch that runs longer than this
  // For the time model on launches too large to simulate whole: when > 0, only about this many
  // blocks run, in pairs of launch-order neighbours spread evenly over the grid. Counters then
  // cover those blocks (sim__blocks.sum says how many) and the launch's results are incomplete.
  uint64_t sample_blocks = 0;
  // Blocks a GPU holds at once for this launch (SMs x blocks per SM, the runtime's occupancy): at
  // most this many run or wait (a block parked at nanosleep) together, so a kernel whose blocks wait
  // for all the others finishes exactly when it would on the GPU, on any number of host threads;
  // one that waits for more stops at the watchdog. The default is the most a modelled GPU holds
  // (132 SMs x 32 blocks).
  uint64_t resident_blocks = 132 * 32;
  Latencies latency;
};

// What went wrong in a launch. Each kind is a distinct, named error the judge can report.
//   kind: "out-of-bounds" | "misaligned" | "shared-race" | "barrier-divergence" | "deadlock" |
//         "watchdog" | "sync-mask" | "unsupported" | "trap"
struct SimError {
  std::string kind;
  std::string message;              // one line, English, names what and where
  Dim3 block, thread;               // first offending thread
  std::string file;                 // source file from -lineinfo ("" when unknown)
  int line = 0;
  // Memory involved, when there is some: address, allocation label and offset into it,
  // and for races the other thread and line.
  uint64_t address = 0;
  std::string allocation;
  int64_t offset = 0;
  std::string detail;               // free-form extra context (e.g. the racing thread and line)
};

// Counters for one source line (from .loc) or the whole launch. Metric names are Nsight Compute's:
//   l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st,atom,red}.sum
//   l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st,atom,red}.sum
//   l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum
//   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum
//   smsp__inst_executed_op_shared_{ld,st,atom}.sum
//   smsp__inst_executed_op_global_{ld,st}.sum
// and, for the time model (sim/model), the simulator's own (prefix sim__, launch only):
//   sim__blocks.sum                      blocks simulated (all, unless LaunchParams::sample_blocks)
//   sim__block_cycles.{sum,max}          critical path of each block in cycles (Latencies)
//   sim__global_{ld,st}_bytes.sum        bytes the active lanes of global loads/stores move
//   sim__st_partial_writes.sum           sectors global stores write in part (fewer than 32 bytes)
//   sim__st_partial_sectors.sum          sectors the first block of each neighbour pair leaves in
//                                        part (its stores write fewer than 32 of their bytes)
//   sim__st_partial_sectors_next.sum     ... of them, written in part by the next block too
//   sim__st_pages_{next,shared}.sum      2 KB pages the second block of each pair stores to, and of
//                                        them those it fills half of or the first block stores to too
//   sim__st_bytes_scattered.sum          bytes the second blocks store to their other pages
using Metrics = std::map<std::string, uint64_t>;

// One warp-level memory instruction, kept as an example per source line (the first executed),
// so the browser can draw the 32 lanes' addresses, sectors and banks.
struct WarpAccessSample {
  std::string space;                // "global" | "shared"
  std::string op;                   // "ld" | "st" | "atom" | "red"
  uint32_t bytes_per_lane = 4;
  uint32_t active_mask = 0;
  uint64_t address[32] = {};        // device (global) or byte offset (shared) per lane
  Dim3 block;
  uint32_t warp = 0;
};

struct LineReport {
  std::string file;
  int line = 0;
  Metrics metrics;
  WarpAccessSample sample;
};

struct LaunchReport {
  std::string kernel;
  Dim3 grid, block;
  Metrics metrics;                  // whole launch
  std::vector<LineReport> lines;    // sorted by (file, line)
  std::vector<SimError> errors;     // empty when the launch ran clean; the first error stops it
  double seconds = 0;               // wall time spent simulating
};

// A parsed PTX module. Parsing happens once, when the runtime first needs the module.
class Module {
 public:
  virtual ~Module() = default;
  // Throws std::runtime_error naming the first construct it cannot parse ("unsupported PTX: ...").
  static std::unique_ptr<Module> parse(const std::string& ptx_text);

  virtual bool has_kernel(const std::string& name) const = 0;
  // Why the kernel cannot run ("unsupported PTX: `instruction` (PTX line N): reason"), or "" when it can.
  virtual std::string unsupported(const std::string& name) const { (void)name; return ""; }
  // Sizes in bytes of a kernel's parameters, in order.
  virtual std::vector<uint64_t> param_sizes(const std::string& kernel) const = 0;
  // Allocate and initialise the module's .global/.const variables in `memory` (once).
  virtual void load_globals(DeviceMemory& memory) = 0;
  virtual std::vector<Symbol> symbols() const = 0;
  // Run one launch to completion (or to its first error). Deterministic: the same inputs give the
  // same memory contents, counters and first error on every run, whatever host_threads is.
  // Device-side printf goes to the process's stdout.
  virtual LaunchReport launch(const LaunchParams& params, DeviceMemory& memory) = 0;
};

}  // namespace sim
