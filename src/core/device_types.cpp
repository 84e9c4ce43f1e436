// locus::cuda:: and locus::opencl::, the PyTorch-named spellings of the generic device functions.
#include "locus/device_info.h"
#include "locus/guard.h"
#include "locus/stream.h"

namespace locus {

#define LOCUS_TYPE_API(ns, TYPE)                                                                     \
  namespace ns {                                                                                     \
  bool is_available() { return locus::is_available(TYPE); }                                          \
  int device_count() { return locus::device_count(TYPE); }                                           \
  int current_device() { return current_device_index(TYPE); }                                        \
  void set_device(int index) { set_current_device_index(TYPE, static_cast<DeviceIndex>(index)); }   \
  std::string get_device_name(int index) {                                                           \
    return describe(Device(TYPE, static_cast<DeviceIndex>(index < 0 ? current_device() : index))).name; \
  }                                                                                                  \
  void synchronize(int index) {                                                                      \
    locus::synchronize(Device(TYPE, static_cast<DeviceIndex>(index < 0 ? current_device() : index))); \
  }                                                                                                  \
  }
LOCUS_TYPE_API(cuda, kCUDA)
LOCUS_TYPE_API(opencl, kOpenCL)
#undef LOCUS_TYPE_API

}  // namespace locus
