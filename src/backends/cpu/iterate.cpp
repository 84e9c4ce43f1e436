// for_each_run's walk (src/backends/cpu/kernels.h), compiled here once per operand count.
#include "backends/cpu/kernels.h"

namespace locus::cpu {

template void for_each_run_erased<1>(const TensorRef* const (&)[1], int64_t, RunFn, void*);
template void for_each_run_erased<2>(const TensorRef* const (&)[2], int64_t, RunFn, void*);
template void for_each_run_erased<3>(const TensorRef* const (&)[3], int64_t, RunFn, void*);
template void for_each_run_erased<4>(const TensorRef* const (&)[4], int64_t, RunFn, void*);

}  // namespace locus::cpu
