// locus-inspect: what a checkpoint holds, without loading it.
//   locus-inspect FILE                      format and file size; every tensor: name, dtype, shape,
//                                           saved device, parameters (elements), bytes; totals;
//                                           bytes per dtype; metadata (.safetensors, .pt/.pth/.bin, .npy)
//   locus-inspect FILE --json               the same as one JSON object
//   locus-inspect FILE --map-location MAP   also loads it as locus::load would and prints where
//                                           each tensor went: MAP is a device ("cpu") or
//                                           from=to pairs ("cuda:0=cpu,cuda:1=opencl:0")
// Exit status: 0 read, 1 not a checkpoint / unreadable / refused, 2 bad usage, 3 --map-location
// could not load it.
#include <sys/stat.h>

#include <iostream>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "locus/serialize.h"
#include "locus/version.h"

namespace {

std::string shape(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

int64_t numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return n;
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

const char* kUsage = "usage: locus-inspect FILE [--json] [--map-location DEVICE|FROM=TO[,FROM=TO...]]\n";
const char* kHelp =
    "Lists what a checkpoint holds without loading it: its format (safetensors, pytorch for\n"
    "torch.save's .pt/.pth/.bin, npy) and size, every tensor (name, dtype, shape, saved device,\n"
    "parameters, bytes), the totals, the bytes per dtype and the metadata.\n"
    "  --json               one JSON object instead of text\n"
    "  --map-location MAP   also load it (MAP: a device, or FROM=TO pairs) and report each move\n"
    "  --version            locus's version\n"
    "Flags take their value as --flag VALUE or --flag=VALUE.\n"
    "Exit status: 0 the file was read; 1 it is not a checkpoint locus recognises, cannot be read,\n"
    "is malformed or holds something locus refuses (the reason on stderr); 2 bad usage;\n"
    "3 --map-location could not load it (e.g. the target device is absent).\n";

}  // namespace

int main(int argc, char** argv) {
  std::string file, map;
  bool have_map = false, json = false;
  auto usage_error = [](const std::string& what) {
    std::cerr << "locus-inspect: " << what << "; see --help\n";
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::optional<std::string> inline_value;  // --flag=value
    if (size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos)
      inline_value = a.substr(eq + 1), a = a.substr(0, eq);
    if ((a == "--help" || a == "--version" || a == "--json") && inline_value)
      return usage_error(a + " takes no value");
    if (a == "--help" || a == "-h") {
      std::cout << kUsage << kHelp;
      return 0;
    } else if (a == "--version") {
      std::cout << "locus-inspect " << LOCUS_VERSION << "\n";
      return 0;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--map-location") {
      if (!inline_value && i + 1 >= argc) return usage_error("--map-location needs a value: a device or FROM=TO pairs");
      map = inline_value ? *inline_value : argv[++i];
      have_map = true;
    } else if (!a.empty() && a[0] != '-' && file.empty()) {
      file = a;
    } else {
      return usage_error(std::string(file.empty() || a[0] == '-' ? "unknown argument '" : "a second FILE '") + argv[i] +
                         "'");
    }
  }
  if (file.empty()) return usage_error("no FILE given");
  locus::CheckpointInfo info;
  try {
    info = locus::inspect(file);
  } catch (const locus::Error& e) {
    std::cerr << "locus-inspect: " << e.what() << "\n";
    return 1;
  }
  struct stat st {};
  const int64_t file_bytes = ::stat(file.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
  int64_t total_bytes = 0, total_params = 0;
  std::map<std::string, std::pair<int64_t, int64_t>> per_dtype;  // dtype -> (tensors' bytes, parameters)
  for (const auto& t : info.tensors) {
    total_bytes += t.bytes;
    total_params += numel(t.sizes);
    auto& d = per_dtype[locus::dtype_name(t.dtype)];
    d.first += t.bytes;
    d.second += numel(t.sizes);
  }
  locus::LoadReport report;
  if (have_map) {
    try {
      locus::load(file, parse_map(map), &report);
    } catch (const locus::Error& e) {
      std::cerr << "locus-inspect: " << e.what() << "\n";
      return 3;
    }
  }
  if (json) {
    nlohmann::ordered_json j;
    j["file"] = file;
    j["format"] = info.format;
    j["file_bytes"] = file_bytes;
    j["tensors"] = nlohmann::ordered_json::array();
    for (const auto& t : info.tensors)
      j["tensors"].push_back({{"name", t.name}, {"dtype", locus::dtype_name(t.dtype)}, {"shape", t.sizes},
                              {"device", t.saved_location}, {"parameters", numel(t.sizes)}, {"bytes", t.bytes}});
    j["total"] = {{"tensors", info.tensors.size()}, {"parameters", total_params}, {"bytes", total_bytes}};
    j["dtypes"] = nlohmann::ordered_json::object();
    for (const auto& [name, d] : per_dtype) j["dtypes"][name] = {{"parameters", d.second}, {"bytes", d.first}};
    j["metadata"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : info.metadata) j["metadata"][k] = v;
    if (have_map) {
      j["loaded"] = nlohmann::ordered_json::array();
      for (const auto& r : report.records)
        j["loaded"].push_back({{"name", r.name}, {"from", r.saved_location}, {"to", r.target.str()}, {"bytes", r.bytes}});
    }
    // Names and metadata are the file's bytes: replace invalid UTF-8 rather than fail.
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  size_t w = 4;
  for (const auto& t : info.tensors) w = std::max(w, t.name.size());
  std::cout << file << ": " << info.format << ", " << info.tensors.size() << " tensors, " << file_bytes << " bytes on disk\n";
  for (const auto& t : info.tensors) {
    std::string s = shape(t.sizes);
    std::cout << "  " << t.name << std::string(w - t.name.size() + 2, ' ') << locus::dtype_name(t.dtype)
              << std::string(10 - std::min<size_t>(9, std::string(locus::dtype_name(t.dtype)).size()), ' ') << s
              << std::string(s.size() < 16 ? 16 - s.size() : 1, ' ') << t.saved_location << "  " << numel(t.sizes) << " params  "
              << t.bytes << " bytes\n";
  }
  std::cout << "total: " << total_params << " parameters, " << total_bytes << " bytes\n";
  if (!per_dtype.empty()) {
    std::cout << "by dtype:\n";
    for (const auto& [name, d] : per_dtype) std::cout << "  " << name << ": " << d.second << " parameters, " << d.first << " bytes\n";
  }
  if (!info.metadata.empty()) {
    std::cout << "metadata:\n";
    for (const auto& [k, v] : info.metadata) std::cout << "  " << k << ": " << v << "\n";
  }
  if (have_map) std::cout << "loaded with map_location " << map << ":\n" << report.str();
  return 0;
}
