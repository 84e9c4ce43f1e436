// LSTM, GRU and RNN against a plain loop over PyTorch's cell equations (float64), on every device:
// several layers, both directions, batch_first, given initial states, unbatched input; gradients
// by finite differences; parameter names, shapes and initialisation; every error.
#include <cmath>
#include <functional>
#include <sstream>

#include "autograd/gradcheck.h"

using namespace locus;
using V = std::vector<Tensor>;
using Vec = std::vector<double>;

class Recurrent : public testing::TestWithParam<Device> {};

namespace {

enum class Cell { LSTM, GRU, Tanh, Relu };

double sig(double v) { return 1 / (1 + std::exp(-v)); }

// One layer and direction of `cell` over x[t][b][i] (t < len, b < n, i < in), from h and c
// ([b][j]); returns the outputs [t][b][j] and leaves the final states in h and c.
std::vector<std::vector<Vec>> run_cell(Cell cell, const std::vector<std::vector<Vec>>& x, const Vec& w_ih,
                                       const Vec& w_hh, const Vec& b_ih, const Vec& b_hh, std::vector<Vec>& h,
                                       std::vector<Vec>& c, int64_t hs, bool reverse) {
  const int64_t len = static_cast<int64_t>(x.size()), n = static_cast<int64_t>(h.size()),
                in = static_cast<int64_t>(x[0][0].size());
  const int64_t g = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
  std::vector<std::vector<Vec>> out(static_cast<size_t>(len), std::vector<Vec>(static_cast<size_t>(n)));
  for (int64_t k = 0; k < len; ++k) {
    const int64_t t = reverse ? len - 1 - k : k;
    for (int64_t b = 0; b < n; ++b) {
      Vec xs(static_cast<size_t>(g * hs)), hsum(static_cast<size_t>(g * hs));
      for (int64_t r = 0; r < g * hs; ++r) {
        double a = b_ih.empty() ? 0 : b_ih[r], e = b_hh.empty() ? 0 : b_hh[r];
        for (int64_t i = 0; i < in; ++i) a += w_ih[r * in + i] * x[t][b][i];
        for (int64_t j = 0; j < hs; ++j) e += w_hh[r * hs + j] * h[b][j];
        xs[r] = a, hsum[r] = e;
      }
      Vec nh(static_cast<size_t>(hs));
      for (int64_t j = 0; j < hs; ++j) {
        switch (cell) {
          case Cell::LSTM: {
            const double ig = sig(xs[j] + hsum[j]), fg = sig(xs[hs + j] + hsum[hs + j]),
                         gg = std::tanh(xs[2 * hs + j] + hsum[2 * hs + j]), og = sig(xs[3 * hs + j] + hsum[3 * hs + j]);
            c[b][j] = fg * c[b][j] + ig * gg;
            nh[j] = og * std::tanh(c[b][j]);
            break;
          }
          case Cell::GRU: {
            const double r = sig(xs[j] + hsum[j]), z = sig(xs[hs + j] + hsum[hs + j]);
            const double cand = std::tanh(xs[2 * hs + j] + r * hsum[2 * hs + j]);
            nh[j] = (1 - z) * cand + z * h[b][j];
            break;
          }
          case Cell::Tanh: nh[j] = std::tanh(xs[j] + hsum[j]); break;
          case Cell::Relu: nh[j] = std::max(0.0, xs[j] + hsum[j]); break;
        }
      }
      h[b] = nh;
      out[t][b] = nh;
    }
  }
  return out;
}

Vec part(const Vec& all, int64_t at, int64_t count) { return Vec(all.begin() + at, all.begin() + at + count); }

// The whole stack: x [L][N][in], states [layers * dirs][N][hs]; output [L][N][dirs * hs].
std::vector<std::vector<Vec>> run_stack(Cell cell, std::vector<std::vector<Vec>> x, const std::vector<Vec>& params,
                                        int64_t layers, bool bidirectional, bool bias, std::vector<std::vector<Vec>>& h,
                                        std::vector<std::vector<Vec>>& c, int64_t hs) {
  const int64_t dirs = bidirectional ? 2 : 1, per = bias ? 4 : 2;
  for (int64_t l = 0; l < layers; ++l) {
    std::vector<std::vector<std::vector<Vec>>> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const size_t at = static_cast<size_t>((l * dirs + d) * per);
      outs.push_back(run_cell(cell, x, params[at], params[at + 1], bias ? params[at + 2] : Vec(),
                              bias ? params[at + 3] : Vec(), h[static_cast<size_t>(l * dirs + d)],
                              c[static_cast<size_t>(l * dirs + d)], hs, d == 1));
    }
    for (size_t t = 0; t < x.size(); ++t)
      for (size_t b = 0; b < x[t].size(); ++b) {
        x[t][b] = outs[0][t][b];
        if (dirs == 2) x[t][b].insert(x[t][b].end(), outs[1][t][b].begin(), outs[1][t][b].end());
      }
  }
  return x;
}

