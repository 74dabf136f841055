// One row per host function a chapter's library exposes; the table ends with {nullptr, nullptr}.
#pragma once

struct DrillsEntry {
  const char* name;
  void* fn;
};

extern "C" const DrillsEntry drills_entries[];

// The address of a host function the file under test defines, or null (weak and undefined).
extern "C" void* drills_entry(const char* name);

// Each chapter also defines, for the judge's GPU timing:
//   int drills_time_variant(const char* name, const long long* dims, int ndims, int warmup, int reps,
//                           float* samples_ms, double* bytes_moved);
// It allocates fresh random inputs of the given shape, times `reps` calls of the named host
// function after `warmup` calls, and reports the bytes one call must move (read + write).
// Returns a cudaError_t, or -1 when the file does not define `name`, -2 for a bad shape.
extern "C" int drills_time_variant(const char* name, const long long* dims, int ndims, int warmup, int reps,
                                   float* samples_ms, double* bytes_moved);
