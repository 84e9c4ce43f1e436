// Model parallelism, the tutorials' "manual placement": the first half of a model on one device,
// the second half on another, and the activations moved between them with .to() in forward().
// Backward crosses back by itself: each gradient lands on its parameter's device.
//
//   example_model_parallel [--steps N]
//
// Uses opencl:0 + opencl:1 when there are two OpenCL devices (POCL_DEVICES="pthread pthread"),
// else cpu + opencl:0, else cpu + cpu. It trains the split model on a synthetic task, trains the
// same model on one device from the same seed, and checks that both end with the same parameters.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "locus/locus.h"

using namespace locus;

// front: 20 -> 64 on `first`; back: 64 -> 32 -> 4 on `second`.
struct SplitNetImpl : nn::Module {
  SplitNetImpl(Device first, Device second) : nn::Module("SplitNet"), first(first), second(second) {
    front = register_module("front", nn::Sequential(nn::Linear(20, 64), nn::ReLU()));
    back = register_module("back", nn::Sequential(nn::Linear(64, 32), nn::ReLU(), nn::Linear(32, 4)));
    front->to(first);
    back->to(second);
  }
  Tensor forward(const Tensor& x) {
    Tensor hidden = front->forward(x.to(first));  // runs on `first`
    return back->forward(hidden.to(second));     // the activations cross over; runs on `second`
  }
  Device first, second;
  nn::Sequential front{nullptr}, back{nullptr};
};
LOCUS_MODULE(SplitNet);

// Trains `model` for `steps` Adam steps on batches of a fixed synthetic task: the label is the
// largest of four fixed random projections of the input. Returns the last loss.
double train(nn::Module& model, const std::function<Tensor(const Tensor&)>& forward, Device out, int steps,
             bool verbose) {
  optim::Adam opt(model.parameters(), optim::AdamOptions(1e-2));
  manual_seed(100);
  Tensor projection = randn({20, 4});
  double last = 0;
  for (int step = 1; step <= steps; ++step) {
    Tensor x = randn({32, 20});
    Tensor y = x.matmul(projection).argmax(1);
    opt.zero_grad();
    Tensor loss = nn::functional::cross_entropy(forward(x), y.to(out));
    loss.backward();
    opt.step();
    last = loss.item<float>();
    if (verbose && (step == 1 || step % 10 == 0 || step == steps)) std::printf("step %3d  loss %.4f\n", step, last);
  }
  return last;
}

int main(int argc, char** argv) {
  int steps = 50;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--steps" && i + 1 < argc) steps = std::atoi(argv[++i]);
    else if (a == "--help") return std::printf("usage: example_model_parallel [--steps N]\n"), 0;
    else return std::fprintf(stderr, "example_model_parallel: unknown argument '%s'; see --help\n", a.c_str()), 2;
  }
  if (steps < 1) return std::fprintf(stderr, "example_model_parallel: --steps needs a number >= 1\n"), 2;

  // Pick two devices: two accelerators if there are, else cpu and one, else cpu twice.
  Device first("cpu"), second("cpu");
  int n = device_count(kOpenCL);
  if (n >= 2) first = Device("opencl:0"), second = Device("opencl:1");
  else if (n == 1) second = Device("opencl:0");
  else std::printf("note: no OpenCL device here, so both halves run on cpu (the pattern is the same)\n");
  std::printf("front on %s, back on %s\n", first.str().c_str(), second.str().c_str());

  manual_seed(0);
  SplitNet split(first, second);
  double split_loss = train(*split, [&](const Tensor& x) { return split->forward(x); }, second, steps, true);
  std::printf("front.0.weight is on %s, its gradient on %s; back.2.weight on %s\n",
              split->front->ptr(0)->parameters()[0].device().str().c_str(),
              split->front->ptr(0)->parameters()[0].grad().device().str().c_str(),
              split->back->ptr(2)->parameters()[0].device().str().c_str());

  // The same model, from the same seed, entirely on `second`.
  manual_seed(0);
  SplitNet whole(second, second);
  double whole_loss = train(*whole, [&](const Tensor& x) { return whole->forward(x); }, second, steps, false);

  double max_diff = 0;
  auto a = split->named_parameters(), b = whole->named_parameters();
  for (const auto& p : a)
    max_diff = std::max(max_diff, static_cast<double>((p.value().cpu() - b[p.key()].cpu()).abs().max().item<float>()));
  std::printf("after %d steps: loss %.5f split, %.5f on %s alone; largest parameter difference %.2e\n", steps,
              split_loss, whole_loss, second.str().c_str(), max_diff);
  if (!(max_diff < 1e-4) || std::fabs(split_loss - whole_loss) > 1e-4) {
    std::printf("MISMATCH: the split model differs from the one-device model\n");
    return 1;
  }
  std::printf("the split model equals the one-device model\n");
  return 0;
}
