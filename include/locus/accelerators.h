#pragma once
// The per-type functions PyTorch names torch::cuda:: (and locus adds for opencl): thin spellings
// of is_available(kCUDA), device_count(kCUDA), ... (locus/device_info.h, locus/guard.h).
#include <cstdint>
#include <string>

namespace locus {

namespace cuda {
bool is_available();
int device_count();
int current_device();
void set_device(int index);
/// Name of device `index` (-1: the current device).
std::string get_device_name(int index = -1);
/// Waits for all work on device `index` (-1: the current device).
void synchronize(int index = -1);
/// libtorch's torch::cuda::cudnn_is_available(): false, locus has no cuDNN (convolutions run
/// through its own kernels and cuBLAS).
inline bool cudnn_is_available() { return false; }
/// libtorch's torch::cuda::manual_seed / manual_seed_all: locus::manual_seed, which seeds every
/// device of every type (one Philox stream gives the same numbers everywhere).
void manual_seed(uint64_t seed);
void manual_seed_all(uint64_t seed);
}  // namespace cuda

namespace opencl {
bool is_available();
int device_count();
int current_device();
void set_device(int index);
/// Name of device `index` (-1: the current device).
std::string get_device_name(int index = -1);
/// Waits for all work on device `index` (-1: the current device).
void synchronize(int index = -1);
}  // namespace opencl

/// libtorch's at::hasCUDA() (torch::hasCUDA()): whether a CUDA device can be used here (locus
/// loads the driver at run time, so this is cuda::is_available()); hasMPS(): false, locus has no
/// Metal backend.
inline bool hasCUDA() { return cuda::is_available(); }
inline bool hasMPS() { return false; }

}  // namespace locus
