// scripts/libtorch-diff: the data code of pytorch/examples/cpp/mnist (MNIST, Normalize, Stack, the
// loaders, size().value()) on small IDX files this program writes itself, and the custom-dataset
// example's loader shape. Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against
// libtorch and HDR=<locus/torch.h> against locus; the two outputs are compared line by line.
#include HDR
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

static void be32(std::ofstream& f, uint32_t v) {
  unsigned char b[4] = {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16),
                        static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
  f.write(reinterpret_cast<char*>(b), 4);
}

static void write_split(const std::string& dir, const std::string& prefix, uint32_t n, int salt) {
  std::ofstream img(dir + "/" + prefix + "-images-idx3-ubyte", std::ios::binary);
  be32(img, 0x803);
  be32(img, n);
  be32(img, 28);
  be32(img, 28);
  for (uint32_t i = 0; i < n * 28 * 28; ++i) img.put(static_cast<char>((i * 7 + salt * 13 + i / 784) % 256));
  std::ofstream lab(dir + "/" + prefix + "-labels-idx1-ubyte", std::ios::binary);
  be32(lab, 0x801);
  be32(lab, n);
  for (uint32_t i = 0; i < n; ++i) lab.put(static_cast<char>((i * 3 + salt) % 10));
}

int main() {
  std::string root = "/tmp/libtorch_diff_mnist_" + std::to_string(getpid());
  mkdir(root.c_str(), 0755);
  write_split(root, "train", 60000, 1);  // libtorch's MNIST insists on the real counts
  write_split(root, "t10k", 10000, 2);
  const int64_t kTrainBatchSize = 4096, kTestBatchSize = 1000;

  auto train_dataset = torch::data::datasets::MNIST(root)
                           .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                           .map(torch::data::transforms::Stack<>());
  const size_t train_dataset_size = train_dataset.size().value();
  auto train_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(train_dataset), kTrainBatchSize);
  std::cout << "train size " << train_dataset_size << "\n";
  size_t batch_index = 0;
  for (auto& batch : *train_loader) {
    if (batch_index++ % 5 != 0 && batch_index != 15) continue;  // batches 0, 5, 10 and the last (14)
    auto data = batch.data, targets = batch.target;
    std::cout << data.sizes() << " " << data.dtype() << " " << targets.sizes() << " " << targets.dtype() << " sum "
              << data.sum().item<double>() << " first " << data[0][0][3][5].item<float>() << " targets "
              << targets.sum().item<int64_t>() << " " << targets[1].item<int64_t>() << "\n";
  }
  auto test_dataset = torch::data::datasets::MNIST(root, torch::data::datasets::MNIST::Mode::kTest)
                          .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                          .map(torch::data::transforms::Stack<>());
  const size_t test_dataset_size = test_dataset.size().value();
  auto test_loader = torch::data::make_data_loader(std::move(test_dataset), kTestBatchSize);
  std::cout << "test size " << test_dataset_size << "\n";
  size_t seen = 0;
  for (const auto& batch : *test_loader) seen += batch.target.size(0);
  std::cout << "test seen " << seen << "\n";

  torch::data::datasets::MNIST raw(root);
  std::cout << "raw images " << raw.images().sizes() << " " << raw.images().dtype() << " max "
            << raw.images().max().item<float>() << " targets " << raw.targets().sizes() << " " << raw.is_train()
            << "\n";
  auto ex = raw.get(3);
  std::cout << "get(3) " << ex.data.sizes() << " " << ex.target.item<int64_t>() << " " << ex.data.sum().item<float>()
            << "\n";
  // the custom-dataset example's loader: RandomSampler, workers; print what the seed does not decide
  auto loader = torch::data::make_data_loader<torch::data::samplers::RandomSampler>(
      torch::data::datasets::MNIST(root).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions().batch_size(7000).workers(2));
  for (auto& batch : *loader) std::cout << "random batch " << batch.data.sizes() << "\n";
  for (const char* f : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                        "t10k-labels-idx1-ubyte"})
    std::remove((root + "/" + f).c_str());
  rmdir(root.c_str());
}
