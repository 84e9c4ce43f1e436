// OpenCL figures (issue 16, item 16): locus next to the same work done with direct OpenCL and
// CLBlast calls, in one process, on the same device and queue. bench/run runs this and checks the
// ratios against the targets; docs/benchmarks.md says what each row means.
//
//   launch/empty             an empty kernel: locus's launch path (gpu::Launch, as every op
//                            uses it) vs clSetKernelArg + clEnqueueNDRangeKernel; many launches,
//                            then one clFinish: time per launch
//   launch/empty_sync        one launch + finish: the latency of a lone launch
//   op/add_1elem             a.add_(b) of 1-element tensors on the device (the whole op; locus only)
//   control/...              A/A controls: the direct side of launch/empty and h2d/pinned/1 timed
//                            against itself; the spread of its ratio is the noise floor of the run
//   h2d/{pageable,pinned}/M  host -> device, M MiB: cpu_tensor.to(dev) (pinned: pin_memory(dev) once,
//                            then .to(dev, non_blocking) and one synchronize per batch) vs
//                            clEnqueueWriteBuffer (pinned: from a mapped CL_MEM_ALLOC_HOST_PTR
//                            buffer; clEnqueueCopyBuffer from that buffer, the mapped route, is
//                            printed but is no reference: undefined while mapped)
//   d2h/{pageable,pinned}/M  device -> host: dev_tensor.to(kCPU) (pinned: pinned.copy_(dev_tensor,
//                            non_blocking) into a pin_memory() tensor) vs clEnqueueReadBuffer into
//                            preallocated host memory (pinned: the mapped buffer, and
//                            clEnqueueCopyBuffer into it)
//   d2h/pinned_to/M          dev_tensor.to(kCPU, non_blocking): a new pinned tensor per call (info)
//   sgemm/N                  locus::matmul of two N x N float32 on the device vs clblast::Gemm
//   add/opencl/N, add/cpu/N  a + b of N float32 (locus), GB/s counting 12 bytes per element
//   train/cnn_step           one training step of the demo's CNN on the device (locus), and the
//                            kernel launches and GEMM calls it makes (LAUNCHES line)
//
// The direct calls use locus's own cl_context and cl_command_queue (src/backends/opencl/runtime.h),
// so both sides run on the same queue, with the same properties, in the same process. Every row
// times both sides in alternating order, sample after sample (ABBA), with the same number of
// operations per sample and the same synchronisation; the median per side is reported, and the
// target uses the median of the per-sample ratios (drift on a shared machine hits both sides of a
// sample alike).
//
// Output: a table, and machine-readable lines for bench/run:
//   RESULT <tab> row <tab> side <tab> median seconds per op <tab> figure <tab> unit
//   RATIO  <tab> row <tab> locus / best direct (time ratio, median over samples) <tab> direct side
//
//   opencl_bench [--device I] [--samples K] [--sample-ms MS] [--filter REGEX] [--smoke]
// --smoke: one sample of one operation per side for every row (the ctest; no figures to trust).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <clblast.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include <locus/locus.h>

#include "backends/gpu/gpu_backend.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/program.h"
#include "backends/opencl/runtime.h"
#include "opencl_bench_util.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace cl = locus::opencl;
using locus_bench::check;
using locus_bench::ClBuffer;
using locus_bench::flag_value;
using locus_bench::median;

struct Options {
  int device = 0;
  int samples = 9;
  double sample_s = 0.05;
  std::string filter = ".";
  bool smoke = false;
} g_opt;
int g_rows = 0;             // rows run (the smoke test checks that none was skipped)
constexpr int kRows = 28;   // 3 launch, 15 copy, 3 sgemm, 4 add, 2 A/A controls, 1 training step

struct Side {
  std::string name;             // "locus", "direct", "direct-copy", ...
  std::function<void()> op;     // one operation (enqueues, may block as the API does)
  std::function<void()> sync;   // once after a batch: waits for everything the batch enqueued
  bool reference = true;        // counts as a direct side for the ratio (false: printed only)
};

