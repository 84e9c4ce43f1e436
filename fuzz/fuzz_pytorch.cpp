// libFuzzer target: the PyTorch checkpoint reader (zip directory + restricted unpickler).
#include "fuzz/common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return locus::fuzz::parse(data, size, locus::io::parse_pytorch);
}
