#pragma once
// Shared test helpers: exact error-message checks and device parameterisation.
#include <gtest/gtest.h>

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

#define LOCUS_INSTANTIATE_DEVICES(Suite) \
  INSTANTIATE_TEST_SUITE_P(AllDevices, Suite, ::testing::ValuesIn(test_devices()), device_test_name)
