// libFuzzer target: the restricted unpickler alone (data.pkl bytes), reaching deeper than
// through a zip archive.
#include "fuzz/common.h"
#include "io/pickle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    locus::io::unpickle(data, size, [](const std::string& m) { throw locus::CheckpointError(m); });
  } catch (const locus::Error&) {
  }
  return 0;
}
