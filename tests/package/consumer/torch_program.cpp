// A libtorch program, the tutorials' device-agnostic training loop, with one line changed:
// `#include <torch/torch.h>` became `#include <locus/torch.h>`. Everything below is libtorch
// code as written for libtorch (torch::, at::, c10::, TORCH_MODULE). tests/package/run.sh
// builds it against the installed locus and runs it on every device (argv[1]).
#include <locus/torch.h>

#include <iostream>
#include <sstream>
#include <string>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc1(register_module("fc1", torch::nn::Linear(8, 32))), fc2(register_module("fc2", torch::nn::Linear(32, 2))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, /*p=*/0.1, /*train=*/is_training());
    return torch::log_softmax(fc2->forward(x), /*dim=*/1);
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

int main(int argc, char** argv) {
  torch::manual_seed(0);
  torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  if (argc > 1) device = torch::Device(std::string(argv[1]));

  Net net;
  net->to(device);
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));

  // Two classes split by the sign of the features' sum, made on the CPU and moved, as a data
  // loader's batches are.
  torch::Tensor x = torch::randn({256, 8});
  torch::Tensor y = x.sum(1).gt(0).to(torch::kLong);
  x = x.to(device);
  y = y.to(device, /*non_blocking=*/true);
  at::Tensor same = x.to(device);  // a no-op: the same tensor, the same data_ptr
  if (same.data_ptr() != x.data_ptr()) return 3;

  float first = 0, last = 0;
  for (int epoch = 0; epoch < 60; ++epoch) {
    net->train();
    optimizer.zero_grad();
    torch::Tensor loss = torch::nll_loss(net->forward(x), y);
    loss.backward();
    optimizer.step();
    if (epoch == 0) first = loss.item<float>();
    last = loss.item<float>();
  }

  net->eval();
  torch::NoGradGuard no_grad;
  torch::Tensor correct = net->forward(x).argmax(1).eq(y).to(at::kFloat).sum();
  double accuracy = correct.item<double>() / static_cast<double>(y.size(0));
  {
    c10::DeviceGuard guard(x.device());  // the current device of x's type for this scope
  }
  c10::Device where = net->parameters()[0].device();
  // tensors print as libtorch prints them (the header selects libtorch's style)
  std::ostringstream printed;
  printed << torch::tensor({1.5, -2.25}) << "|" << torch::arange(4).reshape({2, 2});
  if (printed.str() != " 1.5000\n-2.2500\n[ CPUFloatType{2} ]| 0  1\n 2  3\n[ CPULongType{2,2} ]") {
    std::cout << "printed:\n" << printed.str() << "\n";
    return 4;
  }
  std::cout << "device=" << where << " loss " << first << " -> " << last << " accuracy " << accuracy << "\n";
  return where == x.device() && last < first && accuracy > 0.9 ? 0 : 1;
}
