// Stop 53 probe: containers any, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
struct Twice : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x * 2; }
  void pretty_print(std::ostream& os) const override { os << "Twice(factor=2)"; }
};
int main() {
  torch::nn::AnyModule any(torch::nn::Linear(2, 3));
  std::cout << any.forward(torch::ones({1, 2})).sizes() << any.ptr()->name() << any.is_empty() << "\n";
  torch::nn::AnyModule tw(std::make_shared<Twice>());
  std::cout << tw.forward(torch::ones({2})) << "\n";
  torch::nn::Sequential seq(torch::nn::Linear(2, 2), torch::nn::Functional(torch::relu), torch::nn::Functional([](torch::Tensor x) { return x + 1; }));
  seq->push_back(std::make_shared<Twice>());
  seq->push_back(any);
  std::cout << seq << "\n";
  std::cout << seq->forward(torch::ones({1, 2})).sizes() << "\n";
  torch::nn::Linear empty{nullptr};
  std::cout << empty.is_empty() << static_cast<bool>(empty) << "\n";
  auto lin = torch::nn::Linear(torch::nn::LinearOptions(2, 2).bias(false));
  std::cout << lin->named_parameters(false).size() << lin->options.in_features() << lin->options.bias() << "\n";
  auto ptr = std::dynamic_pointer_cast<torch::nn::LinearImpl>(seq->ptr(0));
  std::cout << (ptr != nullptr) << seq->ptr<torch::nn::LinearImpl>(0)->options.out_features() << "\n";
  std::cout << seq[0]->as<torch::nn::LinearImpl>()->weight.sizes() << "\n";
  torch::nn::ModuleList list;
  list->push_back(torch::nn::Linear(1, 1));
  list->push_back(std::make_shared<Twice>());
  std::cout << list << list->ptr<Twice>(1)->name() << list->is_empty() << "\n";
  auto holder = std::make_shared<torch::nn::Module>();
  holder->register_module("tw", std::make_shared<Twice>());
  std::cout << *holder << "\n";
  std::cout << holder->named_modules("root").keys().size() << holder->named_modules("root").keys()[1] << "\n";
}
