// One program, written once in libtorch style, compiled twice: against locus (-DUSE_LOCUS, where
// `torch` is an alias of `locus`) and against Debian's libtorch-dev (PyTorch 1.13). It times the same
// operations on cpu with the same harness and prints one row per op:
//
//   RESULT <tab> <library> <tab> <op> <tab> <median ns per call> <tab> <calls per sample> <tab> <samples>
//
// bench/run joins the outputs into locus/libtorch ratios (and locus/PyTorch 2.x ones, from
// bench/side_by_side.py: the same rows in Python; keep the two in step). Only API present in both
// libraries is used here; keep it that way (it is the point of the program).
//
//   side_by_side [--threads N] [--sample-ms MS] [--samples K] [--filter SUBSTRING] [--list] [--serve]
//
// --list prints the op names, one a line. --serve reads op names from stdin, one a line, and
// answers each with its RESULT line (or "MISSING <tab> library <tab> op"): bench/run keeps the
// three programs open and asks them for one row at a time, in turn, so that all sides of a row are
// timed within seconds of each other.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
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
  bool list = false, serve = false;
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
    else if (a == "--list") list = true;
    else if (a == "--serve") serve = true;
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--sample-ms MS] [--samples K] [--filter SUBSTRING] [--list] [--serve]\n", argv[0]);
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

  // Larger shapes (issue 18 item 4), batch 64. Each conv row is timed twice: forward alone (no
  // grad), and forward + backward: torch::autograd::grad of the output (with a fixed upstream
  // gradient) with respect to the input, the weight and the bias, i.e. the input gradient and the
  // weight gradient a training step needs, not accumulated anywhere.
  struct ConvCase {
    const char* name;  // conv_<in>_<out>_<size>[_1x1|_s2]
    torch::Tensor x, w, b, gy;
    std::vector<int64_t> stride, padding;
  };
  auto conv_case = [&](const char* name, int64_t cin, int64_t cout, int64_t hw, int64_t k, int64_t stride,
                       int64_t pad) {
    ConvCase c{name, torch::randn({64, cin, hw, hw}, f32), torch::randn({cout, cin, k, k}, f32) * 0.05,
               torch::randn({cout}, f32) * 0.05, torch::Tensor(), {stride, stride}, {pad, pad}};
    const int64_t out = (hw + 2 * pad - k) / stride + 1;
    c.gy = torch::randn({64, cout, out, out}, f32);
    return c;
  };
  std::vector<ConvCase> convs;
  convs.push_back(conv_case("conv_3_64_32", 3, 64, 32, 3, 1, 1));
  convs.push_back(conv_case("conv_64_128_16", 64, 128, 16, 3, 1, 1));
  convs.push_back(conv_case("conv_128_256_8", 128, 256, 8, 3, 1, 1));
  convs.push_back(conv_case("conv_256_256_8_1x1", 256, 256, 8, 1, 1, 0));
  convs.push_back(conv_case("conv_64_128_32_s2", 64, 128, 32, 3, 2, 1));
  // Leaves that require grad for the backward rows (the forward rows use the plain tensors).
  std::vector<ConvCase> convs_rg = convs;
  for (ConvCase& c : convs_rg) {
    c.x = c.x.clone().requires_grad_(true);
    c.w = c.w.clone().requires_grad_(true);
    c.b = c.b.clone().requires_grad_(true);
  }
  // A linear layer of 4096 x 4096 on a batch of 64: forward alone, and forward + backward as above.
  auto lin_x = torch::randn({64, 4096}, f32), lin_w = torch::randn({4096, 4096}, f32) * 0.01,
       lin_b = torch::randn({4096}, f32) * 0.01, lin_gy = torch::randn({64, 4096}, f32);
  auto lin_x_rg = lin_x.clone().requires_grad_(true), lin_w_rg = lin_w.clone().requires_grad_(true),
       lin_b_rg = lin_b.clone().requires_grad_(true);
  // One training step of a wider CNN on 32x32x3 images, batch 64: three blocks of conv 3x3 pad 1,
  // BatchNorm2d, relu, max pool 2 (32, 64, 128 channels), then linear 2048->10; cross entropy, Adam.
  auto block = [](torch::nn::Sequential& seq, int64_t cin, int64_t cout) {
    seq->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(cin, cout, 3).padding(1)));
    seq->push_back(torch::nn::BatchNorm2d(cout));
    seq->push_back(torch::nn::ReLU());
    seq->push_back(torch::nn::MaxPool2d(2));
  };
  torch::nn::Sequential wide;
  block(wide, 3, 32);
  block(wide, 32, 64);
  block(wide, 64, 128);
  wide->push_back(torch::nn::Flatten());
  wide->push_back(torch::nn::Linear(2048, 10));
  wide->train();
  torch::optim::Adam wide_adam(wide->parameters(), torch::optim::AdamOptions(1e-3));
  auto images32 = torch::rand({64, 3, 32, 32}, f32);

  struct Op {
    const char* name;
    std::function<void()> fn;
    std::string label = {};  // the row's name (name, or built for the generated rows)
  };
  std::vector<Op> ops = {
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
  // The larger shapes. Names ending in _f: forward only; _fb: forward + backward.
  for (const ConvCase& c : convs) {
    ops.push_back({nullptr, [&c] {
                     torch::NoGradGuard no_grad;
                     keep(torch::conv2d(c.x, c.w, c.b, c.stride, c.padding));
                   }});
    ops.back().label = std::string(c.name) + "_f";
  }
  for (const ConvCase& c : convs_rg) {
    ops.push_back({nullptr, [&c] {
                     auto y = torch::conv2d(c.x, c.w, c.b, c.stride, c.padding);
                     for (const auto& g : torch::autograd::grad({y}, {c.x, c.w, c.b}, {c.gy})) keep(g);
                   }});
    ops.back().label = std::string(c.name) + "_fb";
  }
  ops.push_back({"linear_4096_b64_f", [&] {
                   torch::NoGradGuard no_grad;
                   keep(torch::linear(lin_x, lin_w, lin_b));
                 }});
  ops.push_back({"linear_4096_b64_fb", [&] {
                   auto y = torch::linear(lin_x_rg, lin_w_rg, lin_b_rg);
                   for (const auto& g : torch::autograd::grad({y}, {lin_x_rg, lin_w_rg, lin_b_rg}, {lin_gy})) keep(g);
                 }});
  ops.push_back({"train_step_wide_cnn_bn_adam", [&] {
                   wide_adam.zero_grad();
                   auto loss = torch::nn::functional::cross_entropy(wide->forward(images32), labels);
                   loss.backward();
                   wide_adam.step();
                   keep(loss);
                 }});
  for (Op& op : ops)
    if (op.label.empty()) op.label = op.name;

  if (list) {
    for (const Op& op : ops) std::printf("%s\n", op.label.c_str());
    return 0;
  }
  auto run = [&](const Op& op) {
    Timing t = measure(op.fn, sample_ms * 1e-3, samples);
    std::printf("RESULT\t%s\t%s\t%.1f\t%ld\t%d\n", kLibrary, op.label.c_str(), t.median_ns, t.calls_per_sample,
                t.samples);
    std::fflush(stdout);
  };
  if (serve) {
    std::string name;
    while (std::getline(std::cin, name)) {
      if (name.empty()) break;
      auto it = std::find_if(ops.begin(), ops.end(), [&](const Op& op) { return op.label == name; });
      if (it == ops.end()) {
        std::printf("MISSING\t%s\t%s\n", kLibrary, name.c_str());
        std::fflush(stdout);
      } else {
        run(*it);
      }
    }
    return static_cast<int>(g_sink & 0);
  }

  std::printf("# side_by_side: %s, %d threads, median of %d samples of ~%g ms each\n", kLibrary,
              threads, samples, sample_ms);
  std::printf("# %-20s %14s %10s\n", "op", "ns/call", "calls");
  for (const Op& op : ops) {
    if (!filter.empty() && op.label.find(filter) == std::string::npos) continue;
    run(op);
  }
  return static_cast<int>(g_sink & 0);
}
