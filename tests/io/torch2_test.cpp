// Checkpoints written by PyTorch 2.x (tests/io/make_torch2_fixtures.py): extra records
// (.data/serialization_id, .format_version, .storage_alignment), 64-byte aligned storages, and
// _rebuild_tensor_v3 over untyped storages for the dtypes locus refuses (naming the tensor); and its
// legacy format.
#include "test_paths.h"
#include "testing.h"

using namespace locus;
using namespace std::string_literals;

namespace torch2_test {

namespace {

const std::string kDir = std::string(LOCUS_SOURCE_DIR) + "/tests/io/fixtures/";

void expect_same(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  ASSERT_EQ(a.scalar_type(), b.scalar_type()) << what;
  EXPECT_TRUE(a.cpu().equal(b.cpu())) << what << "\n" << a << "\n" << b;
}

Tensor ar(int64_t n, ScalarType dt, double scale = 0.25, double shift = -1.0) {
  return (arange(n, TensorOptions().dtype(kDouble)) * scale + shift).to(dt);
}

class Torch2Checkpoint : public ::testing::TestWithParam<Device> {};

TEST_P(Torch2Checkpoint, StateDictDtypesAndCheckpoint) {
  const Device dev = GetParam();
  StateDict m = load(kDir + "torch2_model.pt", dev);
  ASSERT_EQ(m.size(), 7u);
  EXPECT_EQ(m["0.weight"].device(), dev);
  expect_same(m["0.weight"], ar(12, kFloat).reshape({3, 4}), "0.weight");
  expect_same(m["0.bias"], ar(3, kFloat, 0.5, 0.0), "0.bias");
  expect_same(m["1.running_var"], ar(3, kFloat, 1.0, 2.0), "1.running_var");
  EXPECT_EQ(m["1.num_batches_tracked"].item<int64_t>(), 7);

  StateDict d = load(kDir + "torch2_dtypes.pt", dev);
  ASSERT_EQ(d.size(), 14u);
  expect_same(d["f32"], ar(6, kFloat).reshape({2, 3}), "f32");
  expect_same(d["f64"], ar(5, kDouble, 0.1, 0), "f64");
  expect_same(d["f16"], ar(4, kHalf), "f16");
  expect_same(d["bf16"], ar(4, kBFloat16), "bf16");
  expect_same(d["i64"], arange(-3, 3, TensorOptions().dtype(kLong)) * (int64_t(1) << 40), "i64");
  expect_same(d["i32"], arange(-2, 2, TensorOptions().dtype(kInt)), "i32");
  expect_same(d["i16"], arange(-300, 300, 100, TensorOptions().dtype(kShort)), "i16");
  expect_same(d["i8"], arange(-3, 3, TensorOptions().dtype(kChar)), "i8");
  expect_same(d["u8"], arange(250, 256, TensorOptions().dtype(kByte)), "u8");
  expect_same(d["bool"], tensor({true, false, true}), "bool");
  expect_same(d["scalar"], full({}, 2.5), "scalar");
  EXPECT_EQ(d["empty"].sizes(), IntArrayRef({0, 4}));
  Tensor base = ar(24, kFloat).reshape({4, 6});
  expect_same(d["t"], base.t(), "t");
  expect_same(d["col"], base.select(1, 2), "col");
  EXPECT_TRUE(d["t"].is_alias_of(d["col"]));

  // The same tensors in the legacy format, as PyTorch 2.x writes it with _use_new_zipfile_serialization=False.
  StateDict legacy = load(kDir + "torch2_legacy.pt", dev);
  EXPECT_EQ(legacy.keys(), d.keys());
  for (const auto& item : d) expect_same(legacy[item.key()], item.value(), "legacy " + item.key());
  EXPECT_TRUE(legacy["t"].is_alias_of(legacy["col"]));

  StateDict ck = load(kDir + "torch2_checkpoint.pth", dev);
  // Printed by make_torch2_fixtures.py: the weights after one Adam step, and the optimizer's state.
  Tensor w = ck["model.0.weight"].cpu().flatten();
  EXPECT_FLOAT_EQ(w[0].item<float>(), -0.9900401830673218f);
  EXPECT_FLOAT_EQ(w[2].item<float>(), -0.4900401532649994f);
  EXPECT_FLOAT_EQ(w[3].item<float>(), -0.24004016816616058f);
  EXPECT_EQ(ck["model.1.num_batches_tracked"].item<int64_t>(), 8);
  EXPECT_EQ(ck["optimizer.state.0.step"].item<float>(), 1.0f);
  Tensor exp_avg = ck["optimizer.state.0.exp_avg"].cpu().flatten();
  EXPECT_FLOAT_EQ(exp_avg[0].item<float>(), -2.479551426404214e-07f);
  EXPECT_FLOAT_EQ(exp_avg[4].item<float>(), 4.609416009770939e-06f);
  EXPECT_FLOAT_EQ(exp_avg[11].item<float>(), 2.2107901997969748e-07f);
}

LOCUS_INSTANTIATE_DEVICES(Torch2Checkpoint);

TEST(Torch2CheckpointFile, MetadataAndRefusedDtypes) {
  CheckpointInfo info = inspect(kDir + "torch2_checkpoint.pth");
  EXPECT_EQ(info.format, "pytorch");
  bool epoch = false;
  for (const auto& [k, v] : info.metadata) epoch = epoch || (k == "epoch" && v == "3");
  EXPECT_TRUE(epoch);
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"uint16",
       "tensor 'w' has dtype uint16 (torch.uint16), which locus does not compute with. Convert it in PyTorch with "
       "t.to(torch.int32) before saving."},
      {"uint32",
       "tensor 'w' has dtype uint32 (torch.uint32), which locus does not compute with. Convert it in PyTorch with "
       "t.to(torch.int64) before saving."},
      {"uint64",
       "tensor 'w' has dtype uint64 (torch.uint64), which locus does not compute with. Convert it in PyTorch with "
       "t.to(torch.int64)"},
      {"float8_e4m3fn",
       "tensor 'w' has dtype float8_e4m3fn (torch.float8_e4m3fn), which locus does not compute with. Convert it in "
       "PyTorch with t.to(torch.float32)"},
      {"float8_e5m2", "tensor 'w' has dtype float8_e5m2 (torch.float8_e5m2), which locus does not compute with."}};
  for (const auto& [name, msg] : refused) {
    const std::string path = kDir + "torch2_" + name + ".pt";
    EXPECT_THROW_MSG(load(path), CheckpointError, "[pytorch] " + path + ": " + msg);
    EXPECT_THROW_MSG(inspect(path), CheckpointError, msg);
  }
}

}  // namespace

}  // namespace torch2_test
