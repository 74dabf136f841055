// Writing the op log (oplog_format.h) when DRILLS_SIM_OPLOG names a file. Every call site tests
// oplog::on() first, so a program run without the variable pays one branch per operation.
// Callers hold the runtime lock: records are written in program order, one write each.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "oplog_format.h"

namespace simrt::oplog {

extern int g_fd;   // -1: no op log (unset, failed to open, or stopped at its size limit)
inline bool on() { return g_fd >= 0; }
// DRILLS_SIM_RECORD_ONLY=1 with an op log: launches are checked and logged but not run (the judge
// replays them); memory operations still happen.
extern bool g_record_only;
inline bool record_only() { return g_record_only; }

void open_from_env();   // once, at start-up
void alloc(uint64_t addr, uint64_t size, uint32_t kind, const std::string& label);
void free_block(uint64_t addr);
void write(uint64_t dst, const void* bytes, uint64_t n);
void copy(uint64_t dst, uint64_t src, uint64_t n);
void memset(uint64_t dst, uint32_t value, uint64_t n);
// Host-visible blocks (pinned, registered, managed) are shadowed by what the replay holds for them:
// before a launch, WRITE records of the bytes host code changed since (host_visible); after an
// operation or a kernel changed them in step with the replay, the shadow follows (host_written,
// kernel_ran).
void host_visible();
void host_written(uint64_t addr, uint64_t n);
void kernel_ran();
void launch(uint32_t module, const std::string& name, dim3 grid, dim3 block, uint64_t shared,
            const std::vector<uint64_t>& param_sizes, void** args);
void mark(const char* text);
void attr(uint32_t module, const std::string& name, uint32_t attribute, int32_t value);
void module(uint32_t module, const std::string& ptx);
void reset();

}  // namespace simrt::oplog