struct Config {
  Cell cell;
  int64_t in, hs, layers;
  bool bidirectional, batch_first, bias;
};

// The module's output and final states against run_stack's, from given initial states.
template <class M>
void check_against_loops(Device dev, M& m, const Config& k, int64_t len, int64_t n) {
  TensorOptions o = TensorOptions().dtype(kDouble).device(dev);
  const int64_t dirs = k.bidirectional ? 2 : 1;
  Tensor x = randn(k.batch_first ? std::vector<int64_t>{n, len, k.in} : std::vector<int64_t>{len, n, k.in}, o);
  Tensor h0 = randn({k.layers * dirs, n, k.hs}, o), c0 = randn({k.layers * dirs, n, k.hs}, o);
  Tensor out, hn, cn;
  if constexpr (std::is_same_v<M, nn::LSTM>) {
    auto [y, state] = m->forward(x, std::make_tuple(h0, c0));
    out = y, hn = std::get<0>(state), cn = std::get<1>(state);
  } else {
    std::tie(out, hn) = m->forward(x, h0);
  }
  // the loops' view: [L][N][in]
  Tensor xl = k.batch_first ? x.transpose(0, 1).contiguous() : x;
  std::vector<std::vector<Vec>> xs(static_cast<size_t>(len), std::vector<Vec>(static_cast<size_t>(n)));
  Vec xv = values(xl);
  for (int64_t t = 0; t < len; ++t)
    for (int64_t b = 0; b < n; ++b) xs[t][b] = part(xv, (t * n + b) * k.in, k.in);
  std::vector<std::vector<Vec>> h(static_cast<size_t>(k.layers * dirs)), c = h;
  Vec hv = values(h0), cv = values(c0);
  for (int64_t s = 0; s < k.layers * dirs; ++s)
    for (int64_t b = 0; b < n; ++b) {
      h[s].push_back(part(hv, (s * n + b) * k.hs, k.hs));
      c[s].push_back(part(cv, (s * n + b) * k.hs, k.hs));
    }
  std::vector<Vec> params;
  for (const Tensor& p : m->all_weights()) params.push_back(values(p));
  auto want = run_stack(k.cell, xs, params, k.layers, k.bidirectional, k.bias, h, c, k.hs);
  Tensor yl = k.batch_first ? out.transpose(0, 1).contiguous() : out;
  ASSERT_EQ(yl.sizes(), IntArrayRef({len, n, dirs * k.hs}));
  Vec got = values(yl);
  for (int64_t t = 0; t < len; ++t)
    for (int64_t b = 0; b < n; ++b)
      for (int64_t j = 0; j < dirs * k.hs; ++j)
        ASSERT_NEAR(got[static_cast<size_t>((t * n + b) * dirs * k.hs + j)], want[t][b][j], 1e-12) << t << " " << b << " " << j;
  Vec hg = values(hn);
  for (int64_t s = 0; s < k.layers * dirs; ++s)
    for (int64_t b = 0; b < n; ++b)
      for (int64_t j = 0; j < k.hs; ++j) ASSERT_NEAR(hg[static_cast<size_t>((s * n + b) * k.hs + j)], h[s][b][j], 1e-12);
  if (cn.defined()) {
    Vec cg = values(cn);
    for (int64_t s = 0; s < k.layers * dirs; ++s)
      for (int64_t b = 0; b < n; ++b)
        for (int64_t j = 0; j < k.hs; ++j) ASSERT_NEAR(cg[static_cast<size_t>((s * n + b) * k.hs + j)], c[s][b][j], 1e-12);
  }
}

}  // namespace

