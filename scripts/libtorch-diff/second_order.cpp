// scripts/libtorch-diff: Second derivatives (autograd::grad twice) through 36 ops.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
#include <functional>
int main() {
  auto x0 = torch::tensor({0.3, 0.7, 1.2}, torch::kDouble);
  std::vector<std::pair<const char*, std::function<torch::Tensor(torch::Tensor)>>> fs = {
    {"exp", [](torch::Tensor x) { return x.exp(); }}, {"sigmoid", [](torch::Tensor x) { return x.sigmoid(); }},
    {"tanh", [](torch::Tensor x) { return x.tanh(); }}, {"sqrt", [](torch::Tensor x) { return x.sqrt(); }},
    {"softmax", [](torch::Tensor x) { return x.softmax(0) * torch::tensor({1.0, 2.0, 3.0}, torch::kDouble); }},
    {"log_softmax", [](torch::Tensor x) { return x.log_softmax(0) * torch::tensor({1.0, 2.0, 3.0}, torch::kDouble); }},
    {"rsqrt", [](torch::Tensor x) { return x.rsqrt(); }}, {"reciprocal", [](torch::Tensor x) { return x.reciprocal(); }},
    {"expm1", [](torch::Tensor x) { return x.expm1(); }}, {"exp2", [](torch::Tensor x) { return x.exp2(); }},
    {"pow", [](torch::Tensor x) { return x.pow(3); }}, {"powt", [](torch::Tensor x) { return torch::pow(2.0, x); }},
    {"div", [](torch::Tensor x) { return 1.0 / x; }}, {"log", [](torch::Tensor x) { return x.log(); }},
    {"elu", [](torch::Tensor x) { return torch::nn::functional::elu(x - 1); }}, {"selu", [](torch::Tensor x) { return torch::nn::functional::selu(x - 1); }},
    {"softplus", [](torch::Tensor x) { return torch::softplus(x); }}, {"gelu", [](torch::Tensor x) { return torch::gelu(x); }},
    {"silu", [](torch::Tensor x) { return torch::silu(x); }}, {"mish", [](torch::Tensor x) { return torch::mish(x); }},
    {"logsigmoid", [](torch::Tensor x) { return torch::log_sigmoid(x); }}, {"norm", [](torch::Tensor x) { return x.norm() * x; }},
    {"std", [](torch::Tensor x) { return x.std() * x; }}, {"cumprod", [](torch::Tensor x) { return x.cumprod(0); }},
    {"prod", [](torch::Tensor x) { return x.prod() * x; }}, {"logsumexp", [](torch::Tensor x) { return x.logsumexp(0) * x; }},
    {"atan", [](torch::Tensor x) { return x.atan(); }}, {"erf", [](torch::Tensor x) { return x.erf(); }},
    {"sinh", [](torch::Tensor x) { return x.sinh(); }}, {"cosh", [](torch::Tensor x) { return x.cosh(); }},
    {"tan", [](torch::Tensor x) { return x.tan(); }}, {"asin", [](torch::Tensor x) { return (x / 2).asin(); }},
    {"lgamma", [](torch::Tensor x) { return x.lgamma(); }}, {"digamma", [](torch::Tensor x) { return x.digamma(); }},
    {"hardswish", [](torch::Tensor x) { return torch::hardswish(x); }}, {"normalize", [](torch::Tensor x) { return torch::nn::functional::normalize(x, torch::nn::functional::NormalizeFuncOptions().dim(0)); }},
  };
  for (auto& [name, f] : fs) {
    try {
    auto x = x0.clone().requires_grad_(true);
    auto y = f(x);
    auto g = torch::autograd::grad({(y * y).sum()}, {x}, {}, true, true)[0];
    if (!g.requires_grad()) { std::cout << name << ": first-order grad has no graph\n"; continue; }
    auto h = torch::autograd::grad({g.sum()}, {x})[0];
    std::cout << name << ": " << h[0].item<double>() << " " << h[1].item<double>() << " " << h[2].item<double>() << std::endl;
    } catch (const std::exception& e) { std::cout << name << ": error " << std::string(e.what()).substr(0, 80) << std::endl; }
  }
}
