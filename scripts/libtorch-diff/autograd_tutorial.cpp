// Stop 53 probe: autograd tutorial, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
using namespace torch::autograd;

class LinearFunction : public Function<LinearFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor input, torch::Tensor weight, torch::Tensor bias = torch::Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    auto output = input.mm(weight.t());
    if (bias.defined()) output += bias.unsqueeze(0).expand_as(output);
    return output;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto input = saved[0];
    auto weight = saved[1];
    auto bias = saved[2];
    auto grad_output = grad_outputs[0];
    auto grad_input = grad_output.mm(weight);
    auto grad_weight = grad_output.t().mm(input);
    auto grad_bias = torch::Tensor();
    if (bias.defined()) grad_bias = grad_output.sum(0);
    return {grad_input, grad_weight, grad_bias};
  }
};

class MulConstant : public Function<MulConstant> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), torch::Tensor()};
  }
};

int main() {
  auto x = torch::ones({2, 2}, torch::requires_grad());
  std::cout << x << std::endl;
  auto y = x + 2;
  std::cout << y << std::endl;
  std::cout << y.grad_fn()->name() << std::endl;
  auto z = y * y * 3;
  auto out = z.mean();
  std::cout << z << std::endl;
  std::cout << z.grad_fn()->name() << std::endl;
  std::cout << out << std::endl;
  std::cout << out.grad_fn()->name() << std::endl;
  auto a = torch::arange(4.).view({2, 2});
  a = ((a * 3) / (a - 1));
  std::cout << a.requires_grad() << std::endl;
  a.requires_grad_(true);
  std::cout << a.requires_grad() << std::endl;
  auto b = (a * a).sum();
  std::cout << b.grad_fn()->name() << std::endl;
  out.backward();
  std::cout << x.grad() << std::endl;
  x = torch::tensor({0.5, -1.0, 2.0}, torch::requires_grad());
  y = x * 2;
  while (y.norm().item<double>() < 1000) y = y * 2;
  std::cout << y << std::endl;
  std::cout << y.grad_fn()->name() << std::endl;
  auto v = torch::tensor({0.1, 1.0, 0.0001}, torch::kFloat);
  y.backward(v);
  std::cout << x.grad() << std::endl;
  std::cout << x.requires_grad() << std::endl;
  std::cout << x.pow(2).requires_grad() << std::endl;
  {
    torch::NoGradGuard no_grad;
    std::cout << x.pow(2).requires_grad() << std::endl;
  }
  std::cout << x.requires_grad() << std::endl;
  y = x.detach();
  std::cout << y.requires_grad() << std::endl;
  std::cout << x.eq(y).all().item<bool>() << std::endl;

  auto xx = torch::arange(6., torch::requires_grad()).view({2, 3});
  auto w = torch::full({4, 3}, 0.5, torch::requires_grad());
  auto bb = torch::ones({4}, torch::requires_grad());
  auto o = LinearFunction::apply(xx, w, bb);
  o.sum().backward();
  std::cout << o << w.grad() << bb.grad() << std::endl;
  auto xm = torch::tensor({1., 2.}, torch::requires_grad());
  auto ym = MulConstant::apply(xm, 5.5);
  ym.sum().backward();
  std::cout << xm.grad() << std::endl;
  auto g = torch::autograd::grad({(xm * xm).sum()}, {xm}, /*grad_outputs=*/{}, /*retain_graph=*/true, /*create_graph=*/true);
  std::cout << g[0] << g[0].requires_grad() << std::endl;
  auto h = xm.clone();
  h.register_hook([](torch::Tensor gr) { return gr * 2; });
  (h * 3).sum().backward();
  std::cout << xm.grad() << std::endl;
  xm.grad().zero_();
  std::cout << xm.grad() << xm.is_leaf() << h.is_leaf() << std::endl;
  h.retain_grad();
  (h * h).sum().backward();
  std::cout << h.grad() << std::endl;
}
