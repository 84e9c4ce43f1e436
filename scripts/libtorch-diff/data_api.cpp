// Stop 53 probe: data api, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
int main() {
  auto xs = torch::arange(20, torch::kFloat).view({10, 2});
  auto ds = torch::data::datasets::TensorDataset(xs).map(torch::data::transforms::Stack<torch::data::TensorExample>());
  auto loader = torch::data::make_data_loader(std::move(ds), 4);
  int n = 0;
  for (auto& b : *loader) { std::cout << b.data.sizes() << " "; ++n; }
  std::cout << n << "\n";
  torch::data::samplers::SequentialSampler seq(5);
  auto idx = seq.next(3);
  std::cout << idx->size() << (*idx)[2] << "\n";
  seq.reset();
  torch::data::samplers::DistributedSequentialSampler dss(10, 2, 1);
  auto d = dss.next(10);
  for (auto i : *d) std::cout << i << " ";
  std::cout << "\n";
  torch::data::samplers::DistributedRandomSampler drs(10, 2, 0, false);
  drs.set_epoch(1);
  std::cout << drs.next(100)->size() << "\n";
  torch::data::samplers::RandomSampler rs(6);
  std::cout << rs.next(10)->size() << "\n";
  auto opts = torch::data::DataLoaderOptions(3).workers(0).drop_last(true).enforce_ordering(true);
  std::cout << opts.batch_size() << opts.drop_last() << "\n";
  std::vector<torch::data::Example<>> batch{{torch::ones(2), torch::zeros(1)}, {torch::ones(2), torch::ones(1)}};
  auto stacked = torch::data::transforms::Stack<>().apply_batch(batch);
  std::cout << stacked.data.sizes() << stacked.target.sizes() << "\n";
  auto norm = torch::data::transforms::Normalize<>(0.5, 0.25);
  std::cout << norm(torch::ones({1, 2, 2})) << "\n";
}
