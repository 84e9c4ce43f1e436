// A deterministic stand-in for libFuzzer's driver, used when clang's libFuzzer is absent:
//   fuzz_X -runs=N SEED_FILE_OR_DIR...
// Runs every seed, then N inputs made from the seeds by seeded random mutations (bit flips,
// interesting bytes and integers, truncation, insertion, deletion, chunk copies). No coverage
// feedback, so it finds less than libFuzzer; the sanitizers still check every run.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {
uint64_t state = 0x9E3779B97F4A7C15ull;
uint64_t next() {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}
size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(next() % n); }

void mutate(std::string& s) {
  static const int64_t interesting[] = {0, 1, -1, 0x7f, 0x80, 0xff, 0x7fff, 0xffff, 0x7fffffff, -0x80000000ll, 0xffffffffll, INT64_MAX};
  int k = 1 + static_cast<int>(below(4));
  for (int i = 0; i < k; ++i) {
    switch (below(7)) {
      case 0: if (!s.empty()) s[below(s.size())] ^= static_cast<char>(1 << below(8)); break;
      case 1: if (!s.empty()) s[below(s.size())] = static_cast<char>(interesting[below(12)]); break;
      case 2: if (s.size() >= 8) { int64_t v = interesting[below(12)]; std::memcpy(&s[below(s.size() - 7)], &v, 8); } break;
      case 3: s.resize(below(s.size() + 1)); break;
      case 4: s.insert(below(s.size() + 1), std::string(1 + below(8), static_cast<char>(next()))); break;
      case 5: if (!s.empty()) { size_t a = below(s.size()); s.erase(a, 1 + below(s.size() - a)); } break;
      case 6: if (!s.empty()) { size_t a = below(s.size()), n = 1 + below(std::min<size_t>(64, s.size() - a)); s.insert(below(s.size() + 1), s.substr(a, n)); } break;
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  long runs = 1000;
  std::vector<std::string> seeds;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("-runs=", 0) == 0) { runs = std::stol(a.substr(6)); continue; }
    if (a[0] == '-') continue;  // other libFuzzer flags
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(a)) {
      for (const auto& e : std::filesystem::directory_iterator(a)) files.push_back(e.path());
    } else {
      files.push_back(a);
    }
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  if (seeds.empty()) seeds.emplace_back();
  for (const auto& s : seeds) LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  for (long r = 0; r < runs; ++r) {
    std::string s = seeds[below(seeds.size())];
    mutate(s);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
  std::printf("Done %ld runs (deterministic driver, %zu seeds)\n", runs, seeds.size());
  return 0;
}
