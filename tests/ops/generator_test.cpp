// Generator objects (src/ops/generator.cpp) on every device: a generator's draws are the default
// stream's numbers for the same seed, leave the default stream where it was, follow their own
// seed, position and saved state; every draw that takes one reads from it; errors name the fix.
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "testing.h"

using namespace locus;

namespace generator_test {

class Generators : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return device(GetParam()); }
  Generator make(uint64_t seed) const { return make_generator<GeneratorImpl>(GetParam(), seed); }
};

void expect_same(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.sizes().vec(), b.sizes().vec()) << what;
  ASSERT_EQ(a.scalar_type(), b.scalar_type()) << what;
  EXPECT_TRUE(a.to(kCPU).to(kDouble).equal(b.to(kCPU).to(kDouble))) << what;
}

TEST_P(Generators, DrawsTheSeedsStreamAndLeavesTheDefaultOneAlone) {
  manual_seed(7);
  Tensor expected = rand({5, 3}, o());
  Tensor expected_next = randn({4}, o());

  manual_seed(99);
  Tensor default_first = rand({6}, o());

  Generator g = make(7);
  EXPECT_EQ(g.current_seed(), 7u);
  EXPECT_EQ(g.device(), GetParam());
  manual_seed(99);
  expect_same(rand({5, 3}, g, o()), expected, "first draw");
  expect_same(randn({4}, g, o()), expected_next, "the generator moves on");
  expect_same(rand({6}, o()), default_first, "the default stream did not move");
  EXPECT_EQ(g.get_offset(), 16u + 4u);  // 15 numbers rounded up to 16, then 4

  // a copy of the handle shares the state; a clone copies it
  Generator same = g, twin = g.clone();
  Tensor a = rand({3}, same, o());
  Tensor b = rand({3}, twin, o());
  expect_same(a, b, "clone draws what the original would");
  EXPECT_FALSE(rand({3}, g, o()).equal(a)) << "the original moved on with its copy";

  // re-seeding restarts the stream; std::nullopt and an undefined generator mean the default stream
  g.set_current_seed(7);
  expect_same(rand({5, 3}, g, o()), expected, "set_current_seed restarts");
  manual_seed(99);
  expect_same(rand({6}, std::nullopt, o()), default_first, "nullopt is the default stream");
  manual_seed(99);
  expect_same(rand({6}, Generator(), o()), default_first, "an undefined generator is the default stream");
}

TEST_P(Generators, StateOffsetAndSeed) {
  Generator g = make(3);
  (void)randn({10}, g, o());
  Tensor state = g.get_state();
  EXPECT_EQ(state.scalar_type(), kByte);
  EXPECT_EQ(state.sizes().vec(), std::vector<int64_t>{16});
  EXPECT_TRUE(state.device().is_cpu());
  Tensor x = randn({7}, g, o());
  g.set_state(state);
  expect_same(randn({7}, g, o()), x, "set_state(get_state()) replays");

  // the position counts numbers: starting 4 further on skips the first 4
  Generator h = make(11);
  Tensor eight = rand({8}, h, o());
  h.set_current_seed(11);
  h.set_offset(4);
  EXPECT_EQ(h.get_offset(), 4u);
  expect_same(rand({4}, h, o()), eight.narrow(0, 4, 4), "offset 4");

  const uint64_t s = h.seed();
  EXPECT_EQ(h.current_seed(), s);
  EXPECT_EQ(h.get_offset(), 0u);

  EXPECT_THROW_MSG(h.set_offset(6), Error, "[Generator::set_offset] the position must be a multiple of 4");
  EXPECT_THROW_MSG(h.set_state(state.to(kFloat)), Error,
                   "[Generator::set_state] expects a uint8 (torch.ByteTensor) state, as get_state() returns, got float32");
  EXPECT_THROW_MSG(h.set_state(zeros({5056}, TensorOptions().dtype(kByte))), Error,
                   "expects a state of 16 bytes (seed and position, as get_state() returns), got 5056 bytes; a state "
                   "saved by libtorch's mt19937 generator cannot be read.");
  Tensor odd = state.clone();
  odd[8] = 3;
  EXPECT_THROW_MSG(h.set_state(odd), Error, "the state's position (3) is not a multiple of 4");
  EXPECT_THROW_MSG(h.set_state(Tensor()), Error, "[Generator::set_state] the state tensor is undefined");
  EXPECT_THROW_MSG(Generator().current_seed(), Error,
                   "[Generator] this generator is undefined (default-constructed); make one with "
                   "make_generator<CPUGeneratorImpl>(seed)");
}

