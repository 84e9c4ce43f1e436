// GEMM: CLBlast for float32/float64 (and float16 where the device does fp16); the tiled kernel
// in gemm.cl for everything else and for shapes CLBlast refuses (k == 0, leading dimensions
// below the row length, offsets that are not whole elements).
#include <mutex>
#include <string>

#include "backends/opencl/check.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/runtime.h"
#include "locus/error.h"

#ifdef LOCUS_HAVE_CLBLAST
#include <clblast.h>
#include <clblast_half.h>
#endif

namespace locus::opencl {

namespace {

#ifdef LOCUS_HAVE_CLBLAST
template <typename T>
clblast::StatusCode clblast_gemm(const backend::Backend::Gemm& g, T alpha, T beta, cl_command_queue q, size_t es) {
  using clblast::Layout;
  using clblast::Transpose;
  Transpose ta = g.trans_a ? Transpose::kYes : Transpose::kNo;
  Transpose tb = g.trans_b ? Transpose::kYes : Transpose::kNo;
  auto M = static_cast<size_t>(g.m), N = static_cast<size_t>(g.n), K = static_cast<size_t>(g.k);
  auto a = static_cast<cl_mem>(g.a.base), b = static_cast<cl_mem>(g.b.base), c = static_cast<cl_mem>(g.c.base);
  if (g.batch == 1)
    return clblast::Gemm<T>(Layout::kRowMajor, ta, tb, M, N, K, alpha, a, g.a.offset / es, g.lda, b, g.b.offset / es,
                            g.ldb, beta, c, g.c.offset / es, g.ldc, &q, nullptr);
  return clblast::GemmStridedBatched<T>(Layout::kRowMajor, ta, tb, M, N, K, alpha, a, g.a.offset / es, g.lda,
                                        g.stride_a, b, g.b.offset / es, g.ldb, g.stride_b, beta, c, g.c.offset / es,
                                        g.ldc, g.stride_c, static_cast<size_t>(g.batch), &q, nullptr);
}

#endif

}  // namespace

bool OpenCLBackend::blas_gemm([[maybe_unused]] int index, [[maybe_unused]] StreamHandle s,
                              [[maybe_unused]] const Gemm& g) {
#ifdef LOCUS_HAVE_CLBLAST
  // The host work here is per call and on the critical path of small GEMMs (host-bound on a GPU:
  // issue 16's sgemm/256 row): no strings, no allocation, no driver call besides CLBlast's own.
  ClDevice& d = Runtime::get().device(index);
  const bool blas_type =
      g.dtype == kFloat || (g.dtype == kDouble && d.props.fp64) || (g.dtype == kHalf && d.props.fp16);
  if (!blas_type || g.k <= 0 || !blas_layout(g, INT64_MAX)) return false;
  cl_command_queue q = s ? static_cast<cl_command_queue>(s) : d.queue;
  const size_t es = element_size(g.dtype);
  clblast::StatusCode st;
  {
    // CLBlast fills its kernel database without a lock: two threads in a GEMM at once raced in
    // clblast::Database (TSan: new and delete of one address). The call only enqueues.
    static std::mutex clblast_mutex;
    std::lock_guard<std::mutex> lock(clblast_mutex);
    if (fault::hit(fault::kLaunch))  // injected (core/fault.h): what CLBlast returns for the driver's failure
      st = clblast::StatusCode::kOpenCLOutOfResources;
    else if (g.dtype == kFloat)
      st = clblast_gemm<float>(g, static_cast<float>(g.alpha), static_cast<float>(g.beta), q, es);
    else if (g.dtype == kDouble)
      st = clblast_gemm<double>(g, g.alpha, g.beta, q, es);
    else
      st = clblast_gemm<cl_half>(g, FloatToHalf(static_cast<float>(g.alpha)), FloatToHalf(static_cast<float>(g.beta)),
                                 q, es);
  }
  if (st != clblast::StatusCode::kSuccess) {
    int code = static_cast<int>(st);
    std::string name = code > -1000 ? cl_status_name(code) : "CLBlast status " + std::to_string(code);
    throw BackendError("[opencl] CLBlast GEMM failed on " + Runtime::get().label(index) + " (" + gemm_label(g) + "): " +
                       name);
  }
  // CLBlast's kernels compile lazily on PoCL too (runtime.h); its choice of kernels depends on
  // the types, the transposes and the problem's size, so the first call of each class waits.
  if (d.lazy_compile) {
    uint32_t size_class = 0;  // ceil(log8(m n k)), at most 31
    for (double v = static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
         v > 1 && size_class < 31; v *= 0.125)
      ++size_class;
    const uint32_t variant = (static_cast<uint32_t>(g.dtype) << 8) | (size_class << 3) | (g.trans_a ? 4u : 0u) |
                             (g.trans_b ? 2u : 0u) | (g.batch > 1 ? 1u : 0u);
    if (Runtime::get().first_launch(index, variant)) LOCUS_CL(clFinish(q), index, "CLBlast GEMM");
  }
  return true;
#else
  return false;
#endif
}

}  // namespace locus::opencl
