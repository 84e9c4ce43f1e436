#pragma once
// Writing safetensors headers (parse_safetensors is in catalog.h).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "locus/dtype.h"

namespace locus::io {

/// The metadata key where save() records each tensor's device (a JSON object of device strings),
/// present only when some tensor was not on cpu.
constexpr const char* kDevicesKey = "locus.devices";

struct SafetensorsHeaderEntry {
  std::string name;
  ScalarType dtype;
  std::vector<int64_t> sizes;
  uint64_t begin, end;
};

/// The JSON header, padded with spaces to a multiple of 8 bytes.
std::string safetensors_header(const std::vector<SafetensorsHeaderEntry>& entries,
                               const std::vector<std::pair<std::string, std::string>>& metadata);

}  // namespace locus::io
