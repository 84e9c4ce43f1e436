// Built when locus is configured without MPI (LOCUS_WITH_MPI=OFF): process groups say why they
// cannot start.
#include "distributed/process_group.h"

namespace locus::distributed::detail {

bool mpi_built() { return false; }

std::shared_ptr<GroupBase> mpi_init(const InitOptions&, std::chrono::milliseconds) {
  throw DistributedError(
      "[init_process_group] locus was built without MPI; install libopenmpi-dev "
      "(scripts/install-deps) and reconfigure with -DLOCUS_WITH_MPI=ON.");
}
std::shared_ptr<GroupBase> mpi_new_group(GroupBase&, const std::vector<int>&, std::chrono::milliseconds) {
  throw DistributedError("[new_group] locus was built without MPI.");
}
void mpi_finalize(bool) {}

}  // namespace locus::distributed::detail
