// Autocast (include/locus/autocast.h, src/ops/autocast.cpp): the op table against PyTorch's,
// scopes (nesting, enabled=false, threads), the cast cache, and float32 gradients on every device.
#include <cstdio>
#include <functional>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "ops/autocast.h"
#include "test_paths.h"
#include "testing.h"

using namespace locus;
namespace F = locus::nn::functional;
namespace ac = locus::autocast;

namespace autocast_test {

namespace {

using Inputs = std::map<std::string, Tensor>;

// The cases of tests/ops/autocast_cases.py, name for name.
const std::vector<std::pair<std::string, std::function<Tensor(Inputs&)>>>& cases() {
  static const std::vector<std::pair<std::string, std::function<Tensor(Inputs&)>>> k = {
      {"mm", [](Inputs& t) { return t["x"].mm(t["w"].t()); }},
      {"matmul", [](Inputs& t) { return t["x"].matmul(t["w"].t()); }},
      {"bmm", [](Inputs& t) { return t["x"].unsqueeze(0).bmm(t["w"].t().unsqueeze(0)); }},
      {"addmm", [](Inputs& t) { return addmm(t["b"], t["x"], t["w"].t()); }},
      {"linear", [](Inputs& t) { return F::linear(t["x"], t["w"], t["b"]); }},
      {"conv2d", [](Inputs& t) { return F::conv2d(t["img"], t["cw"], F::Conv2dFuncOptions().bias(t["cb"]).padding(1)); }},
      {"softmax", [](Inputs& t) { return t["x"].softmax(1); }},
      {"log_softmax", [](Inputs& t) { return t["x"].log_softmax(1); }},
      {"exp", [](Inputs& t) { return t["x"].exp(); }},
      {"log", [](Inputs& t) { return t["x"].abs().log(); }},
      {"sqrt", [](Inputs& t) { return t["x"].abs().sqrt(); }},
      {"rsqrt", [](Inputs& t) { return t["x"].abs().rsqrt(); }},
      {"reciprocal", [](Inputs& t) { return t["x"].reciprocal(); }},
      {"pow_scalar", [](Inputs& t) { return t["x"].pow(2); }},
      {"pow_tensor", [](Inputs& t) { return t["x"].pow(t["y"]); }},
      {"sum", [](Inputs& t) { return t["x"].sum(); }},
      {"sum_dim", [](Inputs& t) { return t["x"].sum({1}); }},
      {"mean", [](Inputs& t) { return t["x"].mean(); }},
      {"prod", [](Inputs& t) { return t["x"].prod(); }},
      {"add", [](Inputs& t) { return t["x"] + t["y"]; }},
      {"mul", [](Inputs& t) { return t["x"] * t["y"]; }},
      {"relu", [](Inputs& t) { return t["x"].relu(); }},
      {"gelu", [](Inputs& t) { return F::gelu(t["x"]); }},
      {"sigmoid", [](Inputs& t) { return t["x"].sigmoid(); }},
      {"tanh", [](Inputs& t) { return t["x"].tanh(); }},
      {"nll_loss", [](Inputs& t) { return F::nll_loss(t["x"], t["tgt"]); }},
      {"cross_entropy", [](Inputs& t) { return F::cross_entropy(t["x"], t["tgt"]); }},
      {"mse_loss", [](Inputs& t) { return F::mse_loss(t["x"], t["y"]); }},
      {"bce_with_logits", [](Inputs& t) { return F::binary_cross_entropy_with_logits(t["x"], t["y"].sigmoid()); }},
      {"layer_norm",
       [](Inputs& t) { return F::layer_norm(t["x"], F::LayerNormFuncOptions({6}).weight(t["lnw"]).bias(t["lnb"])); }},
      {"batch_norm",
       [](Inputs& t) {
         return F::batch_norm(t["img"], t["rm"], t["rv"],
                              F::BatchNormFuncOptions().weight(t["bnw"]).bias(t["bnb"]).training(true));
       }},
      {"max_pool2d", [](Inputs& t) { return F::max_pool2d(t["img"], F::MaxPool2dFuncOptions(2)); }},
      {"avg_pool2d", [](Inputs& t) { return F::avg_pool2d(t["img"], F::AvgPool2dFuncOptions(2)); }},
      {"adaptive_avg_pool2d", [](Inputs& t) { return F::adaptive_avg_pool2d(t["img"], 1); }},
      {"embedding", [](Inputs& t) { return F::embedding(t["tgt"], t["w"]); }},
      {"scatter_add",
       [](Inputs& t) { return t["y"].scatter_add(1, t["tgt"].view({4, 1}).expand({4, 6}).contiguous().remainder(6), t["x"]); }},
  };
  return k;
}

// As autocast_cases.py: "bf16" all floating inputs bfloat16, "mixed" the activations x and img.
Inputs inputs(const std::string& variant, Device d) {
  manual_seed(0);
  TensorOptions o = TensorOptions().device(d);
  Inputs t = {{"x", randn({4, 6}, o)},     {"y", randn({4, 6}, o)},        {"w", randn({5, 6}, o)},
              {"b", randn({5}, o)},        {"img", randn({2, 3, 8, 8}, o)}, {"cw", randn({4, 3, 3, 3}, o)},
              {"cb", randn({4}, o)},       {"lnw", ones({6}, o)},          {"lnb", zeros({6}, o)},
              {"rm", zeros({3}, o)},       {"rv", ones({3}, o)},           {"bnw", ones({3}, o)},
              {"bnb", zeros({3}, o)}};
  for (auto& [k, v] : t)
    if (variant == "bf16" || (variant == "mixed" && (k == "x" || k == "img"))) v = v.to(kBFloat16);
  t["tgt"] = tensor(std::vector<int64_t>{0, 1, 2, 3}, TensorOptions().dtype(kLong)).to(d);
  return t;
}

const nlohmann::json& pytorch_table() {
  static const nlohmann::json j = [] {
    std::string cmd = "/usr/bin/python3 " + std::string(LOCUS_SOURCE_DIR) + "/tests/ops/autocast_cases.py 2>&1";
    std::string out;
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[65536];
      while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
      if (pclose(p) != 0) out = "exit status non-zero: " + out;
    }
    return nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  }();
  return j;
}

}  // namespace

