// scripts/libtorch-diff: torch::data: custom datasets, TensorDataset, map/transforms, make_data_loader
// in its three forms, DataLoaderOptions, workers with ordering, epochs, drop_last, errors in workers.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line. Deterministic: SequentialSampler, fixed tensors.
#include HDR
#include <chrono>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

// Example i: data [i, i + 0.5] (float), target i (int64). get() of `fail_at` throws.
struct Numbers : torch::data::datasets::Dataset<Numbers> {
  explicit Numbers(size_t n, size_t fail_at = 1000000) : n_(n), fail_at_(fail_at) {}
  torch::data::Example<> get(size_t i) override {
    if (i == fail_at_) throw std::runtime_error("example " + std::to_string(i) + " is unreadable");
    auto x = torch::tensor({static_cast<float>(i), static_cast<float>(i) + 0.5f});
    return {x, torch::tensor(static_cast<int64_t>(i))};
  }
  torch::optional<size_t> size() const override { return n_; }
  size_t n_, fail_at_;
};

// The pytorch/examples/cpp custom-dataset shape: a dataset of (image, label) with a custom type.
struct Item {
  int64_t id;
  std::string name;
};
struct Items : torch::data::datasets::Dataset<Items, Item> {
  Item get(size_t i) override { return {static_cast<int64_t>(i * 10), "item" + std::to_string(i)}; }
  torch::optional<size_t> size() const override { return 5; }
};

// A dataset whose examples have no target.
struct Plain : torch::data::datasets::Dataset<Plain, torch::data::TensorExample> {
  torch::data::TensorExample get(size_t i) override { return {torch::full({2}, static_cast<double>(i))}; }
  torch::optional<size_t> size() const override { return 5; }
};

template <typename Loader>
void show(const std::string& what, Loader& loader) {
  std::cout << "--- " << what << "\n";
  for (auto& batch : loader) {
    std::cout << "batch " << batch.data.sizes() << " targets";
    auto t = batch.target.contiguous();
    for (int64_t k = 0; k < t.numel(); ++k) std::cout << " " << t[k].template item<int64_t>();
    std::cout << " data0 " << batch.data[0][1].template item<float>() << "\n";
  }
}

