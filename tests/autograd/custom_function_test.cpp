// Custom autograd functions (locus::autograd::Function, libtorch's torch::autograd::Function) on
// every device: gradients, several outputs, materialised and undefined gradients, in-place
// (dirty) inputs, double backward, grad mode, and each error backward can make.
#include "locus/custom_function.h"

#include "autograd/gradcheck.h"

using namespace locus;

namespace custom_function_test {

using autograd::AutogradContext;
using autograd::Function;
using autograd::variable_list;

namespace {

// y = x w^T (+ b): the libtorch tutorial's example
struct LinearFunction : Function<LinearFunction> {
  static Tensor forward(AutogradContext* ctx, Tensor input, Tensor weight, Tensor bias = Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    Tensor out = input.mm(weight.t());
    if (bias.defined()) out += bias.unsqueeze(0).expand_as(out);
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    variable_list s = ctx->get_saved_variables();
    const Tensor& g = grad_outputs[0];
    return {g.mm(s[1]), g.t().mm(s[0]), s[2].defined() ? g.sum(0) : Tensor()};
  }
};

struct MulConstant : Function<MulConstant> {
  static Tensor forward(AutogradContext* ctx, Tensor x, double c) {
    ctx->saved_data["constant"] = c;
    return x * c;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    return {g[0] * ctx->saved_data["constant"].toDouble(), Tensor()};
  }
};

// Two outputs (2x, 3x) and what backward was given for each.
struct TwoOutputs : Function<TwoOutputs> {
  static inline std::vector<bool> seen_defined;
  static variable_list forward(AutogradContext* ctx, Tensor x, bool materialize) {
    ctx->set_materialize_grads(materialize);
    return {x * 2, x * 3};
  }
  static variable_list backward(AutogradContext*, variable_list g) {
    seen_defined = {g[0].defined(), g[1].defined()};
    Tensor total = g[0].defined() ? g[0] * 2 : Tensor();
    if (g[1].defined()) total = total.defined() ? total + g[1] * 3 : g[1] * 3;
    return {total, Tensor()};
  }
};

// x^2 with a backward made of differentiable ops: twice differentiable
struct Square : Function<Square> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) { return {g[0] * 2 * ctx->get_saved_variables()[0]}; }
};

// Doubles x in place and returns it (mark_dirty).
struct DoubleInPlace : Function<DoubleInPlace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0] * 2}; }
};

// Values and the argmax (not differentiable) of each row.
struct RowMax : Function<RowMax> {
  static variable_list forward(AutogradContext* ctx, Tensor x) {
    Tensor idx = x.argmax(1, true);
    Tensor v = x.gather(1, idx);
    ctx->mark_non_differentiable({idx});
    ctx->save_for_backward({idx});
    ctx->saved_data["shape"] = x.sizes();
    return {v, idx};
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    Tensor idx = ctx->get_saved_variables()[0];
    std::vector<int64_t> shape = ctx->saved_data["shape"].toIntVector();
    return {zeros(shape, g[0].options()).scatter(1, idx, g[0])};
  }
};

// Returns its input unchanged, and what it saw of grad mode and needs_input_grad.
struct Identity : Function<Identity> {
  static inline bool grad_mode_in_forward = true;
  static inline std::vector<bool> needs;
  static Tensor forward(AutogradContext* ctx, Tensor x, Tensor y) {
    grad_mode_in_forward = GradMode::is_enabled();
    needs = {ctx->needs_input_grad(0), ctx->needs_input_grad(1), ctx->needs_input_grad(2)};
    (void)y;
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], Tensor()}; }
};

// Sums a list of tensors: one gradient per element.
struct SumList : Function<SumList> {
  static Tensor forward(AutogradContext*, std::vector<Tensor> xs, double scale) {
    Tensor s = xs[0] * scale;
    for (size_t i = 1; i < xs.size(); ++i) s = s + xs[i] * scale;
    return s;
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], g[0] * 2, Tensor()}; }
};

// Backward functions that break the rules.
struct TooFew : Function<TooFew> {
  static Tensor forward(AutogradContext*, Tensor x, double) { return x * 1; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};
struct GradForANumber : Function<GradForANumber> {
  static Tensor forward(AutogradContext*, Tensor x, double) { return x * 1; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], g[0]}; }
};
struct WrongShape : Function<WrongShape> {
  static Tensor forward(AutogradContext*, Tensor x) { return x.sum(); }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};

}  // namespace