// Every draw that takes a generator reads from it: with a generator seeded s and the default
// stream elsewhere, it gives what it gives from the default stream seeded s.
TEST_P(Generators, EveryDrawTakesOne) {
  using Draw = std::function<Tensor(std::optional<Generator>)>;
  const TensorOptions f = o(), d = o().dtype(kDouble);
  Tensor probs = tensor({0.1, 0.5, 0.9, 0.3}, f);
  Tensor weights = tensor({{1.0, 2.0, 0.0, 4.0}, {3.0, 1.0, 1.0, 1.0}}, f);
  Tensor mean = tensor({0.0, 10.0, -5.0}, f), stdev = tensor({1.0, 0.5, 2.0}, f);
  Tensor rates = tensor({0.5, 3.0, 20.0}, f);
  const std::vector<std::pair<std::string, Draw>> draws = {
      {"rand", [&](auto g) { return rand({9}, g, f); }},
      {"randn", [&](auto g) { return randn({9}, g, d); }},
      {"randint(high)", [&](auto g) { return randint(10, {9}, g, f.dtype(kLong)); }},
      {"randint(low, high)", [&](auto g) { return randint(-5, 5, {9}, g, f.dtype(kInt)); }},
      {"randperm", [&](auto g) { return randperm(12, g, f.dtype(kLong)); }},
      {"normal(m, s, size)", [&](auto g) { return normal(2.0, 3.0, {6}, g, f); }},
      {"normal(T, s)", [&](auto g) { return normal(mean, 2.0, g); }},
      {"normal(m, T)", [&](auto g) { return normal(1.0, stdev, g); }},
      {"normal(T, T)", [&](auto g) { return normal(mean, stdev, g); }},
      {"bernoulli(p)", [&](auto g) { return bernoulli(probs, g); }},
      {"bernoulli(self, p)", [&](auto g) { return bernoulli(probs, 0.3, g); }},
      {"multinomial", [&](auto g) { return multinomial(weights, 3, false, g); }},
      {"multinomial(replacement)", [&](auto g) { return weights.multinomial(6, true, g); }},
      {"poisson", [&](auto g) { return poisson(rates, g); }},
      {"uniform_", [&](auto g) { return empty({7}, f).uniform_(-2, 2, g); }},
      {"normal_", [&](auto g) { return empty({7}, f).normal_(1, 3, g); }},
      {"bernoulli_(p)", [&](auto g) { return empty({7}, f).bernoulli_(0.25, g); }},
      {"bernoulli_(T)", [&](auto g) { return empty({4}, f).bernoulli_(probs, g); }},
      {"random_(from, to)", [&](auto g) { return empty({7}, f.dtype(kLong)).random_(3, 9, g); }},
      {"random_(to)", [&](auto g) { return empty({7}, f.dtype(kLong)).random_(100, g); }},
      {"random_()", [&](auto g) { return empty({7}, f).random_(g); }},
      {"exponential_", [&](auto g) { return empty({7}, f).exponential_(2, g); }},
      {"geometric_", [&](auto g) { return empty({7}, f).geometric_(0.3, g); }},
      {"log_normal_", [&](auto g) { return empty({7}, f).log_normal_(0, 0.5, g); }},
      {"cauchy_", [&](auto g) { return empty({7}, f).cauchy_(0, 1, g); }},
      {"t.bernoulli()", [&](auto g) { return probs.bernoulli(g); }},
      {"t.bernoulli(p)", [&](auto g) { return probs.bernoulli(0.6, g); }},
  };
  for (const auto& [name, draw] : draws) {
    manual_seed(1234);
    Tensor expected = draw(std::nullopt);
    manual_seed(5);
    Tensor default_next = rand({3}, f);
    manual_seed(5);
    Generator g = make(1234);
    expect_same(draw(g), expected, name);
    expect_same(rand({3}, f), default_next, name + ": the default stream did not move");
    EXPECT_GT(g.get_offset(), 0u) << name;
  }
}

