// C3's entry table for the C ABI library (see tests/support/drills_capi.cu).
#include "c3_transpose.h"
#include "support/drills_capi.h"

extern "C" const DrillsEntry drills_entries[] = {
    {"transpose_naive", reinterpret_cast<void*>(transpose_naive)},
    {"transpose_tiled", reinterpret_cast<void*>(transpose_tiled)},
    {"transpose_tiled_unpadded", reinterpret_cast<void*>(transpose_tiled_unpadded)},
    {"transpose_tiled_swizzled", reinterpret_cast<void*>(transpose_tiled_swizzled)},
    {"transpose_fast", reinterpret_cast<void*>(transpose_fast)},
    {"copy_tiled", reinterpret_cast<void*>(copy_tiled)},
    {"transpose_inplace_square", reinterpret_cast<void*>(transpose_inplace_square)},
    {nullptr, nullptr},
};
