#include "backends/gpu/kernel_cache.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace locus::gpu {

namespace {

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

const char* dtype_suffix(ScalarType t) {
  switch (t) {
    case kFloat: return "f32";
    case kDouble: return "f64";
    case kHalf: return "f16";
    case kBFloat16: return "bf16";
    case kInt: return "i32";
    case kLong: return "i64";
    case kByte: return "u8";
    case kChar: return "i8";
    case kShort: return "i16";
    case kBool: return "bool";
    default: return "undefined";
  }
}

std::string dtype_define(ScalarType dtype) {
  std::string s = std::string("-DDT_") + dtype_suffix(dtype);
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string kernel_cache_dir() {
  if (const char* c = std::getenv("LOCUS_KERNEL_CACHE"); c && *c) return c;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/locus/kernels";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/locus/kernels";
  return "";
}

std::string cache_file(const std::string& key, const std::string& source, const char* ext) {
  uint64_t h1 = fnv1a(source.data(), source.size(), fnv1a(key.data(), key.size()));
  uint64_t h2 = fnv1a(source.data(), source.size(), fnv1a(key.data(), key.size(), 0x9E3779B97F4A7C15ull));
  std::string dir = kernel_cache_dir();
  return dir.empty() ? "" : dir + "/" + hex(h1) + hex(h2) + ext;
}

std::string read_cache(const std::string& path, const char* magic, std::atomic<int64_t>& corrupt) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "";
  std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  uint64_t size = 0, hash = 0;
  if (data.size() >= 24) {
    std::memcpy(&size, data.data() + 8, 8);
    std::memcpy(&hash, data.data() + 16, 8);
  }
  if (data.size() < 24 || std::memcmp(data.data(), magic, 8) != 0 || size != data.size() - 24 ||
      fnv1a(data.data() + 24, size) != hash) {
    drop_cache(path, corrupt);
    return "";
  }
  return data.substr(24);
}

void write_cache(const std::string& path, const char* magic, const void* data, size_t size) {
  std::error_code ec;
  std::filesystem::path fp(path);
  std::filesystem::create_directories(fp.parent_path(), ec);
  static std::atomic<int> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;
    uint64_t sz = size, h = fnv1a(data, size);
    out.write(magic, 8);
    out.write(reinterpret_cast<const char*>(&sz), 8);
    out.write(reinterpret_cast<const char*>(&h), 8);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) {
      out.close();
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, fp, ec);  // atomic: readers never see a partial file
  if (ec) std::filesystem::remove(tmp, ec);
}

void drop_cache(const std::string& path, std::atomic<int64_t>& corrupt) noexcept {
  ++corrupt;
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

}  // namespace locus::gpu
