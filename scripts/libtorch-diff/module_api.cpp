// Stop 53 probe: module api, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>

struct BlockImpl : torch::nn::Cloneable<BlockImpl> {
  BlockImpl(int64_t in, int64_t out) : in_(in), out_(out) { reset(); }
  void reset() override {
    fc = register_module("fc", torch::nn::Linear(in_, out_));
    bn = register_module("bn", torch::nn::BatchNorm1d(out_));
    scale = register_parameter("scale", torch::ones({out_}));
    register_buffer("steps", torch::zeros({1}, torch::kLong));
  }
  torch::Tensor forward(torch::Tensor x) { return torch::relu(bn(fc(x))) * scale; }
  int64_t in_, out_;
  torch::nn::Linear fc{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
  torch::Tensor scale;
};
TORCH_MODULE(Block);

int main() {
  torch::manual_seed(0);
  Block b(4, 3);
  std::cout << b << "\n";
  for (const auto& p : b->named_parameters()) std::cout << p.key() << " " << p.value().sizes() << "\n";
  for (const auto& p : b->named_buffers()) std::cout << p.key() << " " << p.value().sizes() << "\n";
  for (const auto& m : b->named_children()) std::cout << m.key() << " " << m.value()->name() << "\n";
  for (const auto& m : b->named_modules()) std::cout << "[" << m.key() << "] " << m.value()->name() << "\n";
  std::cout << b->modules().size() << b->modules(false).size() << b->children().size() << "\n";
  std::cout << b->is_training() << "\n";
  b->eval();
  std::cout << b->is_training() << b->bn->is_training() << "\n";
  auto c = std::dynamic_pointer_cast<BlockImpl>(b->clone());
  std::cout << (c->fc->weight.data_ptr() != b->fc->weight.data_ptr()) << torch::equal(c->fc->weight, b->fc->weight) << "\n";
  b->apply([](torch::nn::Module& m) {
    if (auto* l = m.as<torch::nn::Linear>()) {
      torch::nn::init::constant_(l->weight, 0.5);
      torch::nn::init::zeros_(l->bias);
    }
  });
  std::cout << b->fc->weight << "\n";
  torch::nn::Sequential seq({{"lin", torch::nn::Linear(3, 2)}, {"act", torch::nn::Tanh()}});
  seq->push_back("out", torch::nn::Linear(2, 1));
  std::cout << seq << "\n" << seq->size() << "\n";
  for (const auto& m : seq->named_children()) std::cout << m.key() << "\n";
  std::cout << seq->named_parameters().size() << " " << seq->named_parameters().contains("lin.weight") << "\n";
  std::cout << seq->named_parameters()["out.bias"].sizes() << "\n";
  std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>> mods{{"a", torch::nn::Linear(2, 2).ptr()}, {"b", torch::nn::ReLU().ptr()}};
  torch::nn::ModuleDict dict(mods);
  std::cout << dict << dict->size() << dict->contains("a") << "\n";
  for (const auto& k : dict->keys()) std::cout << k << " ";
  std::cout << "\n";
  torch::nn::ParameterDict pd;
  pd->insert("w", torch::ones({2}));
  std::cout << pd << pd->size() << "\n";
  torch::nn::ModuleList ml(torch::nn::Linear(1, 1), torch::nn::ReLU());
  ml->push_back(torch::nn::Sigmoid());
  std::cout << ml << ml->size() << "\n";
  for (const auto& m : *ml) std::cout << m->name() << " ";
  std::cout << "\n";
  auto params = b->parameters();
  torch::optim::Adam opt(params, torch::optim::AdamOptions(1e-3).betas({0.9, 0.99}).weight_decay(1e-2));
  std::cout << opt.param_groups().size() << opt.param_groups()[0].params().size() << "\n";
  for (auto& group : opt.param_groups())
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(1e-4);
  std::cout << static_cast<torch::optim::AdamOptions&>(opt.param_groups()[0].options()).lr() << "\n";
  std::cout << opt.defaults().get_lr() << "\n";
  auto x = torch::ones({5, 4});
  b->train();
  auto loss = b->forward(x).sum();
  opt.zero_grad();
  loss.backward();
  opt.step();
  std::cout << b->scale.grad() << "\n";
  for (auto& p : b->parameters()) p.mutable_grad() = torch::Tensor();
  std::cout << b->scale.grad().defined() << "\n";
  std::cout << torch::nn::Module().name() << "\n";
  torch::optim::SGD sgd({torch::optim::OptimizerParamGroup({b->fc->weight}), torch::optim::OptimizerParamGroup({b->scale}, std::make_unique<torch::optim::SGDOptions>(0.5))}, torch::optim::SGDOptions(0.1));
  for (auto& g : sgd.param_groups()) std::cout << static_cast<torch::optim::SGDOptions&>(g.options()).lr() << " ";
  std::cout << "\n";
  b->zero_grad();
  b->to(torch::kDouble);
  std::cout << b->fc->weight.dtype() << "\n";  // (libtorch also casts the long buffer; locus, as Python, does not)
  std::cout << b->named_parameters(false).size() << b->parameters(true).size() << "\n";
  b->unregister_module("bn");
  std::cout << b << "\n";
}