TEST_P(Generators, DefaultGenerators) {
  // the default cpu generator is the default stream; its mutex may be held while seeding
  Generator def = detail::getDefaultCPUGenerator();
  {
    std::lock_guard<std::mutex> lock(def.mutex());
    def.set_current_seed(21);
  }
  EXPECT_EQ(initial_seed(), 21u);
  Tensor a = rand({4}, o());
  manual_seed(21);
  expect_same(rand({4}, o()), a, "the default cpu generator is the default stream");
  // every device type's default generator is that one stream
  Generator here = default_generator(GetParam());
  EXPECT_EQ(here.device(), GetParam());
  here.set_current_seed(21);
  expect_same(rand({4}, here, o()), a, "default_generator(device)");
  EXPECT_EQ(default_generator(Device(kCUDA)).current_seed(), 21u);

  Generator cpu = detail::createCPUGenerator(21);
  EXPECT_EQ(cpu.device(), Device(kCPU));
  EXPECT_NE(cpu.get<CPUGeneratorImpl>(), nullptr);
  EXPECT_EQ(make_generator<CPUGeneratorImpl>(5).current_seed(), 5u);
  EXPECT_EQ(make_generator<GeneratorImpl>(Device(kCUDA), 3).device().type(), kCUDA);
  EXPECT_EQ(CPUGeneratorImpl::device_type(), kCPU);
  EXPECT_EQ(CPUGeneratorImpl().current_seed(), default_rng_seed_val);
  if (GetParam().is_cpu()) expect_same(rand({4}, cpu, o()), a, "createCPUGenerator(21)");
  EXPECT_TRUE(cpu == Generator(cpu));
  EXPECT_TRUE(cpu != cpu.clone());
}

TEST_P(Generators, AGeneratorOfAnotherDeviceTypeIsRefused) {
  const Device here = GetParam();
  Generator other = here.is_cpu() ? make_generator<GeneratorImpl>(Device(kCUDA), 1) : detail::createCPUGenerator(1);
  const std::string expected = std::string("expected a '") + device_type_name(here.type()) +
                               "' device type for generator but found '" + device_type_name(other.device().type()) +
                               "': the tensor is drawn on " + here.str() + " and the generator is " +
                               other.device().str() + "'s; make the generator for the tensor's device";
  EXPECT_THROW_MSG(rand({3}, other, o()), DeviceMismatchError, "[rand] " + expected);
  EXPECT_THROW_MSG(empty({3}, o()).normal_(0, 1, other), DeviceMismatchError, "[normal_] " + expected);
  EXPECT_THROW_MSG(randperm(4, other, o().dtype(kLong)), DeviceMismatchError, "[randperm] " + expected);
  EXPECT_THROW_MSG(ones({3}, o()).multinomial(1, false, other), DeviceMismatchError, "[multinomial] " + expected);
  // nothing was drawn from it
  EXPECT_EQ(other.get_offset(), 0u);
}

// A thread drawing from its own generator gets the same numbers whatever other threads draw at
// the same time (the generator scope is per thread; each generator has its own lock).
TEST_P(Generators, OwnGeneratorPerThreadIsRepeatable) {
  std::vector<Tensor> expected;
  for (uint64_t s = 0; s < 3; ++s) {
    Generator g = make(100 + s);
    expected.push_back(cat({rand({64}, g, o()), randn({64}, g, o())}));
  }
  std::vector<Tensor> got(3);
  std::vector<std::thread> threads;
  for (uint64_t s = 0; s < 3; ++s)
    threads.emplace_back([&, s] {
      Generator g = make(100 + s);
      std::vector<Tensor> parts;
      for (int i = 0; i < 2; ++i) parts.push_back(i == 0 ? rand({64}, g, o()) : randn({64}, g, o()));
      got[s] = cat(parts);
    });
  for (int i = 0; i < 50; ++i) (void)rand({16}, o());  // the default stream, meanwhile
  for (std::thread& t : threads) t.join();
  for (uint64_t s = 0; s < 3; ++s) expect_same(got[s], expected[s], "thread " + std::to_string(s));
}

LOCUS_INSTANTIATE_DEVICES(Generators);

}  // namespace generator_test
