// Shared main for every test binary: makes PoCL expose two devices unless the caller chose.
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  setenv("POCL_DEVICES", "pthread pthread", /*overwrite=*/0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
