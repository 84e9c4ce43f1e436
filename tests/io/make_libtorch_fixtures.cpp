// Writes the libtorch-archive fixtures of tests/io/serialize_test.cpp with libtorch itself
// (Debian's libtorch-dev 1.13): torch::save of a module, a tensor, a vector of tensors and an
// optimizer. Every value is arange-based, so the test checks them without libtorch. For each of
// libtorch's optimizers (libtorch_opt_<name>*.pt): the model and the optimizer archive after two
// training steps, and the parameters after a third (the values a resumed locus run must reach);
// for Adam also one archive holding the model and the optimizer (libtorch_opt_checkpoint.pt). Not built by
// CMake; the files are checked in (tests/io/fixtures/libtorch_*.pt). To regenerate:
//   g++ -std=c++17 tests/io/make_libtorch_fixtures.cpp -o /tmp/make_lt \
//       -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 && /tmp/make_lt tests/io/fixtures
#include <torch/torch.h>

#include <memory>
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

// The step every optimizer fixture takes: loss = sum(bn(h)^3) + sum(h^2), h = fc1(x), on a fixed
// batch (BatchNorm in training mode, so its running statistics move too; the second term keeps
// fc1's gradients well away from zero, where BatchNorm alone leaves them, so that Adam's
// normalised steps compare to rounding).
torch::Tensor fixture_loss(Net& net) {
  torch::Tensor h = net->fc1->forward(ar(8).reshape({2, 4}));
  return net->bn->forward(h).pow(3).sum() + h.pow(2).sum();
}

template <class MakeOptimizer>
void optimizer_fixture(const std::string& out, const std::string& name, MakeOptimizer make) {
  Net net;
  {
    torch::NoGradGuard no_grad;
    int64_t k = 0;
    for (auto& p : net->parameters()) p.copy_(ar(p.numel(), 0.125, -0.3 + 0.1 * static_cast<double>(k++)).reshape(p.sizes()));
  }
  auto opt = make(net);
  auto step = [&] {
    opt->zero_grad();
    fixture_loss(net).backward();
    opt->step();
  };
  step();
  step();
  torch::save(net, out + "/libtorch_opt_" + name + "_model.pt");
  torch::save(*opt, out + "/libtorch_opt_" + name + ".pt");
  if (name == "adam") {  // a checkpoint in one archive: the model and the optimizer side by side, and nested
    torch::serialize::OutputArchive archive, nested;
    net->save(archive);
    opt->save(archive);
    opt->save(nested);
    archive.write("optimizer", nested);
    archive.save_to(out + "/libtorch_opt_checkpoint.pt");
  }
  step();
  std::vector<torch::Tensor> next;
  for (auto& p : net->parameters()) next.push_back(p.detach().clone());
  torch::save(next, out + "/libtorch_opt_" + name + "_next.pt");
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

  namespace optim = torch::optim;
  // two param groups (fc1's and bn's), options other than the defaults, amsgrad
  optimizer_fixture(out, "adam", [](Net& n) {
    std::vector<optim::OptimizerParamGroup> groups;
    groups.emplace_back(n->fc1->parameters());
    groups.emplace_back(n->bn->parameters(), std::make_unique<optim::AdamOptions>(optim::AdamOptions(0.02).betas({0.7, 0.9})));
    return std::make_unique<optim::Adam>(std::move(groups),
                                         optim::AdamOptions(0.05).betas({0.8, 0.95}).eps(1e-6).weight_decay(0.01).amsgrad(true));
  });
  optimizer_fixture(out, "adamw", [](Net& n) {
    return std::make_unique<optim::AdamW>(n->parameters(), optim::AdamWOptions(0.01).weight_decay(0.1));
  });
  optimizer_fixture(out, "sgd", [](Net& n) {
    return std::make_unique<optim::SGD>(n->parameters(), optim::SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(1e-3));
  });
  optimizer_fixture(out, "rmsprop", [](Net& n) {
    return std::make_unique<optim::RMSprop>(n->parameters(),
                                            optim::RMSpropOptions(0.01).alpha(0.9).momentum(0.5).centered(true).weight_decay(1e-3));
  });
  optimizer_fixture(out, "adagrad", [](Net& n) {
    return std::make_unique<optim::Adagrad>(n->parameters(),
                                            optim::AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.1).weight_decay(1e-3));
  });
  // (libtorch 1.13 cannot save an LBFGS: its archive aborts on an undefined tensor of the state)
  return 0;
}
