// scripts/libtorch-diff: torch::data StatefulDataset and its loader, a BatchDataset with a StreamSampler,
// DataLoaderOptions::enforce_ordering(false), the Example<Data, NoTarget> spelling.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <algorithm>
#include <atomic>
#include <iostream>
#include <mutex>
#include <vector>

// Counts up to `total` in batches of the requested size, then says the epoch is over.
struct Counter : torch::data::datasets::StatefulDataset<Counter, torch::Tensor, size_t> {
  explicit Counter(int64_t total) : total_(total) {}
  torch::optional<torch::Tensor> get_batch(size_t batch_size) override {
    std::lock_guard<std::mutex> lock(*mu_);
    if (next_ >= total_) return torch::nullopt;
    int64_t end = std::min<int64_t>(total_, next_ + static_cast<int64_t>(batch_size));
    auto t = torch::arange(next_, end);
    next_ = end;
    return t;
  }
  torch::optional<size_t> size() const override { return static_cast<size_t>(total_); }
  void reset() override {
    next_ = 0;
    ++*resets_;
  }
  void save(torch::serialize::OutputArchive&) const override {}
  void load(torch::serialize::InputArchive&) override {}
  int64_t total_, next_ = 0;
  std::shared_ptr<std::mutex> mu_ = std::make_shared<std::mutex>();
  std::shared_ptr<int> resets_ = std::make_shared<int>(0);
};

// A stream: each request is a number of examples.
struct Stream : torch::data::datasets::BatchDataset<Stream, torch::Tensor, torch::data::samplers::BatchSize> {
  torch::Tensor get_batch(torch::data::samplers::BatchSize request) override {
    return torch::full({static_cast<int64_t>(request.size())}, 7);
  }
  torch::optional<size_t> size() const override { return 10; }
};

int main() {
  using namespace torch::data;
  {
    auto loader = make_data_loader(Counter(10), DataLoaderOptions().batch_size(4));
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::cout << "stateful epoch " << epoch << ":";
      for (auto& batch : *loader) std::cout << " " << batch.sizes() << " first " << batch[0].item<int64_t>();
      std::cout << "\n";
    }
  }
  {
    auto loader = make_data_loader(Counter(23), DataLoaderOptions().batch_size(5).workers(3));
    std::vector<int64_t> all;
    for (auto& batch : *loader)
      for (int64_t k = 0; k < batch.numel(); ++k) all.push_back(batch[k].item<int64_t>());
    std::sort(all.begin(), all.end());
    std::cout << "stateful workers: " << all.size() << " values, first " << all.front() << " last " << all.back()
              << "\n";
  }
  {  // a map over a stateful dataset is stateful; a shared dataset keeps one instance for every copy
    auto mapped = Counter(7).map(transforms::BatchLambda<torch::Tensor, torch::Tensor>([](torch::Tensor t) {
      return t * 10;
    }));
    auto loader = make_data_loader(std::move(mapped), DataLoaderOptions(3));
    std::cout << "mapped stateful:";
    for (auto& batch : *loader) std::cout << " " << batch.sum().item<int64_t>();
    std::cout << "\n";
    auto shared = datasets::make_shared_dataset<Counter>(5);
    auto copy = shared;
    auto shared_loader = make_data_loader(shared, DataLoaderOptions(2));
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::cout << "shared stateful:";
      for (auto& batch : *shared_loader) std::cout << " " << batch.numel();
      std::cout << " resets " << *copy->resets_ << " next " << (*copy).next_ << "\n";
    }
  }
  {
    auto loader = make_data_loader(Stream(), samplers::StreamSampler(10), DataLoaderOptions(4));
    std::cout << "stream:";
    for (auto& batch : *loader) std::cout << " " << batch.sizes();
    std::cout << "\n";
    auto typed = make_data_loader<samplers::StreamSampler>(Stream(), DataLoaderOptions(3));
    std::cout << "stream typed:";
    for (auto& batch : *typed) std::cout << " " << batch.numel();
    std::cout << "\n";
  }
  {
    struct Numbers : datasets::Dataset<Numbers, Example<torch::Tensor, example::NoTarget>> {
      Example<torch::Tensor, example::NoTarget> get(size_t i) override { return {torch::tensor(static_cast<int64_t>(i))}; }
      torch::optional<size_t> size() const override { return 31; }
    };
    auto loader = make_data_loader<samplers::SequentialSampler>(
        Numbers().map(transforms::Stack<TensorExample>()),
        DataLoaderOptions(4).workers(3).enforce_ordering(false));
    std::vector<int64_t> all;
    size_t batches = 0;
    for (auto& batch : *loader) {
      ++batches;
      for (int64_t k = 0; k < batch.data.numel(); ++k) all.push_back(batch.data[k].item<int64_t>());
    }
    std::sort(all.begin(), all.end());
    bool complete = all.size() == 31;
    for (size_t k = 0; complete && k < all.size(); ++k) complete = all[k] == static_cast<int64_t>(k);
    std::cout << "unordered: batches " << batches << " complete " << complete << "\n";
    TensorExample te(torch::ones({2}));
    torch::Tensor& as_tensor = te;
    std::cout << "tensor example converts " << as_tensor.sum().item<float>() << "\n";
  }
}
