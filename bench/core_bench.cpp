// Core benchmarks (issue 2), Google Benchmark. bench/run runs this and checks the numbers against
// the targets; docs/benchmarks.md says what each one means.
//
//   add_1elem/cpu                 a 1-element add: the cost of one op through the dispatcher
//   to_noop/<device>              x.to(d) where x already lives on d with the same dtype
//   empty_free_1KiB/<device>      locus::empty({256}) made and destroyed (tensor + allocator)
//   alloc_free_1KiB/<device>      the device allocator alone: allocate + free of 1 KiB (cached on
//                                 accelerators; on cpu the system allocator, for reference)
//   fp32_peak                     FMA loop on all threads: this CPU's measured FP32 peak
//   sgemm/locus/<n>               locus::mm of two n x n float32 matrices (output allocated)
//   sgemm/openblas/<n>            cblas_sgemm of Debian's OpenBLAS, called directly
//   sgemm/blis/<n>                bli_sgemm of Debian's BLIS, called directly
//   gemm_{bf16,f16}/locus/<n>     locus::mm of two n x n bfloat16 / float16 matrices (float32
//                                 accumulation; label: the cpu conversion path)
//   cast_{bf16,f16}/<n>           x.to(kFloat) and back of an n-element bfloat16 / float16 tensor
//   add/<n>, add_inplace/<n>      elementwise float32 add (out of place, and a.add_(b))
//   cnn_step/{float32,bf16_autocast}/cpu
//                                 one training step of locus-train's CNN (batch 64, Adam), float32
//                                 or under AutocastGuard(kCPU, kBFloat16); counter peak_act_MiB:
//                                 the step's peak allocation above the weights and optimizer state;
//                                 label: the cpu code bf16 runs on (convert.h: avx512_bf16, avx2,
//                                 portable; LOCUS_CPU_ISA=portable forces the last)
//
// The BLAS libraries are loaded with dlopen(RTLD_LOCAL) so that linking them here can never
// redirect locus's own BLAS calls (both export cblas_sgemm and sgemm_).
// Options besides Google Benchmark's: --threads=N (default 2) for locus and the direct BLAS calls.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <locus/locus.h>

#include "backends/cpu/convert.h"
#include "memory/allocator.h"

namespace {

int g_threads = 2;

// ---- (1) dispatch overhead -------------------------------------------------------------------
void BM_add_1elem(benchmark::State& st) {
  auto a = locus::ones({1});
  auto b = locus::ones({1});
  for (auto _ : st) {
    auto c = locus::add(a, b);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

// ---- (2) no-op to() ------------------------------------------------------------------------------
void BM_to_noop(benchmark::State& st, locus::Device d) {
  auto x = locus::ones({16}, locus::device(d));
  const locus::Device target = x.device();  // "opencl:0", resolved
  for (auto _ : st) {
    auto y = x.to(target);
    benchmark::DoNotOptimize(y.unsafeGetTensorImpl());
  }
  if (!x.to(target).is_same(x)) st.SkipWithError("to() returned a different tensor");
}

// ---- (3) cached alloc + free --------------------------------------------------------------------
void BM_empty_free(benchmark::State& st, locus::Device d) {
  const auto opts = locus::TensorOptions().device(d).dtype(locus::kFloat32);
  { auto warm = locus::empty({256}, opts); }  // the first one may reach the device
  for (auto _ : st) {
    auto t = locus::empty({256}, opts);
    benchmark::DoNotOptimize(t.unsafeGetTensorImpl());
  }
}

void BM_alloc_free(benchmark::State& st, locus::Device d) {
  auto& alloc = locus::memory::allocator_for(d);
  auto stream = locus::Stream::current(d).handle();
  alloc.free(alloc.allocate(1024, stream));  // warm: the segment is now cached
  const int64_t raw_before = alloc.stats().device_alloc_count;
  for (auto _ : st) {
    auto a = alloc.allocate(1024, stream);
    benchmark::DoNotOptimize(a.buf.base);
    alloc.free(a);
  }
  const int64_t raw = alloc.stats().device_alloc_count - raw_before;
  st.counters["device_allocs"] = static_cast<double>(raw);
  if (d.is_cpu()) st.SetLabel("system allocator");
  else if (raw != 0) st.SetLabel("NOT cached: reached the device allocator");
}

// ---- FP32 peak: independent FMA chains on every thread ----------------------------------------
constexpr int64_t kPeakIters = int64_t(1) << 22;

__attribute__((target("avx512f"))) double fma_chains_avx512(int64_t iters) {
  __m512 acc[24];
  for (int j = 0; j < 24; ++j) acc[j] = _mm512_set1_ps(0.001f * static_cast<float>(j));
  const __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 24
    for (int j = 0; j < 24; ++j) acc[j] = _mm512_fmadd_ps(acc[j], m, c);
  }
  alignas(64) float out[16];
  __m512 t = acc[0];
  for (int j = 1; j < 24; ++j) t = _mm512_add_ps(t, acc[j]);
  _mm512_store_ps(out, t);
  benchmark::DoNotOptimize(out[0] + out[15]);
  return 24.0 * 16 * 2 * static_cast<double>(iters);
}

__attribute__((target("avx2,fma"))) double fma_chains_avx2(int64_t iters) {
  __m256 acc[12];
  for (int j = 0; j < 12; ++j) acc[j] = _mm256_set1_ps(0.001f * static_cast<float>(j));
  const __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < 12; ++j) acc[j] = _mm256_fmadd_ps(acc[j], m, c);
  }
  alignas(32) float out[8];
  __m256 t = acc[0];
  for (int j = 1; j < 12; ++j) t = _mm256_add_ps(t, acc[j]);
  _mm256_store_ps(out, t);
  benchmark::DoNotOptimize(out[0] + out[7]);
  return 12.0 * 8 * 2 * static_cast<double>(iters);
}

