// The CUDA figures scripts/gpu-check reports, on cuda:0 (or argv[1]): op launch overhead,
// host<->device bandwidth from pinned and pageable memory, and sgemm through locus next to
// cuBLAS called directly on the same device. Plain output, one "name: value unit" per line.
// Needs a GPU; built only by scripts/gpu-check (target locus_cuda_bench, EXCLUDE_FROM_ALL).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "locus/locus.h"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

template <typename F>
double median_seconds(int reps, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    f();
    t.push_back(since(t0));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void cublas_direct(int n, int dev) {
  cudaSetDevice(dev);
  float *a = nullptr, *b = nullptr, *c = nullptr;
  size_t bytes = sizeof(float) * n * n;
  if (cudaMalloc(&a, bytes) || cudaMalloc(&b, bytes) || cudaMalloc(&c, bytes)) {
    std::printf("sgemm_cublas_direct_%d: cudaMalloc failed\n", n);
    return;
  }
  cudaMemset(a, 0, bytes);
  cudaMemset(b, 0, bytes);
  cublasHandle_t h;
  cublasCreate(&h);
  float one = 1, zero = 0;
  auto run = [&] {
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);
    cudaDeviceSynchronize();
  };
  run();
  double s = median_seconds(7, run);
  std::printf("sgemm_cublas_direct_%d: %.1f GFLOP/s\n", n, 2.0 * n * n * n / s / 1e9);
  cublasDestroy(h);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

}  // namespace

int run(const locus::Device& dev) {
  if (!locus::is_available(dev.type())) {
    std::printf("%s is not available: %s\n", dev.str().c_str(), locus::best_device_report().c_str());
    return 1;
  }
  std::printf("device: %s (%s)\n", dev.str().c_str(), locus::describe(dev).name.c_str());
  auto on = locus::TensorOptions().device(dev);

  // launch overhead: a 1-element add, enqueue only and with a synchronize per op
  auto x = locus::ones({1}, on), y = locus::ones({1}, on);
  for (int i = 0; i < 100; ++i) x = locus::add(x, y);
  locus::synchronize(dev);
  const int N = 20000;
  auto t0 = Clock::now();
  for (int i = 0; i < N; ++i) x = locus::add(x, y);
  locus::synchronize(dev);
  std::printf("launch_overhead_add_1elem: %.2f us/op\n", since(t0) / N * 1e6);

  // host <-> device bandwidth, 256 MiB
  const int64_t n = 64 << 20;
  auto host = locus::ones({n});
  auto pinned = host.pin_memory();
  auto d = host.to(dev);
  locus::synchronize(dev);
  double gib = static_cast<double>(n * 4) / (1 << 30);
  std::printf("h2d_pageable: %.2f GiB/s\n", gib / median_seconds(5, [&] { d.copy_(host); locus::synchronize(dev); }));
  std::printf("h2d_pinned: %.2f GiB/s\n", gib / median_seconds(5, [&] { d.copy_(pinned, true); locus::synchronize(dev); }));
  std::printf("d2h_pageable: %.2f GiB/s\n", gib / median_seconds(5, [&] { host.copy_(d); }));
  std::printf("d2h_pinned: %.2f GiB/s\n", gib / median_seconds(5, [&] { pinned.copy_(d, true); locus::synchronize(dev); }));

  // sgemm: locus (cuBLAS underneath) next to cuBLAS direct
  for (int m : {1024, 4096}) {
    auto a = locus::randn({m, m}, on), b = locus::randn({m, m}, on);
    auto c = locus::matmul(a, b);
    locus::synchronize(dev);
    double s = median_seconds(7, [&] { c = locus::matmul(a, b); locus::synchronize(dev); });
    std::printf("sgemm_locus_%d: %.1f GFLOP/s\n", m, 2.0 * m * m * m / s / 1e9);
    cublas_direct(m, dev.index() < 0 ? 0 : dev.index());
  }
  return 0;
}

int main(int argc, char** argv) {
  const std::string arg = argc > 1 ? argv[1] : "cuda:0";
  if (arg == "--help" || arg == "-h") {
    std::printf("usage: cuda_bench [DEVICE]   (default cuda:0): launch overhead, H2D/D2H GiB/s pageable and pinned,\n"
                "sgemm through locus next to cuBLAS called directly. Exit status: 0 measured, 1 device not\n"
                "available, 2 bad usage or an error (its message on stderr).\n");
    return 0;
  }
  try {
    return run(locus::Device(arg));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda_bench: %s\n", e.what());
    return 2;
  }
}
