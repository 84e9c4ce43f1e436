// locus-info: version, build options, backends, devices and allocator statistics.
//   locus-info          human-readable
//   locus-info --json   for machines
#include <cstring>
#include <iostream>

#include "locus/locus.h"
#if LOCUS_WITH_CUDA
#include "backends/cuda/libraries.h"
#endif

int main(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << "usage: locus-info [--json]\n"
                   "Prints locus's version, build options, every backend and device (memory, compute units,\n"
                   "fp16 support) and each device's allocator statistics.\n";
      return 0;
    } else {
      std::cerr << "locus-info: unknown argument '" << argv[i] << "'\nusage: locus-info [--json]\n";
      return 2;
    }
  }
  try {
    std::string env = locus::collect_env(json);
#if LOCUS_WITH_CUDA
    // NVRTC and cuBLAS are loaded at run time: say which were found (loading them here).
    std::string libs = locus::cuda::libraries_report();
    if (json) {
      std::string escaped;
      for (char c : libs) escaped += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
      env.erase(env.rfind('}'));  // the object's closing brace: one more member goes in
      while (!env.empty() && env.back() == '\n') env.pop_back();
      env += ",\n  \"cuda_libraries\": \"" + escaped + "\"\n}\n";
    } else {
      env += "\nCUDA libraries: " + libs + "\n";
    }
#endif
    std::cout << env;
  } catch (const locus::Error& e) {
    std::cerr << "locus-info: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