// The must-show: op by op, the dtype locus's ops return inside AutocastGuard(kCPU, kBFloat16) is
// the one PyTorch's return inside torch.autocast("cpu", dtype=torch.bfloat16), with float32,
// bfloat16 and mixed inputs. Cases where PyTorch itself raises are not compared (and listed).
TEST(AutocastTable, MatchesPyTorchOnCpu) {
  const nlohmann::json& want = pytorch_table();
  ASSERT_TRUE(want.is_object() && want.contains("mm/f32"))
      << "PyTorch (/usr/bin/python3 with torch, from scripts/install-deps) gave no table: " << want.dump();
  int compared = 0;
  std::vector<std::string> pytorch_raises;
  for (const char* variant : {"f32", "bf16", "mixed"}) {
    for (const auto& [name, op] : cases()) {
      std::string key = name + "/" + variant;
      ASSERT_TRUE(want.contains(key)) << key << " missing from autocast_cases.py";
      std::string w = want.at(key).get<std::string>();
      if (w == "error") {
        pytorch_raises.push_back(key);
        continue;
      }
      Inputs t = inputs(variant, Device(kCPU));
      ac::AutocastGuard guard(kCPU, kBFloat16);
      std::string got;
      try {
        got = dtype_name(op(t).scalar_type());
      } catch (const Error& e) {
        got = std::string("error: ") + e.what();
      }
      EXPECT_EQ(got, w) << key;
      ++compared;
    }
  }
  EXPECT_EQ(compared + pytorch_raises.size(), 3 * cases().size());
  EXPECT_GE(compared, 100);
  RecordProperty("pytorch_raises", testing::PrintToString(pytorch_raises));
}

class Autocast : public ::testing::TestWithParam<Device> {
 protected:
  Device d() const { return GetParam(); }
  TensorOptions on() const { return TensorOptions().device(d()); }
};

