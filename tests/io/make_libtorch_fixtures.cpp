// Writes the libtorch-archive fixtures of tests/io/libtorch_archive_test.cpp with libtorch itself
// (Debian's libtorch-dev 1.13): torch::save of a module, a tensor, a vector of tensors and an
// optimizer. Every value is arange-based, so the test checks them without libtorch. Not built by
// CMake; the files are checked in (tests/io/fixtures/libtorch_*.pt). To regenerate:
//   g++ -std=c++17 tests/io/make_libtorch_fixtures.cpp -o /tmp/make_lt \
//       -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 && /tmp/make_lt tests/io/fixtures
#include <torch/torch.h>

#include <string>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(4, 3))), bn(register_module("bn", torch::nn::BatchNorm1d(3))) {}
  torch::Tensor forward(torch::Tensor x) { return bn(fc1(x)); }
  torch::nn::Linear fc1;
  torch::nn::BatchNorm1d bn;
};
TORCH_MODULE(Net);

torch::Tensor ar(int64_t n, double scale = 0.25, double shift = -1.0) {
  return torch::arange(n, torch::kDouble).mul(scale).add(shift).to(torch::kFloat);
}

int main(int argc, char** argv) {
  const std::string out = argc > 1 ? argv[1] : ".";
  Net net;
  {
    torch::NoGradGuard no_grad;
    net->fc1->weight.copy_(ar(12).reshape({3, 4}));
    net->fc1->bias.copy_(ar(3, 0.5, 0.25));
    net->bn->weight.copy_(ar(3, 1.0, 1.0));
    net->bn->bias.copy_(ar(3, -0.5, 0.0));
    net->bn->running_mean.copy_(ar(3, 0.125, 0.5));
    net->bn->running_var.copy_(ar(3, 2.0, 1.0));
    net->bn->num_batches_tracked.fill_(7);
  }
  torch::save(net, out + "/libtorch_model.pt");
  torch::save(ar(6).reshape({2, 3}), out + "/libtorch_tensor.pt");
  torch::save(std::vector<torch::Tensor>{ar(4), torch::arange(3, torch::kLong) * 5, ar(6).reshape({3, 2}).to(torch::kDouble)},
              out + "/libtorch_vector.pt");
  torch::optim::Adam adam(net->parameters(), 0.1);
  net->forward(ar(8).reshape({2, 4})).sum().backward();
  adam.step();
  torch::save(adam, out + "/libtorch_optimizer.pt");
  return 0;
}
