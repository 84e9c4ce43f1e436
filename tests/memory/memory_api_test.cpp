// The public memory API on real devices: stats, limits, OOM and recovery.
#include "testing.h"

using namespace locus;

namespace memory_api_test {

class MemoryOnDevice : public ::testing::TestWithParam<Device> {
 protected:
  void TearDown() override {
    set_memory_limit(0, GetParam());
    empty_cache(GetParam());
  }
};

TEST_P(MemoryOnDevice, AllocatedTracksLiveTensors) {
  Device d = GetParam();
  empty_cache(d);
  int64_t base = memory_allocated(d);
  {
    Tensor a = empty({1024, 256}, device(d));  // 1 MiB
    EXPECT_GE(memory_allocated(d) - base, 1 << 20);
    EXPECT_GE(max_memory_allocated(d), memory_allocated(d));
    EXPECT_GE(memory_reserved(d), memory_allocated(d));
  }
  EXPECT_EQ(memory_allocated(d), base);
  reset_peak_memory_stats(d);
  EXPECT_EQ(max_memory_allocated(d), memory_allocated(d));
  auto s = memory_stats(d);
  for (const char* k : {"allocated_bytes.current", "allocated_bytes.peak", "reserved_bytes.current", "reserved_bytes.peak",
                        "num_allocs", "num_frees", "num_ooms", "num_alloc_retries"})
    EXPECT_TRUE(s.count(k)) << k;
  EXPECT_NE(memory_summary(d).find("allocated"), std::string::npos);
}

TEST_P(MemoryOnDevice, OutOfMemoryAtALimitThenRecovery) {
  Device d = GetParam();
  empty_cache(d);
  set_memory_limit(memory_reserved(d) + (8 << 20), d);  // 8 MiB of headroom
  Tensor a = empty({1 << 20}, device(d));                // 4 MiB
  int64_t ooms = memory_stats(d)["num_ooms"];
  try {
    Tensor b = empty({4 << 20}, device(d));  // 16 MiB: over the limit
    ADD_FAILURE() << "no OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("out of memory"), std::string::npos) << m;
    EXPECT_NE(m.find("tried to allocate 16.00 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("limit"), std::string::npos) << m;
  }
  EXPECT_EQ(memory_stats(d)["num_ooms"], ooms + 1);
  a = Tensor();  // free what we held
  empty_cache(d);
  Tensor c = empty({1 << 20}, device(d));  // fits again
  EXPECT_EQ(c.numel(), 1 << 20);
  set_memory_limit(0, d);
  Tensor big = empty({4 << 20}, device(d));
  EXPECT_EQ(big.numel(), 4 << 20);
}

TEST_P(MemoryOnDevice, FractionLimitIsValidated) {
  Device d = GetParam();
  EXPECT_THROW(set_per_process_memory_fraction(1.5, d), Error);
  EXPECT_THROW(set_per_process_memory_fraction(-0.1, d), Error);
  set_per_process_memory_fraction(1.0, d);
  EXPECT_GT(memory_stats(d)["limit_bytes"], 0);
}

LOCUS_INSTANTIATE_DEVICES(MemoryOnDevice);

TEST(MemoryApi, NamespacedForms) {
  EXPECT_THROW_MSG(opencl::memory_allocated(-2), Error,
                   "[opencl::memory_allocated] device index must be -1 (the current opencl device) or a device "
                   "number, got -2.");
  if (!opencl::is_available()) GTEST_SKIP() << "needs an OpenCL device";
  Tensor a = empty({1000}, device(Device("opencl:0")));
  EXPECT_EQ(opencl::memory_allocated(0), memory_allocated(Device("opencl:0")));
  EXPECT_EQ(opencl::memory_allocated(), memory_allocated(Device("opencl:0")));  // current device
  EXPECT_GE(opencl::max_memory_reserved(0), opencl::memory_reserved(0));
  auto [free_b, total_b] = opencl::mem_get_info(0);
  EXPECT_GT(total_b, 0);
  EXPECT_LE(free_b, total_b);
  if (!cuda::is_available()) EXPECT_THROW_MSG(cuda::memory_allocated(0), NotAvailableError, "cuda:0");
}

}  // namespace memory_api_test
