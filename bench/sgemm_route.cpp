// bench/sgemm_route: locus's AVX-512 GEMM kernels (src/backends/cpu/gemm_avx512.cpp), or on a CPU
// without AVX-512F (or with LOCUS_CPU_ISA=avx2) its AVX2 ones (gemm_avx2.cpp), against
// OpenBLAS as locus calls it (cpu::gemm_f32_blas: the split over the pool, or OpenBLAS's threads),
// shape by shape, in one process and interleaved: rounds of (kernels, OpenBLAS) pairs, each a
// timed batch of calls. Prints GFLOP/s of both from their best batch (on a shared machine the
// least disturbed one), the ratio of those ("best": OpenBLAS time / kernel time, above 1 the
// kernels win) and the median over rounds of the same ratio within a round ("paired") and what gemm_f32 routes the shape to.
// This is what docs/gemm.md's routing table comes from.
//   cmake --build build --target sgemm_route && build/bench/sgemm_route [rounds, default 41]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "backends/cpu/blas.h"
#include "backends/cpu/gemm_avx2.h"
#include "backends/cpu/gemm_avx512.h"

namespace {

struct Shape {
  const char* name;
  bool ta, tb;
  int64_t m, n, k;
};

// the MLP step's products (784-256-128-10, batch 64: forward x W^T, weight gradient dY^T X, input
// gradient dY W; the forward as addmm, beta 1, the gradients beta 0), the CNN's linear layer (its
// convolutions have kernels of their own), and squares and near-misses around the routing limits
constexpr Shape kShapes[] = {
    {"mlp_l1_fwd", false, true, 64, 256, 784},  {"mlp_l1_dw", true, false, 256, 784, 64},
    {"mlp_l2_fwd", false, true, 64, 128, 256},  {"mlp_l2_dx", false, false, 64, 256, 128},
    {"mlp_l2_dw", true, false, 128, 256, 64},   {"mlp_l3_fwd", false, true, 64, 10, 128},
    {"mlp_l3_dx", false, false, 64, 128, 10},   {"mlp_l3_dw", true, false, 10, 128, 64},
    {"mlp_l1_dx", false, false, 64, 784, 256},  {"nn_64_256_784", false, false, 64, 256, 784},  {"mlp_eval_l1", false, true, 1000, 256, 784},
    {"cnn_fc_fwd", false, true, 64, 10, 1568},  {"cnn_fc_dx", false, false, 64, 1568, 10},
    {"cnn_fc_dw", true, false, 10, 1568, 64},   {"nt_128_784_784", false, true, 128, 784, 784},
    {"nt_256_256_784", false, true, 256, 256, 784}, {"tn_784_256_256", true, false, 784, 256, 256},
    {"nn_64_1024_1024", false, false, 64, 1024, 1024}, {"nt_64_1024_1024", false, true, 64, 1024, 1024},
    {"nt_64_2048_2048", false, true, 64, 2048, 2048}, {"nt_64_4096_4096", false, true, 64, 4096, 4096},
    {"nn_128", false, false, 128, 128, 128},    {"nt_128", false, true, 128, 128, 128},
    {"nn_256", false, false, 256, 256, 256},    {"nt_256", false, true, 256, 256, 256},
    {"tn_256", true, false, 256, 256, 256},     {"nn_512", false, false, 512, 512, 512},
    {"nt_512", false, true, 512, 512, 512},     {"nn_1024", false, false, 1024, 1024, 1024},
};

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <class F>
double per_call(F&& f, int reps) {
  const double t0 = now();
  for (int r = 0; r < reps; ++r) f();
  return (now() - t0) / reps;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace locus::cpu;
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 41;
  const bool avx512 = gemm_avx512::available();
  if (!avx512 && !gemm_avx2::available()) {
    std::printf("sgemm_route: neither AVX-512F nor AVX2 here (or LOCUS_CPU_ISA caps them): nothing to compare\n");
    return 0;
  }
  const char* kernels = avx512 ? "avx512" : "avx2";
  auto kernel_gemm = avx512 ? &gemm_avx512::gemm : &gemm_avx2::gemm;
  auto kernel_routes = avx512 ? &gemm_avx512::routes : &gemm_avx2::routes;
  std::printf("%-18s %5s %6s %6s  %9s %9s  %7s %7s  %s\n", "shape", "m", "n", "k", kernels, "openblas", "best",
              "paired", "routed to");
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const Shape& s : kShapes) {
    const int64_t lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n;
    std::vector<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n)),
        c(static_cast<size_t>(s.m * s.n));
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    const double flops = 2.0 * s.m * s.n * s.k;
    const float beta = s.tb ? 1.0f : 0.0f;  // as Linear: the forward adds to the bias, the gradients do not
    const int reps = static_cast<int>(std::clamp(5e7 / flops, 1.0, 2000.0));  // ~0.5-3 ms per batch
    auto mine = [&] {
      kernel_gemm(s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(), lda, b.data(), ldb, beta, c.data(), s.n);
    };
    auto blas = [&] {
      gemm_f32_blas(s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(), lda, b.data(), ldb, beta, c.data(), s.n);
    };
    per_call(mine, reps);
    per_call(blas, reps);
    std::vector<double> tm, tb, ratio;
    for (int r = 0; r < rounds; ++r) {
      tm.push_back(per_call(mine, reps));
      tb.push_back(per_call(blas, reps));
      ratio.push_back(tb.back() / tm.back());
    }
    const double m = *std::min_element(tm.begin(), tm.end()), o = *std::min_element(tb.begin(), tb.end());
    std::printf("%-18s %5lld %6lld %6lld  %9.1f %9.1f  %7.2f %7.2f  %s\n", s.name, static_cast<long long>(s.m),
                static_cast<long long>(s.n), static_cast<long long>(s.k), flops / m * 1e-9, flops / o * 1e-9, o / m, median(ratio),
                kernel_routes(s.ta, s.tb, s.m, s.n, s.k) ? kernels : "openblas");
    std::fflush(stdout);
  }
  return 0;
}
