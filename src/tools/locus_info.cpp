// locus-info: version, build options, backends, devices and allocator statistics.
//   locus-info          human-readable
//   locus-info --json   for machines
#include <cstring>
#include <iostream>

#include "locus/locus.h"

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
    std::cout << locus::collect_env(json);
  } catch (const locus::Error& e) {
    std::cerr << "locus-info: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
