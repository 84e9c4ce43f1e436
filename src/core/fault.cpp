// Fault injection (fault.h): the counters behind fault::hit and the Injector scope.
#include "core/fault.h"

#include <cstdlib>
#include <mutex>

#include "locus/error.h"

namespace locus::fault {
namespace {

struct State {
  std::mutex mu;                         // arming and the environment's parse
  std::atomic<int64_t> calls[kSites] = {};
  std::atomic<int64_t> fail_at[kSites] = {};  // 0: never
  std::atomic<bool> fired{false};
  std::string env_error;                 // a malformed LOCUS_FAULT, thrown by the first counted call
};
State& state() {
  static State s;
  return s;
}

const char* kNames[kSites] = {"alloc", "launch", "copy", "scratch"};

// LOCUS_FAULT arms the switch when liblocus loads; its parse errors wait for the first call.
bool arm_from_env() {
  const char* env = std::getenv("LOCUS_FAULT");
  if (env == nullptr || *env == '\0') return false;
  State& s = state();
  try {
    Plan p = parse(env);
    for (int i = 0; i < kSites; ++i) s.fail_at[i].store(p.fail_at[i], std::memory_order_relaxed);
  } catch (const Error& e) {
    s.env_error = e.what();
  }
  detail::armed.store(true, std::memory_order_release);
  return true;
}

}  // namespace

namespace detail {
std::atomic<bool> armed{false};

bool hit_slow(Site site) {
  State& s = state();
  if (!s.env_error.empty()) throw Error(s.env_error);
  int64_t n = s.calls[site].fetch_add(1, std::memory_order_relaxed) + 1;
  int64_t at = s.fail_at[site].load(std::memory_order_relaxed);
  if (at == 0 || n != at) return false;
  s.fired.store(true, std::memory_order_relaxed);
  return true;
}
}  // namespace detail

[[maybe_unused]] static const bool env_armed = arm_from_env();

Plan parse(const std::string& value) {
  auto bad = [&]() {
    return Error("[LOCUS_FAULT] cannot parse '" + value +
                 "': expected site:N[,site:N] with site alloc, launch, copy or scratch and N >= 1. "
                 "Set e.g. LOCUS_FAULT=alloc:3 to fail the third allocation.");
  };
  Plan p;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(',', start);
    if (end == std::string::npos) end = value.size();
    std::string item = value.substr(start, end - start);
    size_t colon = item.find(':');
    if (colon == std::string::npos) throw bad();
    std::string site = item.substr(0, colon), num = item.substr(colon + 1);
    int i = 0;
    while (i < kSites && site != kNames[i]) ++i;
    if (i == kSites || num.empty() || num.size() > 18 || num[0] == '0' ||
        num.find_first_not_of("0123456789") != std::string::npos)
      throw bad();
    p.fail_at[i] = std::stoll(num);
    start = end + 1;
  }
  return p;
}

Injector::Injector(Site site, int64_t n) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  for (int i = 0; i < kSites; ++i) {
    s.calls[i].store(0, std::memory_order_relaxed);
    s.fail_at[i].store(i == site ? n : 0, std::memory_order_relaxed);
  }
  s.fired.store(false, std::memory_order_relaxed);
  s.env_error.clear();
  detail::armed.store(true, std::memory_order_release);
}

Injector::~Injector() {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  detail::armed.store(false, std::memory_order_release);
  for (int i = 0; i < kSites; ++i) s.fail_at[i].store(0, std::memory_order_relaxed);
}

int64_t Injector::calls(Site site) const {
  return state().calls[site].load(std::memory_order_relaxed);
}

bool Injector::fired() const { return state().fired.load(std::memory_order_relaxed); }

}  // namespace locus::fault
