#pragma once
// The environment report (what locus-info prints; torch.utils.collect_env's counterpart).
#include <string>

namespace locus {

/// Version, build options, backends (with the reason a type is unavailable) and every device
/// with its allocator statistics; as text, or as JSON when `json` is true.
std::string collect_env(bool json = false);

}  // namespace locus