TEST_P(Recurrent, LSTMMatchesTheCellEquations) {
  const Device d = GetParam();
  manual_seed(1);
  for (const Config k : {Config{Cell::LSTM, 3, 4, 2, true, true, true}, Config{Cell::LSTM, 2, 3, 1, false, false, false}}) {
    nn::LSTM m(nn::LSTMOptions(k.in, k.hs).num_layers(k.layers).bidirectional(k.bidirectional).batch_first(k.batch_first)
                   .bias(k.bias).device(d).dtype(kDouble));
    check_against_loops(d, m, k, 5, 2);
  }
}

TEST_P(Recurrent, GRUAndRNNMatchTheCellEquations) {
  const Device d = GetParam();
  manual_seed(2);
  const Config g{Cell::GRU, 3, 4, 2, true, false, true};
  nn::GRU gru(nn::GRUOptions(g.in, g.hs).num_layers(g.layers).bidirectional(true).device(d).dtype(kDouble));
  check_against_loops(d, gru, g, 4, 3);
  for (const Config k : {Config{Cell::Tanh, 2, 3, 2, false, true, true}, Config{Cell::Relu, 3, 2, 1, true, false, false}}) {
    nn::RNN rnn(nn::RNNOptions(k.in, k.hs).num_layers(k.layers).bidirectional(k.bidirectional).batch_first(k.batch_first)
                    .bias(k.bias).nonlinearity(k.cell == Cell::Tanh ? nn::RNNNonlinearity::Tanh : nn::RNNNonlinearity::ReLU)
                    .device(d).dtype(kDouble));
    check_against_loops(d, rnn, k, 4, 2);
  }
}

