// scripts/libtorch-diff: torch::data samplers (next/reset/index, the distributed ones, StreamSampler,
// save/load), TensorDataset, transforms (Normalize, Lambda, TensorLambda, BatchLambda, Collate, Stack).
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line. Random samplers print only what the seed does not
// decide (that each epoch is a permutation, the sizes).
#include HDR
#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

template <typename S>
void drain(const std::string& what, S& s, size_t bs) {
  std::cout << what << ":";
  while (auto idx = s.next(bs)) {
    std::cout << " [";
    for (size_t k = 0; k < idx->size(); ++k) std::cout << (k ? " " : "") << (*idx)[k];
    std::cout << "]";
  }
  std::cout << "\n";
}

template <typename S>
void perm(const std::string& what, S& s, size_t bs, size_t n) {
  std::vector<size_t> all;
  std::vector<size_t> sizes;
  while (auto idx = s.next(bs)) {
    sizes.push_back(idx->size());
    all.insert(all.end(), idx->begin(), idx->end());
  }
  std::sort(all.begin(), all.end());
  bool is_perm = all.size() == n;
  for (size_t k = 0; is_perm && k < n; ++k) is_perm = all[k] == k;
  std::cout << what << ": sizes";
  for (auto z : sizes) std::cout << " " << z;
  std::cout << " permutation " << is_perm << "\n";
}

