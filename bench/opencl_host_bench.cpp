// Host cost per call of small OpenCL ops (issue 16, the sgemm row): what locus adds on the host to
// a GEMM (and to a small elementwise op) over calling the driver and CLBlast directly, measured
// where the kernels themselves are nearly free (tiny sizes), and counted in OpenCL API calls.
//
//   gemm/N       locus::matmul of two N x N float32 on opencl:I vs clblast::Gemm on buffers of the
//                same placement (one segment, the operands at the offsets locus's allocator gives
//                them: the same CLBlast path) and vs clblast::Gemm on fresh offset-0 buffers
//   add/N        a + b of N float32 (locus only; the launch count says what it costs)
//
// For each row: the OpenCL calls one operation makes on each side (this executable defines the
// counted clXxx functions itself, so every call from liblocus and libclblast resolves here first
// and is forwarded to the ICD loader: no LD_PRELOAD), then the median time per operation of
// `--samples` batches of `--batch` operations and one clFinish, the sides alternating ABBA. The
// difference of the medians is locus's host cost on a host-bound driver; PoCL's kernel time and
// clFinish are in both sides alike.
//
//   opencl_host_bench [--device I] [--samples K] [--batch B] [--sizes 8,16] [--only SIDE]
// --only SIDE runs just that side's batches, untimed: for `perf record`.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <clblast.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <locus/locus.h>

#include "backends/opencl/runtime.h"
#include "opencl_bench_util.h"