// PyTorch's lists on every device: cpu follows the CPU lists, cuda and opencl the CUDA lists
// (docs/mixed-precision.md), float64 is never cast, unlisted ops keep their inputs' dtype.
TEST_P(Autocast, PolicyPerDeviceType) {
  manual_seed(1);
  Tensor x = randn({4, 6}, on()), w = randn({5, 6}, on());
  ScalarType low = d().is_cpu() ? kBFloat16 : kHalf;
  ac::AutocastGuard g(d().type(), low);
  EXPECT_EQ(F::linear(x, w).scalar_type(), low);
  EXPECT_EQ(x.mm(w.t()).scalar_type(), low);
  EXPECT_EQ(x.matmul(w.t()).relu().scalar_type(), low);                 // unlisted: the input's dtype
  if (d().is_cpu()) EXPECT_EQ(x.to(kDouble).mm(w.t().to(kDouble)).scalar_type(), kDouble);  // float64 stays
  Tensor h = x.to(low);
  EXPECT_EQ((h + x).scalar_type(), kFloat);  // mixed inputs promote to the widest
  EXPECT_EQ(F::mse_loss(h, h).scalar_type(), kFloat);  // a loss: float32 on every device type
  // the float32 list of the GPU types: softmax, exp, sum, layer_norm in float32 from float16 inputs
  ScalarType gpu_f32 = d().is_cpu() ? low : kFloat;
  EXPECT_EQ(h.softmax(1).scalar_type(), gpu_f32);
  EXPECT_EQ(h.exp().scalar_type(), gpu_f32);
  EXPECT_EQ(h.log1p().scalar_type(), gpu_f32);  // on PyTorch's CUDA float32 list, not the CPU's
  EXPECT_EQ(h.expm1().scalar_type(), gpu_f32);
  EXPECT_EQ(h.log2().scalar_type(), gpu_f32);
  EXPECT_EQ(h.erf().scalar_type(), low);        // on neither list
  EXPECT_EQ(h.exp2().scalar_type(), low);
  EXPECT_EQ(h.sum().scalar_type(), gpu_f32);
  EXPECT_EQ(h.sum(kHalf).scalar_type(), kHalf);  // an explicit dtype wins
  EXPECT_EQ(F::layer_norm(h, F::LayerNormFuncOptions({6})).scalar_type(), gpu_f32);
  EXPECT_EQ(F::group_norm(h.view({4, 6, 1}), F::GroupNormFuncOptions(2)).scalar_type(), gpu_f32);
  EXPECT_EQ(F::kl_div(h.log_softmax(1), h.softmax(1)).scalar_type(), kFloat);  // a loss: float32 everywhere
  // another device type's autocast does not apply here
  ac::AutocastGuard off(d().type(), std::nullopt, /*enabled=*/false);
  ac::AutocastGuard other(d().is_cpu() ? kCUDA : kCPU);
  EXPECT_EQ(x.mm(w.t()).scalar_type(), kFloat);
}

TEST_P(Autocast, NestsAndRestores) {
  DeviceType t = d().type();
  EXPECT_FALSE(ac::is_autocast_enabled(t));
  ScalarType dflt = ac::get_autocast_dtype(t);
  {
    ac::AutocastGuard outer(t, kBFloat16);
    EXPECT_TRUE(ac::is_autocast_enabled(t));
    EXPECT_EQ(ac::get_autocast_dtype(t), kBFloat16);
    {
      ac::AutocastGuard inner(t, kHalf);
      EXPECT_EQ(ac::get_autocast_dtype(t), kHalf);
      EXPECT_EQ(ones({2, 2}, on()).mm(ones({2, 2}, on())).scalar_type(), kHalf);
      {
        ac::AutocastGuard off(t, std::nullopt, /*enabled=*/false);
        EXPECT_FALSE(ac::is_autocast_enabled(t));
        EXPECT_EQ(ones({2, 2}, on()).mm(ones({2, 2}, on())).scalar_type(), kFloat);
      }
      EXPECT_TRUE(ac::is_autocast_enabled(t));
    }
    EXPECT_EQ(ac::get_autocast_dtype(t), kBFloat16);
    EXPECT_EQ(ones({2, 2}, on()).mm(ones({2, 2}, on())).scalar_type(), kBFloat16);
  }
  EXPECT_FALSE(ac::is_autocast_enabled(t));
  EXPECT_EQ(ac::get_autocast_dtype(t), dflt);
  // the functions alone, as libtorch programs call them
  ac::set_autocast_enabled(t, true);
  ac::set_autocast_dtype(t, kBFloat16);
  EXPECT_EQ(ones({2, 2}, on()).mm(ones({2, 2}, on())).scalar_type(), kBFloat16);
  ac::set_autocast_enabled(t, false);
  ac::set_autocast_dtype(t, dflt);
  EXPECT_EQ(ones({2, 2}, on()).mm(ones({2, 2}, on())).scalar_type(), kFloat);
}

TEST_P(Autocast, IsThreadLocal) {
  ac::AutocastGuard g(d().type(), kBFloat16);
  ScalarType there = kBool;
  bool enabled_there = true;
  std::thread th([&] {
    enabled_there = ac::is_autocast_enabled(d().type());
    there = ones({2, 2}, on()).mm(ones({2, 2}, on())).scalar_type();
  });
  th.join();
  EXPECT_FALSE(enabled_there);
  EXPECT_EQ(there, kFloat);
  EXPECT_EQ(ones({2, 2}, on()).mm(ones({2, 2}, on())).scalar_type(), kBFloat16);
}