class CustomFunction : public testing::TestWithParam<Device> {
 protected:
  TensorOptions opts() const { return TensorOptions().device(GetParam()); }
};

TEST_P(CustomFunction, GradientsEqualTheBuiltInOps) {
  manual_seed(1);
  Tensor x = randn({2, 3}, opts()).requires_grad_();
  Tensor w = randn({4, 3}, opts()).requires_grad_();
  Tensor b = randn({4}, opts()).requires_grad_();
  Tensor y = LinearFunction::apply(x, w, b);
  EXPECT_EQ(y.grad_fn()->name(), "LinearFunctionBackward");
  EXPECT_EQ(y.device(), GetParam());
  (y * y).sum().backward();
  Tensor x2 = x.detach().requires_grad_(), w2 = w.detach().requires_grad_(), b2 = b.detach().requires_grad_();
  Tensor y2 = x2.mm(w2.t()) + b2;
  EXPECT_TRUE(y.allclose(y2));
  (y2 * y2).sum().backward();
  EXPECT_TRUE(x.grad().allclose(x2.grad(), 1e-5, 1e-6));
  EXPECT_TRUE(w.grad().allclose(w2.grad(), 1e-5, 1e-6));
  EXPECT_TRUE(b.grad().allclose(b2.grad(), 1e-5, 1e-6));
  EXPECT_EQ(x.grad().device(), GetParam());
  // no bias: the default argument, an undefined tensor, gets an undefined gradient
  Tensor z = randn({3}, opts()).requires_grad_();
  MulConstant::apply(z, 5.5).sum().backward();
  EXPECT_EQ(values(z.grad()), std::vector<double>(3, 5.5));
  Tensor x3 = randn({2, 3}, opts()).requires_grad_();
  LinearFunction::apply(x3, w.detach()).sum().backward();
  EXPECT_TRUE(x3.grad().allclose(ones({2, 4}, opts()).mm(w.detach())));
}

TEST_P(CustomFunction, SeveralOutputsAndMaterializedGradients) {
  for (bool materialize : {true, false}) {
    Tensor x = tensor({1.0, 2.0}, opts()).requires_grad_();
    variable_list out = TwoOutputs::apply(x, materialize);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[1].grad_fn(), out[0].grad_fn());
    out[1].sum().backward();  // only the second output is used
    EXPECT_EQ(TwoOutputs::seen_defined, (std::vector<bool>{materialize, true}));
    EXPECT_EQ(values(x.grad()), (std::vector<double>{3, 3}));
  }
  // a non-differentiable output: no grad_fn, and backward gets zeros for it
  Tensor m = tensor({{1.0, 5.0, 2.0}, {7.0, 0.0, 1.0}}, opts()).requires_grad_();
  variable_list r = RowMax::apply(m);
  EXPECT_FALSE(r[1].requires_grad());
  EXPECT_EQ(values(r[1]), (std::vector<double>{1, 0}));
  r[0].sum().backward();
  EXPECT_EQ(values(m.grad()), (std::vector<double>{0, 1, 0, 1, 0, 0}));
}

TEST_P(CustomFunction, TwiceDifferentiableWhenBackwardIsMadeOfOps) {
  Tensor x = tensor({3.0}, opts()).requires_grad_();
  Tensor y = Square::apply(x);
  Tensor g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_EQ(values(g), std::vector<double>{6});
  Tensor gg = autograd::grad({g}, {x})[0];
  EXPECT_EQ(values(gg), std::vector<double>{2});
}

TEST_P(CustomFunction, DirtyInputBecomesTheOutput) {
  Tensor a = tensor({1.0, 2.0}, opts()).requires_grad_();
  Tensor x = a * 3;  // not a leaf
  Tensor y = DoubleInPlace::apply(x);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_EQ(x.grad_fn()->name(), "DoubleInPlaceBackward");
  EXPECT_EQ(values(x), (std::vector<double>{6, 12}));
  y.sum().backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{6, 6}));
  // a leaf that requires grad cannot be modified in place
  Tensor leaf = tensor({1.0}, opts()).requires_grad_();
  EXPECT_THROW_MSG(DoubleInPlace::apply(leaf), Error,
                   "[DoubleInPlace] a leaf Variable that requires grad has been used in an in-place operation");
}

