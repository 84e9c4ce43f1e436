#pragma once
// The CUDA driver API, loaded at run time: libcuda.so.1 is opened with dlopen on first use and
// never linked, so a locus built with CUDA starts on machines without an NVIDIA driver and
// reports CUDA as unavailable with the reason (docs/cuda.md).
//
// Symbols are looked up under the names cuda.h binds its declarations to (cuMemAlloc is
// cuMemAlloc_v2, ...), so each pointer has exactly the type of its declaration; call sites
// read like the driver API: drv().cuMemAlloc(&p, n). LOCUS_CUDA_DRIVER overrides the library
// (a path or a soname). The table is loaded once and never unloaded (other libraries of the
// process, cuBLAS among them, share the driver).
#include <cuda.h>

#include <string>

namespace locus::cuda {

struct Driver {
  bool loaded = false;
  std::string reason;  // why not loaded: "no driver: libcuda.so.1 not found (...)"
  int version = 0;     // cuDriverGetVersion: 12040 for 12.4

#define LOCUS_CU_FN(name) decltype(&::name) name = nullptr;
#define LOCUS_CU_OPT(name) LOCUS_CU_FN(name)
#include "backends/cuda/driver_functions.inc"
#undef LOCUS_CU_OPT
#undef LOCUS_CU_FN

  /// Opens `library` and resolves every entry point (LOCUS_CU_OPT ones may stay nullptr); on
  /// failure `loaded` stays false and `reason` says why. Does not call cuInit.
  void load(const char* library);
};

/// The process-wide driver table (loaded on first call; never throws).
const Driver& drv() noexcept;

}  // namespace locus::cuda