struct Figure {
  const char* unit;   // "us/launch", "GB/s", "GFLOP/s"
  double per_op;      // the unit's numerator per operation (bytes, flops), or 0 for time in us
};

double figure_of(const Figure& f, double seconds) {
  return f.per_op == 0 ? seconds * 1e6 : f.per_op / seconds / 1e9;
}

double time_batch(const Side& s, long ops) {
  auto t0 = Clock::now();
  for (long i = 0; i < ops; ++i) s.op();
  s.sync();
  return std::chrono::duration<double>(Clock::now() - t0).count() / static_cast<double>(ops);
}

// Times every side of a row: a warm-up batch each, a batch size giving about sample_s on the first
// side (locus), then `samples` rounds, the order of the sides reversed every other round. `batch`
// fixes the number of operations per batch instead (launch latency: 1).
void run_row(const std::string& row, std::vector<Side> sides, const Figure& fig, long batch = 0) {
  if (!std::regex_search(row, std::regex(g_opt.filter))) return;
  for (auto& s : sides) time_batch(s, 1);  // first use: kernels built, buffers touched
  long ops = 1;
  int samples = 1;
  if (!g_opt.smoke) {
    double warm = 0;
    long n = 1;
    do {  // about a tenth of a sample, at least once
      warm = time_batch(sides[0], n) * static_cast<double>(n);
      n *= 2;
    } while (warm < g_opt.sample_s / 10 && n < (1L << 20));
    double per_op = warm / static_cast<double>(n / 2);
    ops = batch > 0 ? batch : std::clamp(static_cast<long>(g_opt.sample_s / per_op), 1L, 1L << 20);
    samples = g_opt.samples;
  }
  ++g_rows;
  std::vector<std::vector<double>> t(sides.size());
  std::vector<double> ratio;  // locus / best direct, per round
  for (int r = 0; r < samples; ++r) {
    std::vector<double> now(sides.size());
    for (size_t k = 0; k < sides.size(); ++k) {
      size_t i = r % 2 ? sides.size() - 1 - k : k;
      now[i] = time_batch(sides[i], ops);
      t[i].push_back(now[i]);
    }
    double best_now = 1e300;
    for (size_t i = 1; i < sides.size(); ++i)
      if (sides[i].reference) best_now = std::min(best_now, now[i]);
    if (sides.size() > 1) ratio.push_back(now[0] / best_now);
  }
  for (size_t i = 0; i < sides.size(); ++i)
    for (double v : t[i])
      if (!(v > 0) || !std::isfinite(v)) throw std::runtime_error(row + ": " + sides[i].name + " took no time");
  std::printf("%-24s", row.c_str());
  for (size_t i = 0; i < sides.size(); ++i) {
    double m = median(t[i]);
    std::printf("  %s %.4g %s", sides[i].name.c_str(), figure_of(fig, m), fig.unit);
  }
  if (!ratio.empty()) {
    // the direct side that was best in most rounds names the comparison
    size_t best = 1;
    double best_t = 1e300;
    for (size_t i = 1; i < sides.size(); ++i)
      if (sides[i].reference && median(t[i]) < best_t) best_t = median(t[i]), best = i;
    std::printf("  %s/%s time %.3fx  (%ld ops x %d samples)\n", sides[0].name.c_str(), sides[best].name.c_str(),
                median(ratio), ops, samples);
    std::printf("RATIO\t%s\t%.6g\t%s\n", row.c_str(), median(ratio), sides[best].name.c_str());
  } else {
    std::printf("  (%ld ops x %d samples)\n", ops, samples);
  }
  for (size_t i = 0; i < sides.size(); ++i) {
    double m = median(t[i]);
    std::printf("RESULT\t%s\t%s\t%.6g\t%.6g\t%s\n", row.c_str(), sides[i].name.c_str(), m, figure_of(fig, m),
                fig.unit);
  }
  std::fflush(stdout);
}

