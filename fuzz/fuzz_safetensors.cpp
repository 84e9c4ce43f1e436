// libFuzzer target: the safetensors parser on arbitrary bytes. Only locus::Error may escape it.
#include "fuzz/common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return locus::fuzz::parse(data, size, locus::io::parse_safetensors);
}