// A float32 leaf that requires grad is cast once per region; the outermost guard's exit (or
// clear_cache) empties the cache; tensors that are not such leaves are cast every time.
TEST_P(Autocast, CastCacheLivesForTheOutermostRegion) {
  namespace oac = locus::ops::autocast;
  Tensor w = randn({3, 3}, on()).requires_grad_();
  Tensor a = randn({3, 3}, on());
  Tensor first;
  {
    ac::AutocastGuard outer(d().type(), kBFloat16);
    first = oac::cast(w, oac::Cast::Lower);
    EXPECT_EQ(first.scalar_type(), kBFloat16);
    {
      ac::AutocastGuard inner(d().type(), kBFloat16);
      EXPECT_TRUE(oac::cast(w, oac::Cast::Lower).is_same(first));  // the inner exit keeps the cache
    }
    EXPECT_TRUE(oac::cast(w, oac::Cast::Lower).is_same(first));
    EXPECT_FALSE(oac::cast(a, oac::Cast::Lower).is_same(oac::cast(a, oac::Cast::Lower)));  // not a grad leaf
    ac::clear_cache();
    Tensor again = oac::cast(w, oac::Cast::Lower);
    EXPECT_FALSE(again.is_same(first));
    first = again;
  }
  ac::AutocastGuard next(d().type(), kBFloat16);
  EXPECT_FALSE(oac::cast(w, oac::Cast::Lower).is_same(first));
  ac::AutocastGuard no_cache(d().type(), kBFloat16, true, /*cache_enabled=*/false);
  EXPECT_FALSE(oac::cast(w, oac::Cast::Lower).is_same(oac::cast(w, oac::Cast::Lower)));
}

// Gradients reach float32 master weights in float32, through the differentiable casts, and agree
// with the float32 computation to bfloat16's precision.
TEST_P(Autocast, GradientsFlowToFloat32Weights) {
  manual_seed(3);
  nn::Sequential ref(nn::Linear(8, 16), nn::ReLU(), nn::Linear(16, 4));
  manual_seed(3);
  nn::Sequential model(nn::Linear(8, 16), nn::ReLU(), nn::Linear(16, 4));
  ref->to(d());
  model->to(d());
  Tensor x = randn({32, 8}, on()), y = randint(4, {32}, TensorOptions().dtype(kLong)).to(d());
  Tensor loss;
  {
    ac::AutocastGuard g(d().type(), kBFloat16);
    Tensor logits = model->forward(x);
    EXPECT_EQ(logits.scalar_type(), kBFloat16);
    loss = F::cross_entropy(logits, y);
    EXPECT_EQ(loss.scalar_type(), kFloat);
  }
  loss.backward();
  F::cross_entropy(ref->forward(x), y).backward();
  auto mine = model->parameters(), theirs = ref->parameters();
  for (size_t i = 0; i < mine.size(); ++i) {
    ASSERT_TRUE(mine[i].grad().defined()) << i;
    EXPECT_EQ(mine[i].grad().scalar_type(), kFloat) << i;
    EXPECT_EQ(mine[i].grad().device(), d()) << i;
    auto got = values(mine[i].grad()), want = values(theirs[i].grad());
    double scale = 0;
    for (double v : want) scale = std::max(scale, std::abs(v));
    for (size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], want[k], 0.05 * scale + 1e-4) << i << "," << k;
  }
}

TEST_P(Autocast, RejectsNonReducedDtypes) {
  EXPECT_THROW_MSG(ac::set_autocast_dtype(d().type(), kFloat), Error,
                   "[set_autocast_dtype] autocast runs ops in float16 or bfloat16, got float32 for " +
                       std::string(device_type_name(d().type())) + ". Pass locus::kHalf or locus::kBFloat16.");
  EXPECT_THROW_MSG(ac::AutocastGuard(d().type(), kDouble), Error,
                   "[AutocastGuard] autocast runs ops in float16 or bfloat16, got float64 for");
  EXPECT_FALSE(ac::is_autocast_enabled(d().type()));  // the failed guard changed nothing
}

LOCUS_INSTANTIATE_DEVICES(Autocast);

TEST(Autocast, DefaultDtypes) {
  EXPECT_EQ(ac::get_autocast_dtype(kCPU), kBFloat16);
  EXPECT_EQ(ac::get_autocast_dtype(kCUDA), kHalf);
  if (device_count(kOpenCL) > 0) {
    bool fp16 = describe(Device(kOpenCL, current_device_index(kOpenCL))).fp16;
    EXPECT_EQ(ac::get_autocast_dtype(kOpenCL), fp16 ? kHalf : kBFloat16);
  }
}

}  // namespace autocast_test
