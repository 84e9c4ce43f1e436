// One program, written once in libtorch style, compiled twice: against locus (-DUSE_LOCUS, where
// `torch` is an alias of `locus`) and against Debian's libtorch-dev (PyTorch 1.13). It times the same
// operations on cpu with the same harness and prints one row per op:
//
//   RESULT <tab> <library> <tab> <op> <tab> <median ns per call> <tab> <calls per sample> <tab> <samples>
//
// bench/run joins the two outputs into locus/libtorch ratios. Only API present in both libraries is
// used here; keep it that way (it is the point of the program).
//
//   side_by_side [--threads N] [--sample-ms MS] [--samples K] [--filter SUBSTRING]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#ifdef USE_LOCUS
#include <locus/locus.h>
namespace torch = locus;
static const char* const kLibrary = "locus";
#else
#include <torch/torch.h>
static const char* const kLibrary = "libtorch";
#endif

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Timing {
  double median_ns;
  long calls_per_sample;
  int samples;
};

// Warm-up for at least 50 ms (and 3 calls), pick a batch of calls that takes about `sample_s`,
// then time `samples` batches and return the median time per call.
Timing measure(const std::function<void()>& op, double sample_s, int samples) {
  long warm = 0;
  auto t0 = Clock::now();
  while (warm < 3 || seconds_since(t0) < 0.05) {
    op();
    ++warm;
  }
  double per_call = seconds_since(t0) / static_cast<double>(warm);
  long batch = std::max(1L, static_cast<long>(sample_s / std::max(per_call, 1e-9)));
  std::vector<double> ns;
  ns.reserve(static_cast<size_t>(samples));
  for (int s = 0; s < samples; ++s) {
    auto t = Clock::now();
    for (long i = 0; i < batch; ++i) op();
    ns.push_back(seconds_since(t) * 1e9 / static_cast<double>(batch));
  }
  std::sort(ns.begin(), ns.end());
  double median = samples % 2 ? ns[samples / 2] : 0.5 * (ns[samples / 2 - 1] + ns[samples / 2]);
  return {median, batch, samples};
}

// Keeps results observable (a call into either library is opaque to the optimiser anyway).
volatile int64_t g_sink = 0;
void keep(const torch::Tensor& t) { g_sink = g_sink + t.numel(); }

}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  double sample_ms = 20;
  int samples = 11;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "side_by_side: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--threads") threads = std::atoi(next());
    else if (a == "--sample-ms") sample_ms = std::atof(next());
    else if (a == "--samples") samples = std::max(1, std::atoi(next()));
    else if (a == "--filter") filter = next();
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--sample-ms MS] [--samples K] [--filter SUBSTRING]\n", argv[0]);
      return 2;
    }
  }

  torch::set_num_threads(threads);
  torch::manual_seed(0);
  const torch::Device cpu(torch::kCPU);
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat32).device(cpu);
  const int64_t M1 = int64_t(1) << 20, M16 = int64_t(1) << 24;

  // Inputs, made once.
  auto one_a = torch::ones({1}, f32), one_b = torch::ones({1}, f32);
  auto m1_a = torch::randn({M1}, f32), m1_b = torch::randn({M1}, f32);
  auto m16_a = torch::randn({M16}, f32), m16_b = torch::randn({M16}, f32);
  auto g1024_a = torch::randn({1024, 1024}, f32), g1024_b = torch::randn({1024, 1024}, f32);
  auto g2048_a = torch::randn({2048, 2048}, f32), g2048_b = torch::randn({2048, 2048}, f32);
  auto logits = torch::randn({256, 1000}, f32);
  auto x = torch::randn({64, 784}, f32);
  auto w1 = torch::randn({784, 256}, f32) * 0.05, b1 = torch::zeros({256}, f32);
  auto w2 = torch::randn({256, 10}, f32) * 0.05, b2 = torch::zeros({10}, f32);

  // One training step (issue 4): MLP 784-256-128-10, batch 64, cross entropy, Adam.
  torch::nn::Sequential mlp(torch::nn::Linear(784, 256), torch::nn::ReLU(), torch::nn::Linear(256, 128),
                            torch::nn::ReLU(), torch::nn::Linear(128, 10));
  torch::optim::Adam adam(mlp->parameters(), torch::optim::AdamOptions(1e-3));
  auto labels = torch::randint(10, {64}, torch::TensorOptions().dtype(torch::kLong).device(cpu));
  // And the Fashion-MNIST CNN's step (issue 5): conv 1->16 3x3 pad 1, relu, pool 2, conv 16->32,
  // relu, pool 2, linear 1568->10, batch 64 of 28x28 images.
  torch::nn::Sequential cnn(torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 16, 3).padding(1)), torch::nn::ReLU(),
                            torch::nn::MaxPool2d(2), torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 3).padding(1)),
                            torch::nn::ReLU(), torch::nn::MaxPool2d(2), torch::nn::Flatten(), torch::nn::Linear(1568, 10));
  torch::optim::Adam cnn_adam(cnn->parameters(), torch::optim::AdamOptions(1e-3));
  auto images = torch::rand({64, 1, 28, 28}, f32);

  struct Op {
    const char* name;
    std::function<void()> fn;
  };
  const std::vector<Op> ops = {
      {"add_1elem", [&] { keep(one_a + one_b); }},
      {"to_noop_cpu", [&] { keep(one_a.to(cpu)); }},
      {"add_1M", [&] { keep(m1_a + m1_b); }},
      {"add_16M", [&] { keep(m16_a + m16_b); }},
      {"sum_16M", [&] { keep(m16_a.sum()); }},
      {"relu_16M", [&] { keep(torch::relu(m16_a)); }},
      {"matmul_1024", [&] { keep(torch::matmul(g1024_a, g1024_b)); }},
      {"matmul_2048", [&] { keep(torch::matmul(g2048_a, g2048_b)); }},
      {"softmax_256x1000", [&] { keep(torch::softmax(logits, 1)); }},
      {"randn_1M", [&] { keep(torch::randn({M1}, f32)); }},
      {"mlp_b64_784_256_10", [&] {
         auto h = torch::relu(torch::matmul(x, w1) + b1);
         keep(torch::matmul(h, w2) + b2);
       }},
      {"train_step_mlp_adam", [&] {
         adam.zero_grad();
         auto loss = torch::nn::functional::cross_entropy(mlp->forward(x), labels);
         loss.backward();
         adam.step();
         keep(loss);
       }},
      {"train_step_cnn_adam", [&] {
         cnn_adam.zero_grad();
         auto loss = torch::nn::functional::cross_entropy(cnn->forward(images), labels);
         loss.backward();
         cnn_adam.step();
         keep(loss);
       }},
  };

  std::printf("# side_by_side: %s, %d threads, median of %d samples of ~%g ms each\n", kLibrary,
              threads, samples, sample_ms);
  std::printf("# %-20s %14s %10s\n", "op", "ns/call", "calls");
  for (const Op& op : ops) {
    if (!filter.empty() && std::string(op.name).find(filter) == std::string::npos) continue;
    Timing t = measure(op.fn, sample_ms * 1e-3, samples);
    std::printf("RESULT\t%s\t%s\t%.1f\t%ld\t%d\n", kLibrary, op.name, t.median_ns, t.calls_per_sample,
                t.samples);
    std::fflush(stdout);
  }
  return static_cast<int>(g_sink & 0);
}