double fma_chains_sse(int64_t iters) {  // no FMA: mul + add
  __m128 acc[8];
  for (int j = 0; j < 8; ++j) acc[j] = _mm_set1_ps(0.001f * static_cast<float>(j));
  const __m128 m = _mm_set1_ps(0.9999999f), c = _mm_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) acc[j] = _mm_add_ps(_mm_mul_ps(acc[j], m), c);
  }
  alignas(16) float out[4];
  __m128 t = acc[0];
  for (int j = 1; j < 8; ++j) t = _mm_add_ps(t, acc[j]);
  _mm_store_ps(out, t);
  benchmark::DoNotOptimize(out[0]);
  return 8.0 * 4 * 2 * static_cast<double>(iters);
}

const char* peak_isa() {
  if (__builtin_cpu_supports("avx512f")) return "avx512";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "avx2+fma";
  return "sse";
}

double fma_chains(int64_t iters) {
  static const std::string isa = peak_isa();
  if (isa == "avx512") return fma_chains_avx512(iters);
  if (isa == "avx2+fma") return fma_chains_avx2(iters);
  return fma_chains_sse(iters);
}

void BM_fp32_peak(benchmark::State& st) {
  double flops = 0;
  for (auto _ : st) {
    std::vector<std::thread> pool;
    std::vector<double> done(static_cast<size_t>(g_threads), 0.0);
    for (int t = 0; t < g_threads; ++t)
      pool.emplace_back([&done, t] { done[static_cast<size_t>(t)] = fma_chains(kPeakIters); });
    for (auto& th : pool) th.join();
    for (double d : done) flops += d;
  }
  st.counters["flops"] = benchmark::Counter(flops, benchmark::Counter::kIsRate);
  st.SetLabel(std::string(peak_isa()) + ", " + std::to_string(g_threads) + " threads");
}

// ---- (4) sgemm -------------------------------------------------------------------------------------
void set_flops(benchmark::State& st, int64_t n) {
  st.counters["flops"] = benchmark::Counter(2.0 * static_cast<double>(n * n * n),
                                            benchmark::Counter::kIsIterationInvariantRate);
}

