// Every function cuda_runtime_api.h declares, as a weak stub that stops the program with the
// call's name (exit code 3). The functions the simulator implements are strong definitions in the
// other files of this library and replace these at link time. The list of names is read from the
// toolkit's header when CMake configures (unsupported_names.inc), so it follows the toolkit.
//
// This file must not include the CUDA headers: the stubs take no parameters, which is harmless
// because they never return.

namespace simrt {
[[noreturn]] void unsupported_call(const char* name);
}

#define SIMRT_UNSUPPORTED(name) \
  extern "C" __attribute__((weak)) void name() { simrt::unsupported_call(#name); }

#include "unsupported_names.inc"
