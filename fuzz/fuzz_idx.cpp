// libFuzzer target: the IDX reader of data::datasets::MNIST (src/data/mnist.cpp, compiled into
// this target with instrumentation; the rest of locus comes from the uninstrumented library).
// It reads files (plain or gzip), so each input goes through a temporary file.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "data/idx.h"
#include "locus/data/mnist.h"
#include "locus/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/locus-fuzz-idx-" + std::to_string(::getpid());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  for (int dims : {1, 3}) {
    try {
      locus::Tensor t = locus::data::datasets::detail::read_idx(path, dims);
      if (t.numel() > 0 && t.data_ptr<uint8_t>()[t.numel() - 1] == 0xAB) std::remove("/nonexistent");  // touch the data
    } catch (const locus::Error&) {
    }
  }
  return 0;
}
