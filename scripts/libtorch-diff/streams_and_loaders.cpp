// Stop 53 probe: streams and loaders, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
#include <sstream>
#include <fstream>

struct MyDataset : torch::data::datasets::Dataset<MyDataset> {
  torch::Tensor xs, ys;
  MyDataset() : xs(torch::arange(40, torch::kFloat).view({10, 4})), ys(torch::arange(10) % 3) {}
  torch::data::Example<> get(size_t i) override { return {xs[i], ys[i]}; }
  torch::optional<size_t> size() const override { return 10; }
};

int main() {
  auto ds = MyDataset().map(torch::data::transforms::Lambda<torch::data::Example<>>([](torch::data::Example<> e) {
    return torch::data::Example<>{e.data * 2, e.target};
  })).map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(std::move(ds), torch::data::DataLoaderOptions().batch_size(4));
  for (auto& batch : *loader) std::cout << batch.data.sizes() << batch.target << "\n";
  auto t = torch::arange(6, torch::kFloat).view({2, 3});
  auto acc = t.accessor<float, 2>();
  float s = 0;
  for (int i = 0; i < acc.size(0); ++i) for (int j = 0; j < acc.size(1); ++j) s += acc[i][j];
  std::cout << s << "\n";
  std::stringstream ss;
  torch::save(t, ss);
  torch::Tensor u;
  torch::load(u, ss);
  std::cout << u << "\n";
  std::vector<torch::Tensor> vs{t, t * 2};
  torch::save(vs, "/tmp/locus-diff-vs.pt");
  std::vector<torch::Tensor> ws;
  torch::load(ws, "/tmp/locus-diff-vs.pt");
  std::cout << ws.size() << ws[1] << "\n";
  int deleted = 0;
  {
    float* buf = new float[4]{1, 2, 3, 4};
    auto b = torch::from_blob(buf, {4}, [&deleted](void* p) { delete[] static_cast<float*>(p); ++deleted; });
    std::cout << b.sum() << deleted << "\n";
  }
  std::cout << deleted << "\n";
  torch::serialize::OutputArchive ar;
  ar.write("w", t);
  ar.write("lr", torch::tensor(0.1));
  ar.save_to("/tmp/locus-diff-ar.pt");
  torch::serialize::InputArchive in;
  in.load_from("/tmp/locus-diff-ar.pt");
  torch::Tensor w;
  in.read("w", w);
  std::cout << w.sum() << in.keys().size() << "\n";
  torch::nn::Linear lin(3, 2);
  torch::save(lin, "/tmp/locus-diff-lin.pt");
  torch::nn::Linear lin2(3, 2);
  torch::load(lin2, "/tmp/locus-diff-lin.pt");
  std::cout << torch::equal(lin->weight, lin2->weight) << "\n";
  torch::optim::Adam opt(lin->parameters());
  lin(t).sum().backward();
  opt.step();
  torch::save(opt, "/tmp/locus-diff-opt.pt");
  torch::optim::Adam opt2(lin2->parameters());
  torch::load(opt2, "/tmp/locus-diff-opt.pt");
  std::cout << opt2.state().size() << "\n";
}