int main() {
  using namespace torch::data;
  samplers::SequentialSampler seq(7);
  std::cout << "seq index " << seq.index() << "\n";
  drain("seq 3", seq, 3);
  std::cout << "seq index " << seq.index() << "\n";
  seq.reset();
  drain("seq reset", seq, 4);
  seq.reset(3);
  drain("seq reset(3)", seq, 2);
  seq.reset(5);
  seq.next(2);
  // archives through a file (locus's archives have no std::ostream overloads)
  const std::string path = "/tmp/libtorch_diff_data_sampler.pt", rpath = "/tmp/libtorch_diff_data_rsampler.pt";
  {
    torch::serialize::OutputArchive archive;
    seq.save(archive);
    archive.save_to(path);
  }
  samplers::SequentialSampler restored(5);
  {
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    restored.load(archive);
  }
  std::cout << "restored index " << restored.index() << "\n";
  drain("restored", restored, 2);

  samplers::RandomSampler rnd(10);
  std::cout << "rnd index " << rnd.index() << "\n";
  perm("random 4", rnd, 4, 10);
  std::cout << "rnd index " << rnd.index() << "\n";
  rnd.reset();
  perm("random reset", rnd, 3, 10);
  rnd.reset(6);
  perm("random reset(6)", rnd, 4, 6);
  rnd.reset(6);
  rnd.next(2);
  {
    torch::serialize::OutputArchive archive;
    rnd.save(archive);
    archive.save_to(rpath);
  }
  samplers::RandomSampler rnd2(6);
  {
    torch::serialize::InputArchive archive;
    archive.load_from(rpath);
    rnd2.load(archive);
  }
  std::cout << "rnd restored index " << rnd2.index() << "\n";
  auto a = rnd.next(10), b = rnd2.next(10);
  std::cout << "rnd restored continues alike " << (*a == *b) << " " << a->size() << "\n";

  for (size_t rank = 0; rank < 3; ++rank) {
    samplers::DistributedSequentialSampler d(10, 3, rank);
    drain("dist seq rank " + std::to_string(rank), d, 2);
    samplers::DistributedSequentialSampler nd(10, 3, rank, false);
    drain("dist seq no dup rank " + std::to_string(rank), nd, 2);
  }
  samplers::DistributedSequentialSampler d1(5);
  drain("dist seq 1 replica", d1, 2);
  std::cout << "dist index " << d1.index() << " epoch " << d1.epoch() << "\n";
  d1.set_epoch(3);
  d1.reset();
  drain("dist seq epoch 3", d1, 5);
  for (size_t rank = 0; rank < 2; ++rank) {
    samplers::DistributedRandomSampler r(9, 2, rank);
    std::vector<size_t> sizes;
    while (auto idx = r.next(2)) sizes.push_back(idx->size());
    std::cout << "dist random rank " << rank << " sizes";
    for (auto z : sizes) std::cout << " " << z;
    std::cout << " index " << r.index() << "\n";
  }
  for (size_t rank = 0; rank < 3; ++rank) {  // std::mt19937(epoch) and std::shuffle: no global seed involved
    samplers::DistributedRandomSampler r(10, 3, rank);
    drain("dist random 10/3 rank " + std::to_string(rank), r, 3);
    r.set_epoch(2);
    r.reset();
    drain("dist random epoch 2", r, 3);
    samplers::DistributedRandomSampler nd(10, 3, rank, false);
    drain("dist random no dup", nd, 3);
  }
  samplers::DistributedRandomSampler r1(8);
  perm("dist random 1 replica", r1, 3, 8);
  r1.set_epoch(1);
  r1.reset();
  perm("dist random epoch 1", r1, 3, 8);

  {
    samplers::DistributedRandomSampler r(10, 2, 1);
    r.set_epoch(4);
    r.reset();
    r.next(2);
    torch::serialize::OutputArchive archive;
    r.save(archive);
    archive.save_to(path);
    samplers::DistributedRandomSampler back(10, 2, 1);
    torch::serialize::InputArchive in;
    in.load_from(path);
    back.load(in);
    std::cout << "dist random restored epoch " << back.epoch() << " index " << back.index() << "\n";
    drain("dist random restored", back, 10);
    drain("dist random original", r, 10);
  }
  samplers::StreamSampler stream_sampler(10);
  std::cout << "stream:";
  while (auto n = stream_sampler.next(4)) std::cout << " " << n->size();
  std::cout << "\n";
  stream_sampler.reset(5);
  std::cout << "stream reset(5):";
  while (auto n = stream_sampler.next(3)) std::cout << " " << static_cast<size_t>(*n);
  std::cout << "\n";

  // TensorDataset
  auto data = torch::arange(12).reshape({6, 2}).to(torch::kFloat);
  datasets::TensorDataset tds(data);
  std::cout << "tensor dataset size " << *tds.size() << "\n" << tds.get(2).data << "\n";
  auto tloader = make_data_loader<samplers::SequentialSampler>(datasets::TensorDataset(data), 4);
  for (auto& batch : *tloader) std::cout << "tensor dataset batch " << batch.size() << " " << batch[0].data << "\n";

  // transforms
  struct Imgs : datasets::Dataset<Imgs> {
    Example<> get(size_t i) override {
      return {torch::arange(8).reshape({2, 2, 2}).to(torch::kFloat) + static_cast<double>(i),
              torch::tensor(static_cast<int64_t>(i))};
    }
    torch::optional<size_t> size() const override { return 3; }
  };
  auto norm = Imgs().map(transforms::Normalize<>({0.5, 1.0}, {2.0, 4.0})).map(transforms::Stack<>());
  auto nb = norm.get_batch({0, 2});
  std::cout << "normalize per channel\n" << nb.data << "\n" << nb.target << "\n";
  auto norm1 = Imgs().map(transforms::Normalize<>(1.0, 0.5));
  std::cout << "normalize scalar\n" << norm1.get_batch({1})[0].data << "\n";
  auto tl = Imgs().map(transforms::TensorLambda<>([](torch::Tensor x) { return x * 2; })).map(transforms::Stack<>());
  std::cout << "tensor lambda " << tl.get_batch({1}).data.sum().item<float>() << "\n";
  auto l = Imgs().map(transforms::Lambda<Example<>>([](Example<> e) {
    return Example<>(e.data.sum(), e.target + 100);
  }));
  auto lb = l.get_batch({0, 1});
  std::cout << "lambda " << lb[1].data.item<float>() << " " << lb[1].target.item<int64_t>() << "\n";
  auto bl = Imgs().map(transforms::BatchLambda<std::vector<Example<>>, torch::Tensor>(
      [](std::vector<Example<>> v) { return torch::tensor(static_cast<int64_t>(v.size())); }));
  std::cout << "batch lambda " << bl.get_batch({0, 1, 2}).item<int64_t>() << "\n";
  auto col = Imgs().map(transforms::Collate<Example<>>([](std::vector<Example<>> v) {
    return Example<>(v.front().data, v.back().target);
  }));
  std::cout << "collate " << col.get_batch({0, 2}).target.item<int64_t>() << "\n";
  auto both = Imgs().map(transforms::Normalize<>(0, 1)).map(transforms::Stack<>());
  auto loader = make_data_loader<samplers::SequentialSampler>(std::move(both), DataLoaderOptions(2).workers(1));
  for (auto& batch : *loader) std::cout << "mapped loader " << batch.data.sizes() << " " << batch.target.sizes() << "\n";
}
