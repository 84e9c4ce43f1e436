// main for test_distributed, which ctest runs under `mpirun -n 2` and `-n 3` (tests/CMakeLists.txt):
// every rank runs every test; collectives pair up across the ranks. Rank 0 prints the usual
// gtest output, the others only their failures (prefixed with the rank).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "locus/distributed.h"

namespace {
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed())
      std::fprintf(stderr, "[rank %d] [  FAILED  ] %s.%s\n", rank_, info.test_suite_name(), info.name());
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char** argv) {
  setenv("POCL_DEVICES", "pthread pthread", /*overwrite=*/0);
  ::testing::InitGoogleTest(&argc, argv);
  locus::distributed::init_process_group(locus::distributed::Backend::MPI);
  int rank = locus::distributed::get_rank();
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  int rc = RUN_ALL_TESTS();
  std::fflush(stdout);
  std::fflush(stderr);
  try {
    if (locus::distributed::is_initialized()) locus::distributed::barrier();  // leave together
  } catch (const locus::DistributedError&) {
    // the dead-rank test leaves the group unusable on purpose
  }
  return rc;
}
