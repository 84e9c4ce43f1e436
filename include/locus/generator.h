#pragma once
// Generator objects, as libtorch's at::Generator: a handle (copies share one state) on a stream
// of locus's counter-based Philox generator, with its own seed and position. Every draw that
// takes an optional generator (rand, randn, randint, randperm, normal, bernoulli, multinomial,
// poisson, uniform_, normal_, random_, ...) reads from it instead of the process's default
// stream; with no generator, the default one (seeded by manual_seed) serves, as before.
// The numbers a seed gives are the same on every device type and equal the default stream's after
// manual_seed(seed); they are not the numbers libtorch's mt19937 (cpu) or Philox (cuda) would give.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "locus/device.h"

namespace locus {

class Tensor;
class Generator;
namespace detail {
class GeneratorScope;
}

/// PyTorch's default seed (default_rng_seed_val).
inline constexpr uint64_t default_rng_seed_val = 67280421310721ull;

/// The state behind a Generator: a seed and the position (in numbers) of the next draw.
class GeneratorImpl {
 public:
  GeneratorImpl(Device device, uint64_t seed);
  GeneratorImpl(const GeneratorImpl&) = delete;
  GeneratorImpl& operator=(const GeneratorImpl&) = delete;
  virtual ~GeneratorImpl() = default;

  /// Sets the seed and restarts the stream.
  void set_current_seed(uint64_t seed);
  uint64_t current_seed() const;
  /// Seeds from a non-deterministic source (std::random_device) and returns that seed.
  uint64_t seed();
  /// The position of the next draw in the stream (a multiple of 4 numbers), and setting it.
  uint64_t get_offset() const;
  void set_offset(uint64_t offset);
  Device device() const { return device_; }
  /// libtorch's generator mutex, for callers that hold it around their own use of the generator
  /// (`std::lock_guard<std::mutex> lock(gen.mutex()); gen.set_current_seed(42);`, as
  /// torch.manual_seed does). Locus's own draws and setters do not take it: they lock the state's
  /// own mutex briefly, so holding this one while seeding never deadlocks.
  std::mutex& mutex() const { return state_->user_mu; }

  /// The seed and position of the next `count` numbers, after which the stream moves on. Thread-safe.
  struct Reserved {
    uint64_t seed, offset;
  };
  Reserved reserve(uint64_t count);

 protected:
  struct State {
    mutable std::mutex mu;       // seed and offset
    mutable std::mutex user_mu;  // mutex()
    uint64_t seed = default_rng_seed_val;
    uint64_t offset = 0;
  };
  // the default generators of every device type share the process's one stream (locus/random.h)
  GeneratorImpl(Device device, std::shared_ptr<State> shared);
  friend class Generator;
  friend Generator default_generator(Device device);

 private:
  Device device_;
  std::shared_ptr<State> state_;
};

/// libtorch's cpu generator type: make_generator<CPUGeneratorImpl>(seed). (CUDAGeneratorImpl is in
/// locus/torch.h; a generator for any device is make_generator<GeneratorImpl>(device, seed).)
class CPUGeneratorImpl : public GeneratorImpl {
 public:
  explicit CPUGeneratorImpl(uint64_t seed = default_rng_seed_val) : GeneratorImpl(Device(kCPU), seed) {}
  static DeviceType device_type() { return kCPU; }
};

/// A handle on a GeneratorImpl; default-constructed, it is undefined.
class Generator {
 public:
  Generator() = default;
  explicit Generator(std::shared_ptr<GeneratorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  bool operator==(const Generator& other) const { return impl_ == other.impl_; }
  bool operator!=(const Generator& other) const { return impl_ != other.impl_; }

  void set_current_seed(uint64_t seed) { checked().set_current_seed(seed); }
  uint64_t current_seed() const { return checked().current_seed(); }
  uint64_t seed() { return checked().seed(); }
  void set_offset(uint64_t offset) { checked().set_offset(offset); }
  uint64_t get_offset() const { return checked().get_offset(); }
  /// The state as a uint8 cpu tensor of 16 bytes (seed, then position; little-endian 64-bit).
  Tensor get_state() const;
  /// Restores a state from get_state().
  void set_state(const Tensor& state);
  std::mutex& mutex() const { return checked().mutex(); }
  Device device() const { return checked().device(); }
  /// A new generator with a copy of this one's state (the two then draw independently).
  Generator clone() const;
  /// The implementation, as libtorch's gen.get<CPUGeneratorImpl>().
  template <class T>
  T* get() const {
    return static_cast<T*>(impl_.get());
  }
  GeneratorImpl* unsafeGetGeneratorImpl() const { return impl_.get(); }

 private:
  friend class detail::GeneratorScope;
  GeneratorImpl& checked() const;
  std::shared_ptr<GeneratorImpl> impl_;
};

/// libtorch's make_generator<Impl>(args...).
template <class Impl, class... Args>
Generator make_generator(Args&&... args) {
  return Generator(std::make_shared<Impl>(std::forward<Args>(args)...));
}

/// The process's default generator for a device: the one stream every draw without a generator
/// uses (manual_seed seeds it), seen as a generator of that device.
Generator default_generator(Device device = Device(kCPU));

namespace detail {
/// at::detail's spellings.
Generator createCPUGenerator(uint64_t seed = default_rng_seed_val);
const Generator& getDefaultCPUGenerator();

/// Makes draws on this thread read from `generator` (when given and defined) until the scope ends;
/// `device` is the device of the tensor drawn into, checked against the generator's as PyTorch does.
class GeneratorScope {
 public:
  GeneratorScope(const std::optional<Generator>& generator, const Device& device, const char* op);
  GeneratorScope(const GeneratorScope&) = delete;
  GeneratorScope& operator=(const GeneratorScope&) = delete;
  ~GeneratorScope();

 private:
  std::shared_ptr<GeneratorImpl> held_;  // keeps the state alive while draws use it
  GeneratorImpl* previous_ = nullptr;
};
}  // namespace detail

}  // namespace locus
