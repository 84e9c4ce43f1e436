// scripts/libtorch-diff: stop 54's probe of module and tensor tools: Module::apply's overloads
// (names, shared_ptrs), ModuleDict's edits (insert replacing, update, pop, items), 
// EmbeddingBag::from_pretrained, packed accessors, anomaly detection, the default dtype as a
// TypeMeta, addmm_.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <cstdio>
#include <iostream>
template <class T> void show(const T& x) { std::cout << x << "\n"; }
#define P(expr) std::cout << "--- " #expr "\n"; show(expr);
int main() {
  torch::manual_seed(0);
  auto net = std::make_shared<torch::nn::Module>();
  auto fc = net->register_module("fc", torch::nn::Linear(2, 3));
  auto block = net->register_module("block", torch::nn::Sequential(torch::nn::ReLU(), torch::nn::Linear(3, 1)));
  net->apply([](const std::string& name, torch::nn::Module& m) {
    std::cout << "[" << name << "] " << (m.as<torch::nn::Linear>() ? "Linear" : m.as<torch::nn::ReLU>() ? "ReLU" : "other") << "\n";
  });
  net->apply([](const std::string& name, const std::shared_ptr<torch::nn::Module>& m) {
    std::cout << "{" << name << "} " << m->parameters(false).size() << "\n";
  }, "net");
  net->apply([](torch::nn::Module& m) {
    if (auto* fc = m.as<torch::nn::Linear>()) {
      torch::NoGradGuard g;
      fc->weight.fill_(0.25);
      fc->bias.fill_(-0.5);
    }
  });
  P(block->forward(fc->forward(torch::ones({2, 2}))));
  torch::nn::ModuleDict dict;
  dict->update({{"a", std::make_shared<torch::nn::LinearImpl>(2, 2)}, {"b", std::make_shared<torch::nn::ReLUImpl>()}});
  dict->update({{"a", torch::nn::Linear(2, 5).ptr()}});  // replaces "a" in place
  P(dict->keys().size()); P((dict->at<torch::nn::LinearImpl>("a").options.out_features()));
  P(dict->named_parameters().size()); P(dict->pop("b")->as<torch::nn::ReLU>() != nullptr); P(dict->items().size()); P(dict->contains("b"));
  dict->clear(); P(dict->empty());
  auto w = torch::arange(8).reshape({4, 2}).to(torch::kFloat);
  auto bag = torch::nn::EmbeddingBag::from_pretrained(w, torch::nn::EmbeddingBagFromPretrainedOptions().mode(torch::kSum));
  P(bag(torch::tensor({{0, 1, 3}, {2, 2, 0}}))); P(bag->weight.requires_grad()); P(bag->weight.data_ptr() == w.data_ptr());
  auto t = torch::arange(6).reshape({2, 3}).to(torch::kFloat);
  auto a32 = t.packed_accessor32<float, 2>();
  a32[1][2] = 42;
  P(a32.size(1)); P(a32.stride(0)); P(t); auto tt = t.t(); P((tt.packed_accessor64<float, 2>()[2][1]));
  auto c = torch::ones({2, 2});
  c.addmm_(torch::eye(2) * 2, torch::full({2, 2}, 3.0), 0.5, 2);
  P(c);
  P(torch::get_default_dtype()); P(torch::get_default_dtype() == torch::kFloat);
  torch::set_default_dtype(caffe2::TypeMeta::Make<double>());
  P(torch::zeros({1}).dtype()); torch::set_default_dtype(caffe2::TypeMeta::Make<float>());
  P(torch::autograd::AnomalyMode::is_enabled());
  // libtorch prints the forward call's stack to stderr under anomaly mode; only stdout is compared
  std::freopen("/dev/null", "w", stderr);
  {
    torch::autograd::DetectAnomalyGuard guard;
    P(torch::autograd::AnomalyMode::is_enabled());
    auto x = torch::tensor({0.0f, 4.0f}, torch::requires_grad());
    try {
      (x.sqrt() * 0).sum().backward();
      std::cout << "no error\n";
    } catch (const std::exception& e) {
      std::string m = e.what();
      std::cout << m.substr(0, m.find("output.") + 7) << "\n";  // the message's first sentence
    }
  }
  P(torch::autograd::AnomalyMode::is_enabled());
  return 0;
}