// ---- counted OpenCL entry points --------------------------------------------------------------
namespace {
std::atomic<bool> g_counting{false};
std::map<std::string, long>& counts() {
  static std::map<std::string, long> m;
  return m;
}
void note(const char* name) {
  if (g_counting.load(std::memory_order_relaxed)) ++counts()[name];
}
template <typename F>
F real(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (!p) {
    std::fprintf(stderr, "opencl_host_bench: dlsym(%s) failed\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(p);
}
}  // namespace

// One counted entry point: the exact prototype of CL/cl.h, forwarded to the next definition.
#define COUNTED(ret, name, params, args)                                      \
  extern "C" CL_API_ENTRY ret CL_API_CALL name params {                       \
    static auto next = real<ret(CL_API_CALL*) params>(#name);                 \
    note(#name);                                                              \
    return next args;                                                         \
  }

COUNTED(cl_int, clFlush, (cl_command_queue q), (q))
COUNTED(cl_int, clFinish, (cl_command_queue q), (q))
COUNTED(cl_int, clSetKernelArg, (cl_kernel k, cl_uint i, size_t n, const void* v), (k, i, n, v))
COUNTED(cl_int, clEnqueueNDRangeKernel,
        (cl_command_queue q, cl_kernel k, cl_uint d, const size_t* o, const size_t* g, const size_t* l, cl_uint ne,
         const cl_event* w, cl_event* e),
        (q, k, d, o, g, l, ne, w, e))
COUNTED(cl_kernel, clCreateKernel, (cl_program p, const char* n, cl_int* err), (p, n, err))
COUNTED(cl_int, clReleaseKernel, (cl_kernel k), (k))
COUNTED(cl_int, clRetainKernel, (cl_kernel k), (k))
COUNTED(cl_int, clGetKernelInfo, (cl_kernel k, cl_kernel_info i, size_t n, void* v, size_t* r), (k, i, n, v, r))
COUNTED(cl_int, clGetKernelWorkGroupInfo,
        (cl_kernel k, cl_device_id d, cl_kernel_work_group_info i, size_t n, void* v, size_t* r),
        (k, d, i, n, v, r))
COUNTED(cl_mem, clCreateBuffer, (cl_context c, cl_mem_flags f, size_t n, void* h, cl_int* err), (c, f, n, h, err))
COUNTED(cl_mem, clCreateSubBuffer,
        (cl_mem m, cl_mem_flags f, cl_buffer_create_type t, const void* i, cl_int* err), (m, f, t, i, err))
COUNTED(cl_int, clRetainMemObject, (cl_mem m), (m))
COUNTED(cl_int, clReleaseMemObject, (cl_mem m), (m))
COUNTED(cl_int, clGetMemObjectInfo, (cl_mem m, cl_mem_info i, size_t n, void* v, size_t* r), (m, i, n, v, r))
COUNTED(cl_int, clGetEventInfo, (cl_event e, cl_event_info i, size_t n, void* v, size_t* r), (e, i, n, v, r))
COUNTED(cl_int, clRetainEvent, (cl_event e), (e))
COUNTED(cl_int, clReleaseEvent, (cl_event e), (e))
COUNTED(cl_int, clWaitForEvents, (cl_uint n, const cl_event* e), (n, e))
COUNTED(cl_int, clEnqueueMarkerWithWaitList, (cl_command_queue q, cl_uint n, const cl_event* w, cl_event* e),
        (q, n, w, e))
COUNTED(cl_int, clEnqueueBarrierWithWaitList, (cl_command_queue q, cl_uint n, const cl_event* w, cl_event* e),
        (q, n, w, e))
COUNTED(cl_int, clGetCommandQueueInfo,
        (cl_command_queue q, cl_command_queue_info i, size_t n, void* v, size_t* r), (q, i, n, v, r))
COUNTED(cl_int, clRetainCommandQueue, (cl_command_queue q), (q))
COUNTED(cl_int, clReleaseCommandQueue, (cl_command_queue q), (q))
COUNTED(cl_int, clGetContextInfo, (cl_context c, cl_context_info i, size_t n, void* v, size_t* r), (c, i, n, v, r))
COUNTED(cl_int, clRetainContext, (cl_context c), (c))
COUNTED(cl_int, clReleaseContext, (cl_context c), (c))
COUNTED(cl_int, clGetDeviceInfo, (cl_device_id d, cl_device_info i, size_t n, void* v, size_t* r), (d, i, n, v, r))
COUNTED(cl_int, clRetainDevice, (cl_device_id d), (d))
COUNTED(cl_int, clReleaseDevice, (cl_device_id d), (d))
COUNTED(cl_int, clGetPlatformInfo, (cl_platform_id p, cl_platform_info i, size_t n, void* v, size_t* r),
        (p, i, n, v, r))
COUNTED(cl_int, clGetProgramInfo, (cl_program p, cl_program_info i, size_t n, void* v, size_t* r), (p, i, n, v, r))
COUNTED(cl_int, clGetProgramBuildInfo,
        (cl_program p, cl_device_id d, cl_program_build_info i, size_t n, void* v, size_t* r), (p, d, i, n, v, r))
COUNTED(cl_int, clRetainProgram, (cl_program p), (p))
COUNTED(cl_int, clReleaseProgram, (cl_program p), (p))
COUNTED(cl_int, clEnqueueCopyBuffer,
        (cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t n, cl_uint ne, const cl_event* w,
         cl_event* e),
        (q, s, d, so, dof, n, ne, w, e))
COUNTED(cl_int, clEnqueueWriteBuffer,
        (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t n, const void* p, cl_uint ne, const cl_event* w,
         cl_event* e),
        (q, m, b, o, n, p, ne, w, e))
COUNTED(cl_int, clEnqueueReadBuffer,
        (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t n, void* p, cl_uint ne, const cl_event* w,
         cl_event* e),
        (q, m, b, o, n, p, ne, w, e))
COUNTED(cl_int, clEnqueueFillBuffer,
        (cl_command_queue q, cl_mem m, const void* pat, size_t ps, size_t o, size_t n, cl_uint ne, const cl_event* w,
         cl_event* e),
        (q, m, pat, ps, o, n, ne, w, e))

namespace {

using Clock = std::chrono::steady_clock;
namespace cl = locus::opencl;
using namespace locus_bench;  // check, median, ClBuffer (opencl_bench_util.h)

struct Options {
  int device = 0;
  int samples = 41;
  long batch = 200;
  std::vector<int64_t> sizes = {8, 16};
  std::string only;  // --only SIDE: run just that side, `samples` batches, no table (for perf record)
} g_opt;

struct Side {
  std::string name;
  std::function<void()> op;
};

// "clSetKernelArg 3, clEnqueueNDRangeKernel 1": the calls of `ops` operations, per operation.
std::string calls_per_op(const std::function<void()>& op, cl_command_queue q, int ops) {
  check(clFinish(q), "clFinish");
  counts().clear();
  g_counting = true;
  for (int i = 0; i < ops; ++i) op();
  g_counting = false;
  check(clFinish(q), "clFinish");
  std::string s;
  long total = 0;
  for (const auto& [name, n] : counts()) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %.3g", s.empty() ? "" : ", ", name.c_str(), double(n) / ops);
    s += buf;
    total += n;
  }
  char head[48];
  std::snprintf(head, sizeof head, "%.3g calls: ", double(total) / ops);
  return head + (s.empty() ? "none" : s);
}

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Per side, medians over the samples of: `total` (a batch and its clFinish, per op), `enqueue`
// (the batch before clFinish: the calling thread's wall time) and `cpu` (the calling thread's
// CPU time over the batch: the host work itself, least disturbed by the driver's threads), and
// the least `cpu` of any sample (`cpu-min`: the steadiest on a shared machine).
void run_row(const std::string& row, const std::vector<Side>& sides, cl_command_queue q) {
  if (!g_opt.only.empty()) {
    for (const Side& s : sides) {
      if (s.name != g_opt.only) continue;
      for (int k = 0; k < g_opt.samples; ++k) {
        for (long i = 0; i < g_opt.batch; ++i) s.op();
        check(clFinish(q), "clFinish");
      }
    }
    return;
  }
  for (const Side& s : sides) {
    for (int i = 0; i < 20; ++i) s.op();  // first use: kernels built and specialised
    check(clFinish(q), "clFinish");
    std::printf("CALLS\t%s\t%s\t%s\n", row.c_str(), s.name.c_str(), calls_per_op(s.op, q, 10).c_str());
  }
  struct Times {
    std::vector<double> total, enqueue, cpu;
  };
  std::vector<Times> t(sides.size());
  const auto ops = static_cast<double>(g_opt.batch);
  for (int k = 0; k < g_opt.samples; ++k) {
    for (size_t j = 0; j < sides.size(); ++j) {
      const size_t side = k % 2 ? sides.size() - 1 - j : j;
      const Side& s = sides[side];
      const double c0 = thread_cpu_s();
      const auto t0 = Clock::now();
      for (long i = 0; i < g_opt.batch; ++i) s.op();
      const auto t1 = Clock::now();
      const double c1 = thread_cpu_s();
      check(clFinish(q), "clFinish");
      const auto t2 = Clock::now();
      t[side].total.push_back(std::chrono::duration<double>(t2 - t0).count() / ops);
      t[side].enqueue.push_back(std::chrono::duration<double>(t1 - t0).count() / ops);
      t[side].cpu.push_back((c1 - c0) / ops);
    }
  }
  auto least = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  const double base_total = median(t[0].total), base_enq = median(t[0].enqueue), base_cpu = median(t[0].cpu),
               base_min = least(t[0].cpu);
  for (size_t j = 0; j < sides.size(); ++j) {
    const double tot = median(t[j].total), enq = median(t[j].enqueue), cpu = median(t[j].cpu), lo = least(t[j].cpu);
    std::printf("TIME\t%s\t%-20s total %8.3f us (%+.3f)\tenqueue %8.3f us (%+.3f)\tcpu %8.3f us (%+.3f)"
                "\tcpu-min %8.3f us (%+.3f)\n",
                row.c_str(), sides[j].name.c_str(), tot * 1e6, (tot - base_total) * 1e6, enq * 1e6,
                (enq - base_enq) * 1e6, cpu * 1e6, (cpu - base_cpu) * 1e6, lo * 1e6, (lo - base_min) * 1e6);
  }
}

void bench_gemm(int64_t n) {
  const int idx = g_opt.device;
  locus::Device dev(locus::kOpenCL, static_cast<locus::DeviceIndex>(idx));
  cl::ClDevice& d = cl::Runtime::get().device(idx);
  cl_command_queue q = d.queue;
  auto a = locus::randn({n, n}, locus::device(dev)), b = locus::randn({n, n}, locus::device(dev));
  const auto N = static_cast<size_t>(n);
  const size_t bytes = N * N * 4;
  // The same placement as locus's: a, b and the output carved from one small-pool segment.
  const size_t step = (bytes + 511) / 512 * 512;
  ClBuffer seg(d.ctx, 3 * step), da(d.ctx, bytes), db(d.ctx, bytes), dc(d.ctx, bytes);
  std::vector<float> zeros(3 * step / 4, 0.0f);
  check(clEnqueueWriteBuffer(q, seg.m, CL_TRUE, 0, 3 * step, zeros.data(), 0, nullptr, nullptr), "write");
  for (cl_mem m : {da.m, db.m, dc.m})
    check(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, bytes, zeros.data(), 0, nullptr, nullptr), "write");
  auto gemm = [&](cl_mem A, size_t ao, cl_mem B, size_t bo, cl_mem C, size_t co) {
    auto st = clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, N, N,
                                   N, 1.0f, A, ao, N, B, bo, N, 0.0f, C, co, N, &q, nullptr);
    if (st != clblast::StatusCode::kSuccess)
      throw std::runtime_error("clblast::Gemm failed: status " + std::to_string(static_cast<int>(st)));
  };
  const size_t e = step / 4;
  run_row("gemm/" + std::to_string(n),
          {{"direct-offset0", [&] { gemm(da.m, 0, db.m, 0, dc.m, 0); }},
           {"direct-same-offsets", [&] { gemm(seg.m, 0, seg.m, e, seg.m, 2 * e); }},
           {"locus", [&] { auto c = locus::matmul(a, b); }}},
          q);
}

void bench_add(int64_t n) {
  const int idx = g_opt.device;
  locus::Device dev(locus::kOpenCL, static_cast<locus::DeviceIndex>(idx));
  auto a = locus::randn({n}, locus::device(dev)), b = locus::randn({n}, locus::device(dev));
  cl_command_queue q = cl::Runtime::get().device(idx).queue;
  run_row("add/" + std::to_string(n), {{"locus", [&] { auto c = a + b; }}, {"locus-inplace", [&] { a.add_(b); }}},
          q);
}

std::vector<int64_t> parse_sizes(const std::string& s) {
  std::vector<int64_t> v;
  size_t b = 0;
  while (b < s.size()) {
    size_t e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    v.push_back(std::stoll(s.substr(b, e - b)));
    b = e + 1;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&] { return flag_value(argc, argv, i); };
    try {
      if (a == "--device") g_opt.device = std::stoi(value());
      else if (a == "--samples") g_opt.samples = std::max(1, std::stoi(value()));
      else if (a == "--batch") g_opt.batch = std::max(1L, std::stol(value()));
      else if (a == "--sizes") g_opt.sizes = parse_sizes(value());
      else if (a == "--only") g_opt.only = value();
      else if (a == "--help" || a == "-h") {
        std::printf("usage: opencl_host_bench [--device I] [--samples K] [--batch B] [--sizes 8,16] [--only SIDE]\n"
                    "Prints CALLS (OpenCL calls per operation) and TIME (median us per operation) lines\n"
                    "for gemm/N (locus::matmul vs clblast::Gemm) and add/N (locus). Exit 0, 1 on failure, 2 on\n"
                    "a bad flag.\n");
        return 0;
      } else throw std::invalid_argument("unknown flag " + a);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "opencl_host_bench: %s (see --help)\n", e.what());
      return 2;
    }
  }
  try {
    if (cl::Runtime::get().count() <= g_opt.device) {
      std::fprintf(stderr, "opencl_host_bench: no opencl:%d (%s)\n", g_opt.device, cl::Runtime::get().reason().c_str());
      return 1;
    }
    for (int64_t n : g_opt.sizes) bench_gemm(n);
    for (int64_t n : g_opt.sizes) bench_add(n);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opencl_host_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