TEST_P(Recurrent, ParametersStatesAndShapes) {
  const Device d = GetParam();
  nn::LSTM lstm(nn::LSTMOptions(10, 20).num_layers(2).bidirectional(true).device(d));
  std::vector<std::string> names;
  for (const auto& p : lstm->named_parameters()) names.push_back(p.key());
  EXPECT_EQ(names, (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                             "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse",
                                             "bias_hh_l0_reverse", "weight_ih_l1", "weight_hh_l1", "bias_ih_l1",
                                             "bias_hh_l1", "weight_ih_l1_reverse", "weight_hh_l1_reverse",
                                             "bias_ih_l1_reverse", "bias_hh_l1_reverse"}));
  EXPECT_EQ(lstm->named_parameters()["weight_ih_l1"].sizes(), IntArrayRef({80, 40}));  // 4 gates; both directions in
  EXPECT_EQ(lstm->named_parameters()["weight_hh_l0"].sizes(), IntArrayRef({80, 20}));
  for (const Tensor& p : lstm->parameters()) {
    EXPECT_EQ(p.device(), d);
    EXPECT_LE(p.abs().max().item<double>(), 1 / std::sqrt(20.0));  // uniform in +-1/sqrt(hidden)
  }
  // default (zero) states, sizes, batch first
  Tensor x = randn({5, 3, 10}, device(d));
  auto [y, state] = lstm->forward(x);
  EXPECT_EQ(y.sizes(), IntArrayRef({5, 3, 40}));
  EXPECT_EQ(std::get<0>(state).sizes(), IntArrayRef({4, 3, 20}));
  EXPECT_EQ(std::get<1>(state).sizes(), IntArrayRef({4, 3, 20}));
  // the last step's forward output is h_n of the last layer's forward direction; the first step's
  // backward output is its reverse direction's
  EXPECT_TRUE(y[4].narrow(1, 0, 20).allclose(std::get<0>(state)[2]));
  EXPECT_TRUE(y[0].narrow(1, 20, 20).allclose(std::get<0>(state)[3]));
  // unbatched input [L, in]: the batch of one without its dim
  auto [y1, s1] = lstm->forward(x.select(1, 1));
  EXPECT_EQ(y1.sizes(), IntArrayRef({5, 40}));
  EXPECT_EQ(std::get<0>(s1).sizes(), IntArrayRef({4, 20}));
  EXPECT_TRUE(y1.allclose(y.select(1, 1), 1e-5, 1e-6));
  nn::GRU gru(nn::GRUOptions(4, 6).batch_first(true).bias(false).device(d));
  EXPECT_EQ(gru->parameters().size(), 2u);
  auto [gy, gh] = gru->forward(randn({2, 7, 4}, device(d)));
  EXPECT_EQ(gy.sizes(), IntArrayRef({2, 7, 6}));
  EXPECT_EQ(gh.sizes(), IntArrayRef({1, 2, 6}));
  std::ostringstream printed;
  printed << *gru;
  EXPECT_EQ(printed.str(), "locus::nn::GRU(input_size=4, hidden_size=6, num_layers=1, bias=false, batch_first=true, "
                           "dropout=0, bidirectional=false)");
  // dropout between layers in training only
  nn::RNN drop(nn::RNNOptions(3, 8).num_layers(2).dropout(0.5).device(d));
  Tensor r = randn({4, 2, 3}, device(d));
  manual_seed(3);
  Tensor a = std::get<0>(drop->forward(r));
  manual_seed(4);
  Tensor b = std::get<0>(drop->forward(r));
  EXPECT_FALSE(a.allclose(b));
  drop->eval();
  EXPECT_TRUE(std::get<0>(drop->forward(r)).allclose(std::get<0>(drop->forward(r))));
  // a clone is a deep copy that computes the same
  auto copy = std::dynamic_pointer_cast<nn::LSTMImpl>(lstm->clone());
  ASSERT_TRUE(copy);
  EXPECT_TRUE(std::get<0>(copy->forward(x)).allclose(y));
  EXPECT_FALSE(copy->parameters()[0].is_same(lstm->parameters()[0]));
}

TEST_P(Recurrent, Gradients) {
  const Device d = GetParam();
  manual_seed(5);
  nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true).device(d).dtype(kDouble));
  Tensor x = sample({3, 2, 2}).to(d).requires_grad_();
  Tensor h0 = sample({4, 2, 3}, 0.3).to(d).requires_grad_(), c0 = sample({4, 2, 3}, 0.6).to(d).requires_grad_();
  std::vector<Tensor> leaves = lstm->parameters();
  leaves.insert(leaves.end(), {x, h0, c0});
  gradcheck_leaves([&] {
    auto [y, s] = lstm->forward(x, std::make_tuple(h0, c0));
    return cat({y.reshape({-1}), std::get<1>(s).reshape({-1})});
  }, leaves);
  nn::GRU gru(nn::GRUOptions(2, 3).batch_first(true).device(d).dtype(kDouble));
  leaves = gru->parameters();
  leaves.push_back(x);
  gradcheck_leaves([&] { return std::get<0>(gru->forward(x)); }, leaves);
}

