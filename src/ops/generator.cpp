// Generator objects (locus/generator.h) and the process's default stream (locus/random.h): each is
// a Philox (seed, position) pair behind a mutex. A draw reserves its count of numbers from the
// generator a GeneratorScope names on its thread, else from the default stream.
#include "locus/generator.h"

#include <cstring>
#include <random>
#include <string>

#include "locus/accelerators.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/random.h"
#include "locus/tensor.h"
#include "ops/internal.h"

namespace locus {
namespace {

thread_local GeneratorImpl* t_generator = nullptr;

constexpr int64_t kStateBytes = 16;

}  // namespace

GeneratorImpl::GeneratorImpl(Device device, uint64_t seed) : device_(device), state_(std::make_shared<State>()) {
  state_->seed = seed;
}

GeneratorImpl::GeneratorImpl(Device device, std::shared_ptr<State> shared) : device_(device), state_(std::move(shared)) {}

void GeneratorImpl::set_current_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(state_->mu);
  state_->seed = seed;
  state_->offset = 0;
}

uint64_t GeneratorImpl::current_seed() const {
  std::lock_guard<std::mutex> g(state_->mu);
  return state_->seed;
}

uint64_t GeneratorImpl::seed() {
  std::random_device rd;
  const uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ static_cast<uint64_t>(rd());
  set_current_seed(s);
  return s;
}

uint64_t GeneratorImpl::get_offset() const {
  std::lock_guard<std::mutex> g(state_->mu);
  return state_->offset;
}

void GeneratorImpl::set_offset(uint64_t offset) {
  if (offset % 4 != 0)
    throw Error("[Generator::set_offset] the position must be a multiple of 4 (Philox draws numbers in fours), got " +
                std::to_string(offset) + ".");
  std::lock_guard<std::mutex> g(state_->mu);
  state_->offset = offset;
}

GeneratorImpl::Reserved GeneratorImpl::reserve(uint64_t count) {
  std::lock_guard<std::mutex> g(state_->mu);
  Reserved r{state_->seed, state_->offset};
  state_->offset += (count + 3) / 4 * 4;
  return r;
}

// ---- the default stream ---------------------------------------------------------------------------

Generator default_generator(Device device) {
  static const std::shared_ptr<GeneratorImpl::State> state = std::make_shared<GeneratorImpl::State>();
  // (a private constructor: make_shared cannot reach it)
  return Generator(std::shared_ptr<GeneratorImpl>(new GeneratorImpl(device, state)));
}

namespace {
GeneratorImpl& default_impl() {
  static const Generator g = default_generator(Device(kCPU));
  return *g.unsafeGetGeneratorImpl();
}
}  // namespace

void manual_seed(uint64_t seed) { default_impl().set_current_seed(seed); }
// libtorch's spellings: one generator serves every device
void cuda::manual_seed(uint64_t seed) { locus::manual_seed(seed); }
void cuda::manual_seed_all(uint64_t seed) { locus::manual_seed(seed); }
uint64_t initial_seed() { return default_impl().current_seed(); }

ops::PhiloxState ops::philox_reserve(uint64_t count) {
  GeneratorImpl& g = t_generator ? *t_generator : default_impl();
  GeneratorImpl::Reserved r = g.reserve(count);
  return {r.seed, r.offset};
}

// ---- Generator ----------------------------------------------------------------------------------

GeneratorImpl& Generator::checked() const {
  if (!impl_)
    throw Error("[Generator] this generator is undefined (default-constructed); make one with "
                "make_generator<CPUGeneratorImpl>(seed) or at::detail::createCPUGenerator(seed).");
  return *impl_;
}

Tensor Generator::get_state() const {
  GeneratorImpl& g = checked();
  uint64_t words[2];
  {
    std::lock_guard<std::mutex> lock(g.state_->mu);
    words[0] = g.state_->seed;
    words[1] = g.state_->offset;
  }
  Tensor out = empty({kStateBytes}, TensorOptions().dtype(kByte));
  uint8_t* p = out.data_ptr<uint8_t>();
  for (int w = 0; w < 2; ++w)
    for (int b = 0; b < 8; ++b) p[w * 8 + b] = static_cast<uint8_t>(words[w] >> (8 * b));
  return out;
}

void Generator::set_state(const Tensor& state) {
  GeneratorImpl& g = checked();
  if (!state.defined()) throw Error("[Generator::set_state] the state tensor is undefined; pass one from get_state().");
  if (state.scalar_type() != kByte)
    throw Error(std::string("[Generator::set_state] expects a uint8 (torch.ByteTensor) state, as get_state() returns, "
                            "got ") + dtype_name(state.scalar_type()) + ".");
  if (state.numel() != kStateBytes)
    throw Error("[Generator::set_state] expects a state of " + std::to_string(kStateBytes) +
                " bytes (seed and position, as get_state() returns), got " + std::to_string(state.numel()) +
                " bytes; a state saved by libtorch's mt19937 generator cannot be read.");
  Tensor s = state.to(kCPU).contiguous();
  const uint8_t* p = s.data_ptr<uint8_t>();
  uint64_t words[2] = {0, 0};
  for (int w = 0; w < 2; ++w)
    for (int b = 0; b < 8; ++b) words[w] |= static_cast<uint64_t>(p[w * 8 + b]) << (8 * b);
  if (words[1] % 4 != 0)
    throw Error("[Generator::set_state] the state's position (" + std::to_string(words[1]) +
                ") is not a multiple of 4; it did not come from get_state().");
  std::lock_guard<std::mutex> lock(g.state_->mu);
  g.state_->seed = words[0];
  g.state_->offset = words[1];
}

Generator Generator::clone() const {
  GeneratorImpl& g = checked();
  auto copy = std::make_shared<GeneratorImpl>(g.device(), uint64_t{0});
  std::lock_guard<std::mutex> lock(g.state_->mu);
  copy->state_->seed = g.state_->seed;
  copy->state_->offset = g.state_->offset;
  return Generator(std::move(copy));
}

Generator detail::createCPUGenerator(uint64_t seed) { return make_generator<CPUGeneratorImpl>(seed); }

const Generator& detail::getDefaultCPUGenerator() {
  static const Generator g = default_generator(Device(kCPU));
  return g;
}

detail::GeneratorScope::GeneratorScope(const std::optional<Generator>& generator, const Device& device, const char* op)
    : previous_(t_generator) {
  if (!generator || !generator->defined()) return;
  const Device gd = generator->device();
  if (gd.type() != device.type())
    throw DeviceMismatchError(std::string("[") + op + "] expected a '" + device_type_name(device.type()) +
                              "' device type for generator but found '" + device_type_name(gd.type()) +
                              "': the tensor is drawn on " + device.str() + " and the generator is " + gd.str() +
                              "'s; make the generator for the tensor's device (default_generator(" + device.str() +
                              "), or make_generator<CPUGeneratorImpl>(seed) for cpu draws).");
  held_ = generator->impl_;
  t_generator = held_.get();
}

detail::GeneratorScope::~GeneratorScope() { t_generator = previous_; }

}  // namespace locus