TEST_P(CustomFunction, GradModeInputsAndUnchangedOutputs) {
  Tensor x = randn({2}, opts()).requires_grad_();
  Tensor y = randn({2}, opts());
  Tensor out = Identity::apply(x, y);
  EXPECT_FALSE(Identity::grad_mode_in_forward);  // forward runs without recording
  EXPECT_EQ(Identity::needs, (std::vector<bool>{true, false, false}));
  EXPECT_FALSE(out.is_same(x));  // a new alias: the input keeps its own history
  EXPECT_TRUE(x.is_leaf());
  EXPECT_EQ(out.data_ptr(), x.data_ptr());
  EXPECT_EQ(out.grad_fn()->name(), "IdentityBackward");
  out.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 1}));
  {
    NoGradGuard no_grad;
    Tensor z = MulConstant::apply(x, 2.0);
    EXPECT_FALSE(z.requires_grad());
    EXPECT_EQ(z.grad_fn(), nullptr);
  }
  EXPECT_FALSE(MulConstant::apply(y, 2.0).requires_grad());  // no input requires grad
  // a list argument counts one gradient per element
  Tensor p = ones({2}, opts()).requires_grad_(), q = ones({2}, opts()).requires_grad_();
  SumList::apply(std::vector<Tensor>{p, q}, 0.5).sum().backward();
  EXPECT_EQ(values(p.grad()), (std::vector<double>{1, 1}));
  EXPECT_EQ(values(q.grad()), (std::vector<double>{2, 2}));
}

TEST_P(CustomFunction, SavedTensorsAreFreedAfterBackward) {
  Tensor x = tensor({2.0}, opts()).requires_grad_();
  Tensor y = Square::apply(x);
  y.backward({}, /*retain_graph=*/true);
  y.backward();  // retained once: runs again
  EXPECT_EQ(values(x.grad()), std::vector<double>{8});
  EXPECT_THROW_MSG(y.backward(), Error, "[Square] Trying to backward through the graph a second time");
}

TEST_P(CustomFunction, BackwardThatBreaksTheRulesIsAnError) {
  Tensor x = randn({2}, opts()).requires_grad_();
  EXPECT_THROW_MSG(TooFew::apply(x, 1.0).sum().backward(), Error,
                   "[TooFewBackward] backward returned 1 gradients; expected 2, one per argument of forward "
                   "(Tensor() for those that are not tensors).");
  EXPECT_THROW_MSG(GradForANumber::apply(x, 1.0).sum().backward(), Error,
                   "[GradForANumberBackward] backward returned a gradient for argument 1 of forward, which is not a "
                   "tensor; return Tensor() there.");
  EXPECT_THROW_MSG(WrongShape::apply(x).backward(), Error,
                   "[WrongShapeBackward] backward returned a gradient of shape [] for argument 0 of forward, which "
                   "has shape [2].");
}

LOCUS_INSTANTIATE_DEVICES(CustomFunction);

TEST(IValue, HoldsWhatSavedDataNeedsAndNamesAMismatch) {
  IValue none;
  EXPECT_TRUE(none.isNone());
  EXPECT_EQ(IValue(2.5).toDouble(), 2.5);
  EXPECT_EQ(IValue(int64_t{7}).toInt(), 7);
  EXPECT_EQ(IValue(3).toInt(), 3);
  EXPECT_TRUE(IValue(true).toBool());
  EXPECT_EQ(IValue("mean").toStringRef(), "mean");
  EXPECT_EQ(IValue(std::vector<int64_t>{2, 3}).toIntVector(), (std::vector<int64_t>{2, 3}));
  Tensor t = ones({2});
  EXPECT_TRUE(IValue(t).toTensor().is_same(t));
  EXPECT_EQ(IValue(std::vector<Tensor>{t, t}).toTensorVector().size(), 2u);
  EXPECT_EQ(IValue(Scalar(1.5)).toScalar().toDouble(), 1.5);
  EXPECT_STREQ(IValue(t).tagKind(), "Tensor");
  EXPECT_THROW_MSG(IValue(3).toDouble(), Error, "[IValue] Expected Double but got Int.");
  EXPECT_THROW_MSG(none.toTensor(), Error, "[IValue] Expected Tensor but got None.");
}

}  // namespace custom_function_test