// ---- device buffers for the direct side ----------------------------------------------------------
// A CL_MEM_ALLOC_HOST_PTR buffer kept mapped: the pinned host memory of the direct side (what
// locus's pin_memory() does underneath on OpenCL).
struct Pinned {
  cl_command_queue q;
  ClBuffer buf;
  void* ptr = nullptr;
  Pinned(cl_context ctx, cl_command_queue queue, size_t bytes)
      : q(queue), buf(ctx, bytes, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR) {
    cl_int err = CL_SUCCESS;
    ptr = clEnqueueMapBuffer(q, buf.m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &err);
    check(err, "clEnqueueMapBuffer");
    std::memset(ptr, 1, bytes);
  }
  ~Pinned() {
    clEnqueueUnmapMemObject(q, buf.m, ptr, 0, nullptr, nullptr);
    clFinish(q);
  }
};

// ---- (1) launch overhead ---------------------------------------------------------------------------
void bench_launch(const locus::Device& dev) {
  const int idx = g_opt.device;
  cl::ClDevice& d = cl::Runtime::get().device(idx);
  // An empty kernel with the (buffer, offset) pair every locus kernel starts with, built through
  // locus's program cache; both sides launch this one kernel object.
  cl_program prog = cl::build_program(idx, "__kernel void empty(__global float* p, long off) {}\n", "",
                                      "opencl_bench empty");
  cl::Kernel k;
  cl_int err = CL_SUCCESS;
  k.k = clCreateKernel(prog, "empty", &err);
  check(err, "clCreateKernel");
  k.label = "empty";
  ClBuffer buf(d.ctx, 1024);
  cl_command_queue q = d.queue;  // locus's default queue for this device: the current stream below
  if (locus::Stream::current(dev).handle() != nullptr) throw std::runtime_error("expected the default stream");
  auto& be = static_cast<locus::gpu::GpuBackend&>(locus::backend::backend_for(dev));
  const size_t local = be.caps(idx).local, global = local;  // what Launch::run1d(1) enqueues

  auto locus_launch = [&] {
    locus::gpu::Launch(be, idx, locus::Stream::current(dev).handle(), k).buf({buf.m, 0}).run1d(1);
  };
  auto direct_launch = [&] {
    cl_mem m = buf.m;
    int64_t off = 0;
    check(clSetKernelArg(k.k, 0, sizeof(m), &m), "clSetKernelArg");
    check(clSetKernelArg(k.k, 1, sizeof(off), &off), "clSetKernelArg");
    check(clEnqueueNDRangeKernel(q, k.k, 1, nullptr, &global, &local, 0, nullptr, nullptr), "clEnqueueNDRangeKernel");
  };
  auto locus_sync = [&] { locus::opencl::synchronize(idx); };
  auto direct_sync = [&] { check(clFinish(q), "clFinish"); };
  const Figure us{"us", 0};
  run_row("launch/empty", {{"locus", locus_launch, locus_sync}, {"direct", direct_launch, direct_sync}}, us);
  run_row("launch/empty_sync", {{"locus", locus_launch, locus_sync}, {"direct", direct_launch, direct_sync}}, us, 1);
  // A/A control: the direct side against itself, timed as a row; its ratio is the noise floor.
  run_row("control/launch", {{"direct", direct_launch, direct_sync}, {"direct", direct_launch, direct_sync}}, us);

  // The whole op, for scale: dispatch, checks, kernel lookup, geometry, launch (no direct side).
  auto a = locus::ones({1}, locus::device(dev)), b = locus::ones({1}, locus::device(dev));
  run_row("op/add_1elem", {{"locus", [&] { a.add_(b); }, locus_sync}}, us);
  clReleaseKernel(k.k);
  cl::release_program(prog);
}

