// scripts/libtorch-diff: resuming from libtorch's own archives: the model and optimizer that
// tests/io/make_libtorch_fixtures.cpp saved after two steps (Adam with two groups and amsgrad,
// AdamW, SGD, RMSprop, Adagrad) are loaded with torch::load, one more step is taken, and the
// parameters and each group's lr are printed; then the optimizer is saved and
// loaded again in the build's own format and a second step taken, then the model and optimizer go
// through one archive (Module::save / Optimizer::save, as libtorch programs checkpoint) and a third
// step is taken; last, libtorch's own one-archive checkpoint is resumed. Both builds read the same
// files.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
namespace nn = torch::nn;
namespace optim = torch::optim;

struct NetImpl : nn::Module {
  NetImpl() : fc1(register_module("fc1", nn::Linear(4, 3))), bn(register_module("bn", nn::BatchNorm1d(3))) {}
  nn::Linear fc1;
  nn::BatchNorm1d bn;
};
TORCH_MODULE(Net);

std::unique_ptr<optim::Optimizer> make(const std::string& kind, Net& net) {
  if (kind == "adam") {
    std::vector<optim::OptimizerParamGroup> groups;
    groups.emplace_back(net->fc1->parameters());
    groups.emplace_back(net->bn->parameters(), std::make_unique<optim::AdamOptions>(optim::AdamOptions(0.02).betas({0.7, 0.9})));
    return std::make_unique<optim::Adam>(std::move(groups), optim::AdamOptions(0.05).betas({0.8, 0.95}).eps(1e-6).weight_decay(0.01).amsgrad(true));
  }
  if (kind == "adamw") return std::make_unique<optim::AdamW>(net->parameters(), optim::AdamWOptions(0.01).weight_decay(0.1));
  if (kind == "sgd") return std::make_unique<optim::SGD>(net->parameters(), optim::SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(1e-3));
  if (kind == "rmsprop")
    return std::make_unique<optim::RMSprop>(net->parameters(), optim::RMSpropOptions(0.01).alpha(0.9).momentum(0.5).centered(true).weight_decay(1e-3));
  return std::make_unique<optim::Adagrad>(net->parameters(), optim::AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.1).weight_decay(1e-3));
}

void step(Net& net, optim::Optimizer& opt) {
  auto x = (torch::arange(8, torch::kDouble) * 0.25 - 1).to(torch::kFloat).reshape({2, 4});
  opt.zero_grad();
  auto h = net->fc1->forward(x);
  (net->bn->forward(h).pow(3).sum() + h.pow(2).sum()).backward();
  opt.step();
}

void show(const std::string& what, Net& net, optim::Optimizer& opt) {
  std::cout << "--- " << what << "\n";
  for (auto& p : net->named_parameters()) {
    std::cout << p.key();
    auto v = p.value().detach().reshape({-1});
    for (int64_t i = 0; i < v.numel(); ++i) std::printf(" %.5f", v[i].item<double>());  // 5 decimals: float rounding of three steps
    std::cout << "\n";
  }
  for (auto& g : opt.param_groups()) std::printf("lr %.6g\n", g.options().get_lr());
}

int main() {
  std::string here = __FILE__;
  const std::string fixtures = here.substr(0, here.rfind('/')) + "/../../tests/io/fixtures/libtorch_opt_";
  for (std::string kind : {"adam", "adamw", "sgd", "rmsprop", "adagrad"}) {
    Net net;
    torch::load(net, fixtures + kind + "_model.pt");
    auto opt = make(kind, net);
    torch::load(*opt, fixtures + kind + ".pt");
    step(net, *opt);
    show(kind + ": resumed from libtorch's archives, one step", net, *opt);
    const std::string mine = "/tmp/libtorch_diff_optim_resume_" + kind + ".pt";
    torch::save(*opt, mine);
    auto again = make(kind, net);
    torch::load(*again, mine);
    std::remove(mine.c_str());
    step(net, *again);
    show(kind + ": saved and loaded in this build's format, one more step", net, *again);
    // a checkpoint as libtorch programs write one: model and optimizer in one archive
    torch::serialize::OutputArchive out;
    net->save(out);
    again->save(out);
    out.save_to(mine);
    Net net2;
    auto third = make(kind, net2);
    torch::serialize::InputArchive in;
    in.load_from(mine);
    net2->load(in);
    third->load(in);
    std::remove(mine.c_str());
    step(net2, *third);
    show(kind + ": model and optimizer through one archive, one more step", net2, *third);
  }
  // libtorch's own checkpoint archive (the Adam fixture's model and optimizer, side by side)
  Net net;
  auto opt = make("adam", net);
  torch::serialize::InputArchive in;
  in.load_from(fixtures + "checkpoint.pt");
  net->load(in);
  opt->load(in);
  step(net, *opt);
  show("adam: resumed from libtorch's one-archive checkpoint, one step", net, *opt);
  return 0;
}
