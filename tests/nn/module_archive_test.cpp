// Module::save / Module::load over torch::serialize archives (src/nn/module_archive.cpp), as
// libtorch programs write them: `archive << model`, `model->save(archive)`, nested keys.
#include <cstdio>
#include <string>

#include "test_paths.h"
#include "testing.h"

using namespace locus;

namespace module_archive_test {

namespace {
struct BlockImpl : nn::Cloneable<BlockImpl> {
  BlockImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", nn::Linear(4, 3));
    act = register_module("act", nn::ReLU());  // no tensors: leaves no key
    bn = register_module("bn", nn::BatchNorm1d(3));
  }
  Tensor forward(const Tensor& x) { return bn(act(fc(x))); }
  nn::Linear fc{nullptr};
  nn::ReLU act{nullptr};
  nn::BatchNorm1d bn{nullptr};
};
LOCUS_MODULE(Block);

std::string temp_file(const std::string& name) { return std::string(LOCUS_BINARY_DIR) + "/nn-module-archive-" + name; }
}  // namespace

TEST(ModuleArchive, SaveWritesTheStateDictKeysAndLoadReadsThemBack) {
  Block a, b;
  {  // make a's running stats differ from b's
    a->train();
    a->forward(randn({8, 4}));
  }
  serialize::OutputArchive out;
  out << a;
  std::vector<std::string> keys;
  for (const auto& item : out.tensors()) keys.push_back(item.key());
  std::vector<std::string> want;
  for (const auto& item : a->state_dict()) want.push_back(item.key());
  EXPECT_EQ(keys, want);  // "fc.weight", "fc.bias", "bn.weight", ..., "bn.num_batches_tracked"
  const std::string path = temp_file("block.pt");
  out.save_to(path);

  for (const Device& d : all_devices()) {
    SCOPED_TRACE(d.str());
    b->to(d);
    serialize::InputArchive in;
    in.load_from(path);
    in >> b;
    for (const auto& item : a->state_dict()) {
      const Tensor got = b->state_dict()[item.key()];
      EXPECT_EQ(got.device(), d) << item.key();  // loaded in place: the module stays where it is
      EXPECT_TRUE(equal(got.cpu(), item.value())) << item.key();
    }
  }
  // the member form, into a fresh module
  Block c;
  serialize::InputArchive in;
  in.load_from(path);
  c->load(in);
  EXPECT_TRUE(equal(c->fc->weight, a->fc->weight));
  std::remove(path.c_str());
}

TEST(ModuleArchive, MissingKeysAndShapesAreCheckpointErrors) {
  const std::string path = temp_file("linear.pt");
  serialize::OutputArchive out;
  nn::Linear(4, 2)->save(out);
  out.save_to(path);
  serialize::InputArchive in;
  in.load_from(path);
  Block block;
  EXPECT_THROW_MSG(in >> block, CheckpointError, "[InputArchive::read] no archive 'fc' (no key starts with 'fc.')");
  nn::Linear wider(5, 2);
  EXPECT_THROW_MSG(in >> wider, CheckpointError,
                   "[Module::load] 'weight' of locus::nn::Linear has shape [2, 5] but the archive holds [2, 4]; build "
                   "the module with the options it was saved with.");
  nn::Linear no_bias(nn::LinearOptions(4, 2).bias(false));
  EXPECT_NO_THROW(in >> no_bias);  // extra keys in the archive are ignored, as libtorch's
  std::shared_ptr<nn::Module> empty;
  EXPECT_THROW_MSG(out << empty, Error, "[OutputArchive << module] the module is empty (nullptr).");
  std::remove(path.c_str());
}

namespace {
struct SkippedImpl : nn::Cloneable<SkippedImpl> {
  SkippedImpl() { reset(); }
  void reset() override { w = register_parameter("w", ones({2})); }
  bool is_serializable() const override { return false; }
  Tensor forward(const Tensor& x) { return x * w; }
  Tensor w;
};
LOCUS_MODULE(Skipped);
}  // namespace

TEST(ModuleArchive, ChildrenThatAreNotSerializableAreLeftOut) {
  nn::Sequential seq(nn::Linear(2, 2), Skipped());
  serialize::OutputArchive out;
  out << seq;
  for (const auto& item : out.tensors()) EXPECT_EQ(item.key().rfind("0.", 0), 0u) << item.key();
  EXPECT_EQ(out.tensors().size(), 2u);
}

}  // namespace module_archive_test
