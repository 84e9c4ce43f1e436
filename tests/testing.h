#pragma once
// Shared test helpers: exact error-message checks and device parameterisation.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "locus/locus.h"

/// Expects `stmt` to throw `exc` whose what() contains `substr`.
#define EXPECT_THROW_MSG(stmt, exc, substr)                                                     \
  do {                                                                                         \
    try {                                                                                      \
      stmt;                                                                                    \
      ADD_FAILURE() << "expected " #exc " from: " #stmt;                                      \
    } catch (const exc& e_) {                                                                  \
      EXPECT_NE(std::string(e_.what()).find(substr), std::string::npos)                        \
          << "message was: " << e_.what() << "\nexpected to contain: " << (substr);           \
    }                                                                                          \
  } while (0)

/// Every device present: cpu, opencl:0.., cuda:0.. A new backend is picked up with no test edit.
inline std::vector<locus::Device> test_devices() { return locus::all_devices(); }

inline std::string device_test_name(const testing::TestParamInfo<locus::Device>& info) {
  std::string s = info.param.str();
  for (char& c : s)
    if (c == ':') c = '_';
  return s;
}

/// Host copy of a tensor's values as doubles (row-major).
inline std::vector<double> values(const locus::Tensor& t) {
  locus::Tensor c = t.cpu().to(locus::kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

/// Expects `t` to have `shape` and `want`'s values within a relative tolerance (NaN matches NaN,
/// infinities match exactly). EXPECT_VALUES adds the caller's line to a failure.
inline void expect_shape_and_values(const locus::Tensor& t, const std::vector<int64_t>& shape,
                                    const std::vector<double>& want, double tol = 1e-5) {
  EXPECT_EQ(std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), shape);
  std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": " << got[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << "element " << i;
    }
  }
}
#define EXPECT_VALUES(...)                  \
  do {                                      \
    SCOPED_TRACE("values here");            \
    expect_shape_and_values(__VA_ARGS__);   \
  } while (0)

#define LOCUS_INSTANTIATE_DEVICES(Suite) \
  INSTANTIATE_TEST_SUITE_P(AllDevices, Suite, ::testing::ValuesIn(test_devices()), device_test_name)

/// Runs one (usually DISABLED_) test of this test binary in a child process, with `env`
/// ("NAME=value ...") set, and returns its exit status (-1 when it could not start). The child is
/// not a shard (GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX removed: a shard of the one test selected
/// would run nothing and exit 0), and `ran` says whether it ran exactly that test and passed.
inline int run_test_in_child(const std::string& env, const std::string& test, bool* ran, std::string* output = nullptr) {
  const std::string cmd = "env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX " + env + " /proc/" + std::to_string(getpid()) +
                          "/exe --gtest_also_run_disabled_tests --gtest_filter=" + test + " 2>&1";
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return -1;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  const int status = pclose(f);
  *ran = out.find("[  PASSED  ] 1 test.") != std::string::npos;
  if (output) *output = out;
  return status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