// ---- (2) copies --------------------------------------------------------------------------------------
void bench_copies(const locus::Device& dev) {
  const int idx = g_opt.device;
  cl::ClDevice& d = cl::Runtime::get().device(idx);
  cl_command_queue q = d.queue;
  auto locus_sync = [&] { locus::opencl::synchronize(idx); };
  auto direct_sync = [&] { check(clFinish(q), "clFinish"); };
  auto nothing = [] {};
  for (int mib : {1, 16, 256}) {
    const std::string ms = std::to_string(mib);
    bool wanted = false;  // allocate nothing for sizes whose rows are all filtered out
    for (const char* r : {"h2d/pageable/", "d2h/pageable/", "h2d/pinned/", "d2h/pinned/", "d2h/pinned_to/",
                          "control/h2d/pinned/"})
      wanted = wanted || std::regex_search(r + ms, std::regex(g_opt.filter));
    if (!wanted) continue;
    const int64_t n = int64_t{mib} << 18;  // float32 elements
    // The mapped route (clEnqueueCopyBuffer from/to the CL_MEM_ALLOC_HOST_PTR buffer while it is
    // mapped) is printed for information and is never the reference: the OpenCL specification
    // ("Accessing mapped regions of a memory object", 5.4.2.1 in 1.2) leaves the contents of a
    // region mapped for writing undefined to device commands until it is unmapped, so no program
    // may rely on it (PoCL happens to share the memory and copies right; a discrete GPU's driver
    // may keep such a buffer on the device: NVIDIA's ran it at 1.8 TB/s "host to device"). The
    // direct calls a program may make from pinned memory are clEnqueueWrite/ReadBuffer from the
    // mapped pointer, which is what locus does.
    constexpr bool kMappedRouteIsReference = false;
    const size_t bytes = static_cast<size_t>(n) * 4;
    const Figure gbs{"GB/s", static_cast<double>(bytes)};
    auto host = locus::rand({n});                     // pageable, locus's cpu allocator
    auto on_dev = host.to(dev);
    auto pinned = host.pin_memory(dev);  // pinned by this OpenCL driver (by default a CUDA one would pin it)
    ClBuffer dbuf(d.ctx, bytes);
    Pinned direct_pinned(d.ctx, q, bytes);
    std::vector<float> direct_host(static_cast<size_t>(n), 1.0f);  // pageable, preallocated: reads land here
    float* host_ptr = direct_host.data();
    const float* src_ptr = host.data_ptr<float>();  // writes read the very memory locus's side reads
    check(clEnqueueWriteBuffer(q, dbuf.m, CL_TRUE, 0, bytes, src_ptr, 0, nullptr, nullptr), "clEnqueueWriteBuffer");

    // pageable: the copies block (as the OpenCL call does with CL_TRUE and locus's .to() does)
    run_row("h2d/pageable/" + ms,
            {{"locus", [&] { auto t = host.to(dev); }, nothing},
             {"direct", [&] {
                check(clEnqueueWriteBuffer(q, dbuf.m, CL_TRUE, 0, bytes, src_ptr, 0, nullptr, nullptr), "write");
              }, nothing}},
            gbs);
    run_row("d2h/pageable/" + ms,
            {{"locus", [&] { auto t = on_dev.to(locus::kCPU); }, nothing},
             {"direct", [&] {
                check(clEnqueueReadBuffer(q, dbuf.m, CL_TRUE, 0, bytes, host_ptr, 0, nullptr, nullptr), "read");
              }, nothing}},
            gbs);
    // pinned: non-blocking enqueues, one wait per batch
    run_row("h2d/pinned/" + ms,
            {{"locus", [&] { auto t = pinned.to(dev, /*non_blocking=*/true); }, locus_sync},
             {"direct", [&] {
                check(clEnqueueWriteBuffer(q, dbuf.m, CL_FALSE, 0, bytes, direct_pinned.ptr, 0, nullptr, nullptr),
                      "write");
              }, direct_sync},
             {"direct-copy", [&] {
                check(clEnqueueCopyBuffer(q, direct_pinned.buf.m, dbuf.m, 0, 0, bytes, 0, nullptr, nullptr), "copy");
              }, direct_sync, kMappedRouteIsReference}},
            gbs);
    if (mib == 1) {  // A/A control, as for the launch
      auto write = [&] {
        check(clEnqueueWriteBuffer(q, dbuf.m, CL_FALSE, 0, bytes, direct_pinned.ptr, 0, nullptr, nullptr), "write");
      };
      run_row("control/h2d/pinned/1", {{"direct", write, direct_sync}, {"direct", write, direct_sync}}, gbs);
    }
    // into a preallocated pinned tensor, as the direct side reads into its mapped buffer
    run_row("d2h/pinned/" + ms,
            {{"locus", [&] { pinned.copy_(on_dev, /*non_blocking=*/true); }, locus_sync},
             {"direct", [&] {
                check(clEnqueueReadBuffer(q, dbuf.m, CL_FALSE, 0, bytes, direct_pinned.ptr, 0, nullptr, nullptr),
                      "read");
              }, direct_sync},
             {"direct-copy", [&] {
                check(clEnqueueCopyBuffer(q, dbuf.m, direct_pinned.buf.m, 0, 0, bytes, 0, nullptr, nullptr), "copy");
              }, direct_sync, kMappedRouteIsReference}},
            gbs);
    // .to(kCPU, non_blocking): a pinned output per call, freed at once (its destructor waits for
    // the copy into it, so calls do not overlap); for reference, not a target
    run_row("d2h/pinned_to/" + ms,
            {{"locus", [&] { auto t = on_dev.to(locus::kCPU, /*non_blocking=*/true); }, locus_sync},
             {"direct", [&] {
                check(clEnqueueReadBuffer(q, dbuf.m, CL_FALSE, 0, bytes, direct_pinned.ptr, 0, nullptr, nullptr),
                      "read");
              }, direct_sync}},
            gbs);
  }
}