void BM_sgemm_locus(benchmark::State& st) {
  const int64_t n = st.range(0);
  auto a = locus::randn({n, n});
  auto b = locus::randn({n, n});
  { auto warm = locus::mm(a, b); }
  for (auto _ : st) {
    auto c = locus::mm(a, b);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
  set_flops(st, n);
}

// Which cpu code converts float16/bfloat16 (src/backends/cpu/convert.h; LOCUS_CPU_ISA caps it).
std::string low_precision_path() {
  const auto level = locus::cpu::convert_level();
  return std::string("bf16 ") + locus::cpu::bf16_convert_path(level) + ", f16 " + locus::cpu::half_convert_path(level);
}

void BM_gemm_low(benchmark::State& st, locus::ScalarType dt) {
  const int64_t n = st.range(0);
  auto a = locus::randn({n, n}).to(dt);
  auto b = locus::randn({n, n}).to(dt);
  { auto warm = locus::mm(a, b); }
  for (auto _ : st) {
    auto c = locus::mm(a, b);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
  set_flops(st, n);
  st.SetLabel(low_precision_path());
}

void BM_cast_low(benchmark::State& st, locus::ScalarType dt) {
  const int64_t n = st.range(0);
  auto x = locus::randn({n}).to(dt);
  for (auto _ : st) {
    auto f = x.to(locus::kFloat);
    auto back = f.to(dt);
    benchmark::DoNotOptimize(back.unsafeGetTensorImpl());
  }
  st.SetBytesProcessed(st.iterations() * n * 12);  // read 2 + write 4, read 4 + write 2 bytes
  st.SetLabel(low_precision_path());
}

struct Matrices {
  std::vector<float> a, b, c;
  explicit Matrices(int64_t n) : a(static_cast<size_t>(n * n)), b(a.size()), c(a.size()) {
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = 1.0f / static_cast<float>(i % 7 + 1);
      b[i] = 1.0f / static_cast<float>(i % 5 + 1);
    }
  }
};

// OpenBLAS, straight from the library (dlopen; cblas_sgemm, row-major).
struct OpenBlas {
  using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                         float, float*, int);
  Sgemm sgemm = nullptr;
  void (*set_threads)(int) = nullptr;
  int (*get_threads)() = nullptr;
  char* (*corename)() = nullptr;
  static const OpenBlas& get() {
    static const OpenBlas lib = [] {
      OpenBlas o;
      for (const char* so : {"libopenblas.so.0", "libopenblas.so"}) {
        if (void* h = dlopen(so, RTLD_NOW | RTLD_LOCAL)) {
          o.sgemm = reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm"));
          o.set_threads = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"));
          o.get_threads = reinterpret_cast<int (*)()>(dlsym(h, "openblas_get_num_threads"));
          o.corename = reinterpret_cast<char* (*)()>(dlsym(h, "openblas_get_corename"));
          break;
        }
      }
      return o;
    }();
    return lib;
  }
  bool ok() const { return sgemm && set_threads && get_threads; }
};

void BM_sgemm_openblas(benchmark::State& st) {
  const auto& ob = OpenBlas::get();
  const int n = static_cast<int>(st.range(0));
  Matrices m(n);
  const int saved = ob.get_threads();  // locus may share this library instance: restore it after
  ob.set_threads(g_threads);
  constexpr int kRowMajor = 101, kNoTrans = 111;
  auto call = [&] {
    ob.sgemm(kRowMajor, kNoTrans, kNoTrans, n, n, n, 1.0f, m.a.data(), n, m.b.data(), n, 0.0f,
             m.c.data(), n);
  };
  call();
  for (auto _ : st) {
    call();
    benchmark::DoNotOptimize(m.c.data());
  }
  ob.set_threads(saved);
  set_flops(st, n);
  const char* env = std::getenv("OPENBLAS_CORETYPE");
  st.SetLabel(std::string("core=") + (ob.corename ? ob.corename() : "?") +
              (env ? std::string(" (OPENBLAS_CORETYPE=") + env + ")" : std::string(" (auto-detected)")));
}

