// The NCCL process group (cuda tensors). libnccl is loaded at run time (dlopen), as libcuda is, so
// locus starts on machines without it; the group bootstraps its NCCL communicator over MPI.
#include <dlfcn.h>

#include "distributed/process_group.h"

namespace locus::distributed::detail {

std::string nccl_unavailable_reason() {
  return "locus's NCCL process group is not part of this build yet; use Backend::MPI (cuda tensors are staged "
         "through host memory).";
}

std::shared_ptr<GroupBase> nccl_init(GroupBase&, std::chrono::milliseconds) {
  throw DistributedError("[init_process_group] the NCCL backend is not available: " + nccl_unavailable_reason());
}

}  // namespace locus::distributed::detail