// ---- (3) sgemm ---------------------------------------------------------------------------------------
void bench_sgemm(const locus::Device& dev) {
  const int idx = g_opt.device;
  cl::ClDevice& d = cl::Runtime::get().device(idx);
  cl_command_queue q = d.queue;
  for (int64_t n : {256, 512, 1024}) {
    const std::string row = "sgemm/" + std::to_string(n);
    if (!std::regex_search(row, std::regex(g_opt.filter))) continue;
    auto a = locus::randn({n, n}, locus::device(dev)), b = locus::randn({n, n}, locus::device(dev));
    const size_t bytes = static_cast<size_t>(n * n) * 4;
    ClBuffer da(d.ctx, bytes), db(d.ctx, bytes), dc(d.ctx, bytes);
    auto ha = a.to(locus::kCPU).contiguous(), hb = b.to(locus::kCPU).contiguous();
    check(clEnqueueWriteBuffer(q, da.m, CL_TRUE, 0, bytes, ha.data_ptr<float>(), 0, nullptr, nullptr), "write");
    check(clEnqueueWriteBuffer(q, db.m, CL_TRUE, 0, bytes, hb.data_ptr<float>(), 0, nullptr, nullptr), "write");
    const auto N = static_cast<size_t>(n);
    auto direct = [&] {
      auto st = clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, N,
                                     N, N, 1.0f, da.m, 0, N, db.m, 0, N, 0.0f, dc.m, 0, N, &q, nullptr);
      if (st != clblast::StatusCode::kSuccess)
        throw std::runtime_error("clblast::Gemm failed: status " + std::to_string(static_cast<int>(st)));
    };
    run_row(row,
            {{"locus", [&] { auto c = locus::matmul(a, b); }, [&] { locus::opencl::synchronize(idx); }},
             {"clblast", direct, [&] { check(clFinish(q), "clFinish"); }}},
            Figure{"GFLOP/s", 2.0 * static_cast<double>(n * n * n)});
  }
}

// ---- (4) elementwise add -----------------------------------------------------------------------------
void bench_add(const locus::Device& dev) {
  for (int64_t n : {int64_t{1} << 20, int64_t{1} << 24}) {
    const std::string sz = n == (1 << 20) ? "1M" : "16M";
    for (const locus::Device& on : {dev, locus::Device(locus::kCPU)}) {
      const std::string row = std::string("add/") + (on.is_cpu() ? "cpu" : "opencl") + "/" + sz;
      if (!std::regex_search(row, std::regex(g_opt.filter))) continue;
      auto a = locus::randn({n}, locus::device(on)), b = locus::randn({n}, locus::device(on));
      auto sync = [on] {
        if (!on.is_cpu()) locus::synchronize(on);
      };
      run_row(row, {{"locus", [&] { auto c = a + b; }, sync}}, Figure{"GB/s", 12.0 * static_cast<double>(n)});
    }
  }
}