int main() {
  using namespace torch::data;
  Numbers ds(10);
  std::cout << "size " << *ds.size() << "\n";
  auto e = ds.get(3);
  std::cout << "get(3) " << e.data << "\n" << e.target << "\n";
  auto raw = ds.get_batch({1, 4});
  std::cout << "get_batch " << raw.size() << " " << raw[1].target.item<int64_t>() << "\n";

  {  // (dataset, options) with a sampler type; the last batch is partial
    auto loader = make_data_loader<samplers::SequentialSampler>(Numbers(10).map(transforms::Stack<>()),
                                                                DataLoaderOptions().batch_size(4));
    show("sequential bs 4", *loader);
    show("second epoch", *loader);
    std::cout << "options " << loader->options().batch_size << " " << loader->options().workers << " "
              << loader->options().max_jobs << " " << loader->options().enforce_ordering << " "
              << loader->options().drop_last << "\n";
  }
  {  // batch_size as the options
    auto loader = make_data_loader<samplers::SequentialSampler>(Numbers(5).map(transforms::Stack<>()), 2);
    show("batch size as options", *loader);
  }
  {  // drop_last
    auto loader = make_data_loader<samplers::SequentialSampler>(Numbers(10).map(transforms::Stack<>()),
                                                                DataLoaderOptions(4).drop_last(true));
    show("drop_last", *loader);
  }
  {  // several workers: order kept with enforce_ordering (default), timeout set
    auto loader = make_data_loader<samplers::SequentialSampler>(
        Numbers(23).map(transforms::Stack<>()),
        DataLoaderOptions().batch_size(3).workers(4).max_jobs(3).timeout(std::chrono::milliseconds(5000)));
    show("workers 4", *loader);
    show("workers 4 second epoch", *loader);
    std::cout << "options " << loader->options().workers << " " << loader->options().max_jobs << " "
              << loader->options().timeout->count() << "\n";
  }
  {  // (dataset, sampler, options)
    auto loader = make_data_loader(Numbers(7).map(transforms::Stack<>()), samplers::SequentialSampler(7),
                                   DataLoaderOptions(3).workers(2));
    show("explicit sampler", *loader);
  }
  {  // batch_size larger than the dataset
    auto loader = make_data_loader<samplers::SequentialSampler>(Numbers(3).map(transforms::Stack<>()), 64);
    show("batch larger than dataset", *loader);
    auto dropping = make_data_loader<samplers::SequentialSampler>(Numbers(3).map(transforms::Stack<>()),
                                                                  DataLoaderOptions(64).drop_last(true));
    show("batch larger than dataset, drop_last", *dropping);
  }
  {  // an empty dataset
    auto loader = make_data_loader<samplers::SequentialSampler>(Numbers(0), DataLoaderOptions(4));
    size_t n = 0;
    for (auto& b : *loader) n += b.size();
    std::cout << "empty dataset batches " << n << "\n";
    auto workers = make_data_loader<samplers::SequentialSampler>(Numbers(0), DataLoaderOptions(4).workers(2));
    n = 0;
    for (auto& b : *workers) n += b.size();
    std::cout << "empty dataset with workers " << n << "\n";
  }
  {  // without Stack: a batch is a std::vector of examples; begin()/end() by hand
    auto loader = make_data_loader<samplers::SequentialSampler>(Numbers(5), 2);
    for (auto it = loader->begin(); it != loader->end(); ++it) {
      std::cout << "vector batch " << it->size() << " first " << (*it)[0].target.item<int64_t>() << "\n";
    }
    torch::data::Iterator<std::vector<Example<>>> it = loader->begin();
    std::cout << "iterator first " << (*it).size() << "\n";
  }
  {  // a custom example type
    auto loader = make_data_loader<samplers::SequentialSampler>(Items(), DataLoaderOptions(2).workers(2));
    for (auto& batch : *loader) {
      std::cout << "items";
      for (auto& item : batch) std::cout << " " << item.id << ":" << item.name;
      std::cout << "\n";
    }
  }
  {  // TensorExample and Stack<TensorExample>
    auto loader = make_data_loader<samplers::SequentialSampler>(Plain().map(transforms::Stack<TensorExample>()), 2);
    for (auto& batch : *loader) std::cout << "tensor example batch " << batch.data.sizes() << "\n";
  }
  {  // errors from get() in a worker reach the consumer
    auto loader = make_data_loader<samplers::SequentialSampler>(Numbers(10, 5).map(transforms::Stack<>()),
                                                                DataLoaderOptions(2).workers(2));
    try {
      for (auto& batch : *loader) std::cout << "got " << batch.target[0].item<int64_t>() << "\n";
    } catch (const torch::data::WorkerException& ex) {
      std::cout << "WorkerException: " << ex.what() << "\n";
      try {
        std::rethrow_exception(ex.original_exception);
      } catch (const std::runtime_error& orig) {
        std::cout << "original: " << orig.what() << "\n";
      }
    }
    auto inline_loader = make_data_loader<samplers::SequentialSampler>(Numbers(10, 5).map(transforms::Stack<>()), 2);
    try {
      for (auto& batch : *inline_loader) std::cout << "got " << batch.target[0].item<int64_t>() << "\n";
    } catch (const std::runtime_error& ex) {
      std::cout << "no workers, runtime_error: " << ex.what() << "\n";
    }
  }
  {  // RandomSampler through the default make_data_loader: every epoch a permutation
    auto loader = make_data_loader(Numbers(10).map(transforms::Stack<>()), DataLoaderOptions(4));
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::vector<int64_t> seen;
      std::vector<int64_t> sizes;
      for (auto& batch : *loader) {
        sizes.push_back(batch.target.size(0));
        for (int64_t k = 0; k < batch.target.size(0); ++k) seen.push_back(batch.target[k].item<int64_t>());
      }
      std::sort(seen.begin(), seen.end());
      std::cout << "random epoch sizes";
      for (auto s : sizes) std::cout << " " << s;
      std::cout << " sorted";
      for (auto s : seen) std::cout << " " << s;
      std::cout << "\n";
    }
  }
}