// BLIS, through its own typed API (bli_sgemm), which cannot be interposed by another BLAS.
struct Blis {
  using Sgemm = void (*)(int, int, int64_t, int64_t, int64_t, float*, float*, int64_t, int64_t, float*,
                         int64_t, int64_t, float*, float*, int64_t, int64_t);
  Sgemm sgemm = nullptr;
  void (*set_threads)(int64_t) = nullptr;
  int64_t (*get_threads)() = nullptr;
  int (*arch_id)() = nullptr;
  const char* (*arch_string)(int) = nullptr;
  static const Blis& get() {
    static const Blis lib = [] {
      Blis o;
      for (const char* so : {"libblis.so.4", "libblis.so"}) {
        if (void* h = dlopen(so, RTLD_NOW | RTLD_LOCAL)) {
          o.sgemm = reinterpret_cast<Sgemm>(dlsym(h, "bli_sgemm"));
          o.set_threads = reinterpret_cast<void (*)(int64_t)>(dlsym(h, "bli_thread_set_num_threads"));
          o.get_threads = reinterpret_cast<int64_t (*)()>(dlsym(h, "bli_thread_get_num_threads"));
          o.arch_id = reinterpret_cast<int (*)()>(dlsym(h, "bli_arch_query_id"));
          o.arch_string = reinterpret_cast<const char* (*)(int)>(dlsym(h, "bli_arch_string"));
          break;
        }
      }
      return o;
    }();
    return lib;
  }
  bool ok() const { return sgemm && set_threads && get_threads; }
};

void BM_sgemm_blis(benchmark::State& st) {
  const auto& bl = Blis::get();
  const int64_t n = st.range(0);
  Matrices m(n);
  const int64_t saved = bl.get_threads();
  bl.set_threads(g_threads);
  float one = 1.0f, zero = 0.0f;
  constexpr int kNoTrans = 0;  // BLIS_NO_TRANSPOSE
  auto call = [&] {  // row-major: row stride n, column stride 1
    bl.sgemm(kNoTrans, kNoTrans, n, n, n, &one, m.a.data(), n, 1, m.b.data(), n, 1, &zero, m.c.data(), n, 1);
  };
  call();
  for (auto _ : st) {
    call();
    benchmark::DoNotOptimize(m.c.data());
  }
  bl.set_threads(saved);
  set_flops(st, n);
  if (bl.arch_id && bl.arch_string) st.SetLabel(std::string("arch=") + bl.arch_string(bl.arch_id()));
}

// ---- (5) elementwise add ---------------------------------------------------------------------------
void set_bytes(benchmark::State& st, int64_t n) {  // read a, read b, write c
  st.counters["bytes"] = benchmark::Counter(3.0 * 4.0 * static_cast<double>(n),
                                            benchmark::Counter::kIsIterationInvariantRate);
}