// Under autocast, as PyTorch 2.x: float32 input or input already in the autocast dtype, the output
// and states in the autocast dtype, near the float32 run; the float32 weights' gradients in float32.
TEST_P(Recurrent, AutocastRunsInTheAutocastDtype) {
  const Device d = GetParam();
  manual_seed(7);
  nn::LSTM lstm(nn::LSTMOptions(6, 5).num_layers(2).device(d));
  nn::GRU gru(nn::GRUOptions(6, 5).bidirectional(true).device(d));
  nn::RNN rnn(nn::RNNOptions(6, 5).device(d));
  const Tensor x = randn({4, 3, 6}, TensorOptions().device(d));
  const Tensor y32 = std::get<0>(lstm->forward(x)), g32 = std::get<0>(gru->forward(x)),
               r32 = std::get<0>(rnn->forward(x));
  Tensor loss;
  {
    autocast::AutocastGuard guard(d.type());
    const ScalarType low = autocast::get_autocast_dtype(d.type());
    for (const Tensor& in : {x, x.to(low)}) {
      auto [y, s] = lstm->forward(in);
      EXPECT_EQ(y.scalar_type(), low);
      EXPECT_EQ(std::get<0>(s).scalar_type(), low);
      EXPECT_EQ(std::get<1>(s).scalar_type(), low);
      EXPECT_TRUE(y.to(kFloat).allclose(y32, 0.05, 0.05));
      const Tensor g = std::get<0>(gru->forward(in)), r = std::get<0>(rnn->forward(in));
      EXPECT_EQ(g.scalar_type(), low);
      EXPECT_EQ(r.scalar_type(), low);
      EXPECT_TRUE(g.to(kFloat).allclose(g32, 0.05, 0.05));
      EXPECT_TRUE(r.to(kFloat).allclose(r32, 0.05, 0.05));
    }
    loss = std::get<0>(lstm->forward(x)).to(kFloat).sum();
  }
  loss.backward();
  for (const Tensor& p : lstm->parameters()) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_EQ(p.grad().scalar_type(), kFloat);
    EXPECT_TRUE(p.grad().isfinite().all().item<bool>());
  }
  // outside autocast a mismatched input is still refused, with the fix
  EXPECT_THROW_MSG(lstm->forward(x.to(kBFloat16)), Error, "LSTM: input must have the type float32, got type bfloat16");
}

TEST_P(Recurrent, Errors) {
  const Device d = GetParam();
  nn::LSTM lstm(nn::LSTMOptions(10, 20).num_layers(2).device(d));
  EXPECT_THROW_MSG(lstm->forward(randn({5, 3, 12}, device(d))), Error,
                   "LSTM: input.size(-1) must be equal to input_size. Expected 10, got 12.");
  EXPECT_THROW_MSG(lstm->forward(randn({5, 3, 10, 1}, device(d))), Error, "LSTM: Expected input to be 2D (unbatched) or 3D, got 4D");
  EXPECT_THROW_MSG(lstm->forward(randn({5, 3, 10}, device(d)), std::make_tuple(zeros({2, 3, 20}, device(d)), zeros({1, 3, 20}, device(d)))),
                   Error, "LSTM: Expected hidden[1] size [2, 3, 20], got [1, 3, 20].");
  EXPECT_THROW_MSG(lstm->forward(randn({5, 3, 10}, device(d).dtype(kDouble))), Error, "LSTM: input must have the type float32, got type float64; convert it with .to() or the module with ->to().");
  nn::GRU gru(nn::GRUOptions(4, 6).device(d));
  EXPECT_THROW_MSG(gru->forward(randn({2, 1, 4}, device(d)), zeros({1, 2, 6}, device(d))), Error,
                   "GRU: Expected hidden size [1, 1, 6], got [1, 2, 6].");
  EXPECT_THROW_MSG(nn::LSTM(nn::LSTMOptions(4, 0)), Error, "LSTM: input_size, hidden_size and num_layers must be positive");
  EXPECT_THROW_MSG(nn::GRU(nn::GRUOptions(4, 4).dropout(1.5)), Error, "GRU: dropout should be a number in range [0, 1]");
  if (d.is_cpu()) return;
  EXPECT_THROW(lstm->forward(randn({5, 3, 10})), DeviceMismatchError);  // input on cpu, the layer elsewhere
}

LOCUS_INSTANTIATE_DEVICES(Recurrent);
