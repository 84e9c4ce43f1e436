// Second derivatives through ops whose backward formula uses the op's saved result (exp, tanh,
// sigmoid, sqrt, softmax, ...): the saved result is linked back to its node while the backward
// builds a graph (saved_output in src/autograd/record.h), so d/dx of a gradient made with
// create_graph is PyTorch's. Before stop 46 these were silently wrong (the saved result was a
// constant). Values from PyTorch 1.13 (second_order_cases.py), on every device, in float64.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "locus/custom_function.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace second_order_test {

class SecondOrder : public testing::TestWithParam<Device> {};

TEST_P(SecondOrder, ThroughSavedResultsAsPyTorch) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().dtype(kDouble).device(d);
  const Tensor w = tensor({1.0, 2.0, 3.0}, o);
  const std::map<std::string, std::function<Tensor(const Tensor&)>> ops = {
      {"exp", [](const Tensor& x) { return x.exp(); }},
      {"sigmoid", [](const Tensor& x) { return x.sigmoid(); }},
      {"tanh", [](const Tensor& x) { return x.tanh(); }},
      {"sqrt", [](const Tensor& x) { return x.sqrt() + x * x; }},
      {"rsqrt", [](const Tensor& x) { return x.rsqrt(); }},
      {"reciprocal", [](const Tensor& x) { return x.reciprocal(); }},
      {"expm1", [](const Tensor& x) { return x.expm1(); }},
      {"exp2", [](const Tensor& x) { return x.exp2(); }},
      {"pow_tensor", [](const Tensor& x) { return x.pow(x); }},
      {"softmax", [&](const Tensor& x) { return (x * w).softmax(0) * w; }},
      {"log_softmax", [&](const Tensor& x) { return (x * w).log_softmax(0) * w; }},
      {"prod", [](const Tensor& x) { return x.prod() * x; }},
      {"norm", [](const Tensor& x) { return x.norm() * x; }},
      {"logsumexp", [](const Tensor& x) { return x.logsumexp(0) * x; }},
      {"elu", [](const Tensor& x) { return F::elu(x - 1); }},
      {"softplus", [](const Tensor& x) { return F::softplus(x); }},
      {"gelu", [](const Tensor& x) { return F::gelu(x); }},
      {"silu", [](const Tensor& x) { return F::silu(x); }},
      {"logsigmoid", [](const Tensor& x) { return F::logsigmoid(x); }},
  };
  const std::map<std::string, std::vector<double>> want = {
      {"exp", {7.288475201562036, 16.2207998673787, 44.0927055225664}},
      {"sigmoid", {0.077704701281817, -0.001352072630133537, -0.08355398088929106}},
      {"tanh", {1.3643061061011235, -0.12159227738323643, -0.6618567963114291}},
      {"sqrt", {5.187919181288745, 12.154950199005565, 25.495838362577494}},
      {"rsqrt", {74.07407407407409, 5.830903790087461, 1.1574074074074077}},
      {"reciprocal", {740.7407407407409, 24.989587671803413, 2.893518518518519}},
      {"expm1", {4.58875758641003, 12.193294452437742, 37.45247167709331}},
      {"exp2", {2.9129223705026748, 5.0716924209579695, 10.143384841915937}},
      {"pow_tensor", {3.3181014302631247, 2.738830711711028, 11.242532306021905}},
      {"softmax", {0.6676549219326163, 1.1533750544961596, -3.7330273475421025}},
      {"log_softmax", {-5.095755160118516, -16.52556090323889, 40.07560683521386}},
      {"prod", {9.135504000000001, 5.498064, 4.512564}},
      {"norm", {13.36, 20.4, 29.199999999999996}},
      {"logsumexp", {13.6893029941318, 18.790589511115318, 26.647017765559795}},
      {"elu", {-0.0067827518163930955, 0.7136101030126701, 2.0}},
      {"softplus", {1.0776768915356474, 1.3821308951006486, 1.7018803177751776}},
      {"gelu", {1.3426787311573996, 2.4079336482828806, 2.730594962819858}},
      {"silu", {1.0039872281327766, 1.721903935015011, 2.3734193034679905}},
      {"logsigmoid", {0.633231837274564, 0.3989817838176314, 0.20083452622677328}},
  };
  ASSERT_EQ(ops.size(), want.size());
  for (const auto& [name, f] : ops) {
    Tensor x = tensor({0.3, 0.7, 1.2}, o).requires_grad_(true);
    Tensor y = f(x);
    Tensor g = autograd::grad({(y * y).sum()}, {x}, {}, true, /*create_graph=*/true)[0];
    ASSERT_TRUE(g.requires_grad()) << name;
    Tensor h = autograd::grad({g.sum()}, {x})[0].cpu();
    const std::vector<double>& e = want.at(name);
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_NEAR(h[i].item<double>(), e[static_cast<size_t>(i)], 1e-9 * std::max(1.0, std::abs(e[static_cast<size_t>(i)])))
          << name << " element " << i << " on " << d.str();
  }
}

// The saved result is linked only while a graph is built: a plain backward afterwards still
// takes the fast path and frees it, and the result's own tensor keeps no reference to its node
// through what the node saved (no cycle: the result dies with its last handle).
TEST_P(SecondOrder, SavedResultLinkedOnlyDuringCreateGraph) {
  const Device d = GetParam();
  Tensor x = tensor({0.5, 1.5}, TensorOptions().dtype(kDouble).device(d)).requires_grad_(true);
  std::weak_ptr<autograd::Node> node;
  {
    Tensor y = x.exp();
    node = y.grad_fn();
    Tensor g = autograd::grad({y.sum()}, {x}, {}, true, true)[0];
    EXPECT_TRUE(g.requires_grad());
    y.sum().backward();
    EXPECT_TRUE(x.grad().defined());
    EXPECT_NEAR(x.grad().cpu()[1].item<double>(), std::exp(1.5), 1e-12);
    EXPECT_FALSE(x.grad().requires_grad());
  }
  EXPECT_TRUE(node.expired()) << "the node outlived its result and the gradients made from it";
}

// A custom Function whose backward uses its saved output (exp written by hand): its second
// derivative equals the built-in exp's.
struct HandExp : public autograd::Function<HandExp> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
    Tensor y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx, autograd::tensor_list g) {
    return {g[0] * ctx->get_saved_variables()[0]};
  }
};

TEST_P(SecondOrder, CustomFunctionThroughItsSavedOutput) {
  const TensorOptions o = TensorOptions().dtype(kDouble).device(GetParam());
  auto second = [&](const std::function<Tensor(const Tensor&)>& f) {
    Tensor x = tensor({0.3, 0.7, 1.2}, o).requires_grad_(true);
    Tensor y = f(x);
    Tensor g = autograd::grad({(y * y).sum()}, {x}, {}, true, true)[0];
    return autograd::grad({g.sum()}, {x})[0].cpu();
  };
  Tensor want = second([](const Tensor& x) { return x.exp(); });
  Tensor got = second([](const Tensor& x) { return HandExp::apply(x); });
  EXPECT_TRUE(allclose(got, want, 1e-12, 1e-12)) << got << want;
  EXPECT_NEAR(want[2].item<double>(), 44.0927055225664, 1e-9);  // PyTorch 1.13 (second_order_cases.py)
}

LOCUS_INSTANTIATE_DEVICES(SecondOrder);

}  // namespace second_order_test
