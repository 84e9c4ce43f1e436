// locus-inspect: what a checkpoint holds, without loading it.
//   locus-inspect FILE                      every tensor: name, dtype, shape, saved device, bytes;
//                                           then the metadata (.safetensors, .pt/.pth, .npy)
//   locus-inspect FILE --map-location MAP   also loads it as locus::load would and prints where
//                                           each tensor went: MAP is a device ("cpu") or
//                                           from=to pairs ("cuda:0=cpu,cuda:1=opencl:0")
// Exit status: 0, 1 for a bad file (the error on stderr), 2 for bad usage.
#include <iostream>
#include <map>
#include <string>

#include "locus/serialize.h"

namespace {

std::string shape(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

locus::MapLocation parse_map(const std::string& arg) {
  if (arg.find('=') == std::string::npos) return locus::MapLocation(arg);
  std::map<std::string, std::string> m;
  size_t start = 0;
  while (start <= arg.size()) {
    size_t comma = arg.find(',', start);
    std::string pair = arg.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
      throw locus::Error("--map-location: '" + pair + "' is not FROM=TO (e.g. cuda:0=cpu).");
    m[pair.substr(0, eq)] = pair.substr(eq + 1);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return locus::MapLocation(m);
}

const char* kUsage = "usage: locus-inspect FILE [--map-location DEVICE|FROM=TO[,FROM=TO...]]\n";

}  // namespace

int main(int argc, char** argv) {
  std::string file, map;
  bool have_map = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage << "Lists every tensor of a .safetensors, .pt/.pth or .npy file (name, dtype, shape, saved\n"
                             "device, bytes) and its metadata; with --map-location, loads it and reports each move.\n";
      return 0;
    } else if (a == "--map-location" && i + 1 < argc) {
      map = argv[++i];
      have_map = true;
    } else if (a.rfind("--map-location=", 0) == 0) {
      map = a.substr(15);
      have_map = true;
    } else if (!a.empty() && a[0] != '-' && file.empty()) {
      file = a;
    } else {
      std::cerr << "locus-inspect: unexpected argument '" << a << "'\n" << kUsage;
      return 2;
    }
  }
  if (file.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  try {
    locus::CheckpointInfo info = locus::inspect(file);
    size_t w = 4;
    for (const auto& t : info.tensors) w = std::max(w, t.name.size());
    int64_t total = 0;
    std::cout << file << ": " << info.format << ", " << info.tensors.size() << " tensors\n";
    for (const auto& t : info.tensors) {
      std::string s = shape(t.sizes);
      std::cout << "  " << t.name << std::string(w - t.name.size() + 2, ' ') << locus::dtype_name(t.dtype)
                << std::string(10 - std::min<size_t>(9, std::string(locus::dtype_name(t.dtype)).size()), ' ') << s
                << std::string(s.size() < 16 ? 16 - s.size() : 1, ' ') << t.saved_location << "  " << t.bytes << " bytes\n";
      total += t.bytes;
    }
    std::cout << "total: " << total << " bytes\n";
    if (!info.metadata.empty()) {
      std::cout << "metadata:\n";
      for (const auto& [k, v] : info.metadata) std::cout << "  " << k << ": " << v << "\n";
    }
    if (have_map) {
      locus::LoadReport report;
      locus::load(file, parse_map(map), &report);
      std::cout << "loaded with map_location " << map << ":\n" << report.str();
    }
  } catch (const locus::Error& e) {
    std::cerr << "locus-inspect: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