// ---- (5) a training step --------------------------------------------------------------------------
// One step of locus-train's CNN (the Fashion-MNIST demo's model, batch 64, Adam): forward,
// cross-entropy, backward, optimizer step, on the device (locus only). Besides the time per step
// it prints the launches one step makes (gpu::launch_counts: kernels of the shared source, and
// vendor-BLAS GEMM calls), as a line bench/run reads:
//   LAUNCHES <tab> row <tab> kernels per step <tab> GEMM calls per step
void bench_train_step(const locus::Device& dev) {
  const std::string row = "train/cnn_step";
  if (!std::regex_search(row, std::regex(g_opt.filter))) return;
  namespace nn = locus::nn;
  locus::manual_seed(0);
  nn::Sequential model(nn::Conv2d(nn::Conv2dOptions(1, 16, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Flatten(), nn::Linear(1568, 10));
  model->to(dev);
  locus::optim::Adam opt(model->parameters(), locus::optim::AdamOptions(1e-3));
  auto x = locus::rand({64, 1, 28, 28}, locus::device(dev));
  auto y = locus::randint(0, 10, {64}, locus::TensorOptions().dtype(locus::kLong).device(dev));
  auto step = [&] {
    opt.zero_grad();
    auto loss = locus::nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    opt.step();
  };
  auto sync = [&] { locus::synchronize(dev); };
  step();  // the first step compiles the kernels
  sync();
  const locus::gpu::LaunchCounts before = locus::gpu::launch_counts();
  constexpr int kSteps = 3;
  for (int i = 0; i < kSteps; ++i) step();
  sync();
  const locus::gpu::LaunchCounts after = locus::gpu::launch_counts();
  const double kernels = static_cast<double>(after.kernels - before.kernels) / kSteps;
  const double gemms = static_cast<double>(after.gemms - before.gemms) / kSteps;
  std::printf("%-24s  %.0f kernel launches + %.0f GEMM calls per step\n", row.c_str(), kernels, gemms);
  std::printf("LAUNCHES\t%s\t%.6g\t%.6g\n", row.c_str(), kernels, gemms);
  run_row(row, {{"locus", step, sync}}, Figure{"us", 0}, 1);
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: opencl_bench [--device I] [--samples K] [--sample-ms MS] [--filter REGEX] [--smoke]\n";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&] { return flag_value(argc, argv, i); };
    try {  // a missing or non-numeric value is bad usage, not an uncaught exception
      if (a == "--device") g_opt.device = std::stoi(value());
      else if (a == "--samples") g_opt.samples = std::max(1, std::stoi(value()));
      else if (a == "--sample-ms") g_opt.sample_s = std::stod(value()) / 1e3;
      else if (a == "--filter") g_opt.filter = value();
      else if (a == "--smoke") g_opt.smoke = true;
      else {
        std::fputs(usage, stderr);
        return 2;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "opencl_bench: bad value for %s (%s)\n%s", a.c_str(), e.what(), usage);
      return 2;
    }
  }
  if (!locus::opencl::is_available() || locus::opencl::device_count() <= g_opt.device) {
    std::fprintf(stderr, "opencl_bench: no OpenCL device %d here (%s)\n", g_opt.device,
                 cl::Runtime::get().reason().c_str());
    return 1;
  }
  try {
    const locus::Device dev(locus::kOpenCL, g_opt.device);
    locus::set_num_threads(2);
    std::printf("device: %s (%s)\n", dev.str().c_str(), locus::opencl::get_device_name(g_opt.device).c_str());
    bench_launch(dev);
    bench_copies(dev);
    bench_sgemm(dev);
    bench_add(dev);
    bench_train_step(dev);
    if (g_opt.filter == "." && g_rows != kRows) {
      std::fprintf(stderr, "opencl_bench: ran %d rows, expected %d\n", g_rows, kRows);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opencl_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
