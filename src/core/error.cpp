#include "locus/error.h"

namespace locus::detail {
void throw_error(const std::string& msg) { throw Error(msg); }
}  // namespace locus::detail