void BM_add(benchmark::State& st) {
  const int64_t n = st.range(0);
  auto a = locus::randn({n});
  auto b = locus::randn({n});
  for (auto _ : st) {
    auto c = a + b;
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
  set_bytes(st, n);
}

void BM_add_inplace(benchmark::State& st) {  // the kernel alone: no output allocation, no page faults
  const int64_t n = st.range(0);
  auto a = locus::randn({n});
  auto b = locus::randn({n}) * 1e-30;
  for (auto _ : st) {
    a.add_(b);
    benchmark::DoNotOptimize(a.unsafeGetTensorImpl());
  }
  set_bytes(st, n);
}

// ---- (5) mixed precision: a CNN training step, float32 vs bfloat16 autocast ----------------------
void BM_cnn_step(benchmark::State& st, bool bf16) {
  namespace nn = locus::nn;
  const locus::Device cpu(locus::kCPU);
  locus::manual_seed(0);
  nn::Sequential model(nn::Conv2d(nn::Conv2dOptions(1, 16, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Flatten(), nn::Linear(1568, 10));
  locus::optim::Adam opt(model->parameters(), locus::optim::AdamOptions(1e-3));
  locus::Tensor x = locus::randn({64, 1, 28, 28}), y = locus::randint(10, {64}, locus::TensorOptions().dtype(locus::kLong));
  auto step = [&] {
    opt.zero_grad();
    locus::Tensor loss;
    {
      locus::autocast::AutocastGuard ac(locus::kCPU, locus::kBFloat16, /*enabled=*/bf16);
      loss = nn::functional::cross_entropy(model->forward(x), y);
    }
    loss.backward();
    opt.step();
  };
  step();  // Adam's state exists from here on
  int64_t peak = 0;
  for (auto _ : st) {
    int64_t base = locus::memory_allocated(cpu);
    locus::reset_peak_memory_stats(cpu);
    step();
    peak = std::max(peak, locus::max_memory_allocated(cpu) - base);
  }
  st.counters["peak_act_MiB"] = static_cast<double>(peak) / (1 << 20);
  st.SetLabel(std::string(bf16 ? "bf16 ran on: " : "float32 (bf16 would run on: ") + low_precision_path() +
              (bf16 ? "" : ")"));
}

void register_all() {
  using benchmark::RegisterBenchmark;
  const locus::Device cpu(locus::kCPU);
  std::vector<locus::Device> devices{cpu};
  if (locus::opencl::is_available() && locus::opencl::device_count() > 0)
    devices.emplace_back(locus::kOpenCL, 0);

  RegisterBenchmark("add_1elem/cpu", BM_add_1elem)->UseRealTime();
  for (const auto& d : devices)
    RegisterBenchmark(("to_noop/" + d.str()).c_str(), BM_to_noop, d)->UseRealTime();
  for (const auto& d : devices)
    RegisterBenchmark(("empty_free_1KiB/" + d.str()).c_str(), BM_empty_free, d)->UseRealTime();
  // On cpu this is the system allocator behind a counter (memory/allocator.h), shown for reference.
  for (const auto& d : devices)
    RegisterBenchmark(("alloc_free_1KiB/" + d.str()).c_str(), BM_alloc_free, d)->UseRealTime();

  RegisterBenchmark("fp32_peak", BM_fp32_peak)->UseRealTime()->Unit(benchmark::kMillisecond);

  const std::vector<int64_t> sizes{256, 512, 1024, 2048};
  auto gemm = [&](const char* name, void (*fn)(benchmark::State&)) {
    auto* b = RegisterBenchmark(name, fn)->UseRealTime()->Unit(benchmark::kMillisecond);
    for (int64_t n : sizes) b->Arg(n);
  };
  gemm("sgemm/locus", BM_sgemm_locus);
  if (OpenBlas::get().ok()) gemm("sgemm/openblas", BM_sgemm_openblas);
  if (Blis::get().ok()) gemm("sgemm/blis", BM_sgemm_blis);
  for (auto dt : {std::make_pair("gemm_bf16/locus", locus::kBFloat16), std::make_pair("gemm_f16/locus", locus::kHalf)}) {
    auto* b = RegisterBenchmark(dt.first, BM_gemm_low, dt.second)->UseRealTime()->Unit(benchmark::kMillisecond);
    for (int64_t n : sizes) b->Arg(n);
  }
  for (auto dt : {std::make_pair("cast_bf16", locus::kBFloat16), std::make_pair("cast_f16", locus::kHalf)})
    RegisterBenchmark(dt.first, BM_cast_low, dt.second)->UseRealTime()->Unit(benchmark::kMicrosecond)->Arg(int64_t(1) << 20);

  for (auto fn : {std::make_pair("add", BM_add), std::make_pair("add_inplace", BM_add_inplace)}) {
    RegisterBenchmark(fn.first, fn.second)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond)
        ->Arg(int64_t(1) << 20)
        ->Arg(int64_t(1) << 24);
  }
  RegisterBenchmark("cnn_step/float32/cpu", BM_cnn_step, false)->UseRealTime()->Unit(benchmark::kMillisecond);
  RegisterBenchmark("cnn_step/bf16_autocast/cpu", BM_cnn_step, true)->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  // Our own flag first; Google Benchmark rejects what it does not know.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--threads=", 10) == 0) g_threads = std::max(1, std::atoi(argv[i] + 10));
    else argv[kept++] = argv[i];
  }
  argc = kept;

  locus::set_num_threads(g_threads);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("locus_threads", std::to_string(locus::get_num_threads()));
  benchmark::AddCustomContext("fp32_peak_isa", peak_isa());
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
