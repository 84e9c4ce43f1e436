// Stop 53 probe: optimizers closure, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
#include <iomanip>
int main() {
  std::cout << std::setprecision(6);
  auto w = torch::tensor({1.0, -2.0, 3.0}, torch::requires_grad());
  auto loss_fn = [&] { return (w * w).sum(); };
  {
    torch::optim::SGD opt({w}, torch::optim::SGDOptions(0.1).momentum(0.9).dampening(0.1).weight_decay(0.01));
    torch::optim::StepLR sched(opt, 2, 0.5);
    for (int i = 0; i < 5; ++i) {
      opt.zero_grad();
      auto l = loss_fn();
      l.backward();
      opt.step();
      sched.step();
      std::cout << l.item<double>() << " " << opt.param_groups()[0].options().get_lr() << "\n";
    }
  }
  w = torch::tensor({1.0, -2.0, 3.0}, torch::requires_grad());
  {
    torch::optim::RMSprop opt({w}, torch::optim::RMSpropOptions(0.01).alpha(0.9).centered(true).momentum(0.5));
    for (int i = 0; i < 3; ++i) {
      auto l = opt.step([&] { opt.zero_grad(); auto l = loss_fn(); l.backward(); return l; });
      std::cout << l.item<double>() << "\n";
    }
  }
  w = torch::tensor({1.0, -2.0, 3.0}, torch::requires_grad());
  {
    torch::optim::Adagrad opt({w}, torch::optim::AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.1));
    for (int i = 0; i < 3; ++i) {
      opt.zero_grad(); auto l = loss_fn(); l.backward(); opt.step();
    }
    std::cout << w << "\n";
  }
  w = torch::tensor({1.0, -2.0, 3.0}, torch::requires_grad());
  {
    torch::optim::AdamW opt({w}, torch::optim::AdamWOptions(0.01).amsgrad(true).weight_decay(0.1));
    for (int i = 0; i < 3; ++i) {
      opt.zero_grad(); auto l = loss_fn(); l.backward(); opt.step();
    }
    std::cout << w << "\n";
  }
  w = torch::tensor({1.0, -2.0, 3.0}, torch::requires_grad());
  {
    torch::optim::LBFGS opt({w}, torch::optim::LBFGSOptions(0.5).max_iter(5).line_search_fn("strong_wolfe"));
    auto l = opt.step([&] { opt.zero_grad(); auto l = loss_fn(); l.backward(); return l; });
    std::cout << l.item<double>() << " " << w << "\n";
  }
  auto p = torch::tensor({3.0, 4.0}, torch::requires_grad());
  (p * p).sum().backward();
  std::cout << torch::nn::utils::clip_grad_norm_({p}, 1.0) << " " << p.grad() << "\n";
  torch::nn::utils::clip_grad_value_({p}, 0.1);
  std::cout << p.grad() << "\n";
  std::cout << torch::nn::utils::parameters_to_vector({p, p}) << "\n";
}
