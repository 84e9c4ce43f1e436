#pragma once
// Ranking: the device a program should use when it names none.
#include <string>

#include "locus/device.h"

namespace locus {

/// cuda, then an OpenCL GPU, then an OpenCL device that is not the host CPU, then cpu (an OpenCL
/// driver on the host CPU, such as PoCL, is skipped: cpu is faster there); LOCUS_DEVICE overrides.
/// The order comes from the backends' capabilities (src/core/backend.h), not from a list here.
Device best_device();
/// One line per candidate saying why it was chosen or skipped.
std::string best_device_report();

}  // namespace locus
