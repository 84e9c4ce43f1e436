// LSTM, GRU and RNN against a plain loop over PyTorch's cell equations (float64), on every device:
// several layers, both directions, batch_first, given initial states, unbatched input; gradients
// by finite differences; parameter names, shapes and initialisation; every error. LSTM's proj_size
// and packed sequences (nn::utils::rnn, forward_with_packed_input) against PyTorch 1.13
// (tests/nn/rnn_cases.py).
#include <cmath>
#include <functional>
#include <sstream>

#include "autograd/gradcheck.h"
#include "nn/cases.h"

using namespace locus;

namespace rnn_test {

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


// ---- LSTM's proj_size against PyTorch 1.13: constants from tests/nn/rnn_cases.py -----------------
using nn_cases::det;
using nn_cases::expect_values;
using nn_cases::fill;

const std::vector<std::string> kProjLstmNames = {"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
    "weight_hr_l0", "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse",
    "weight_hr_l0_reverse", "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1", "weight_hr_l1",
    "weight_ih_l1_reverse", "weight_hh_l1_reverse", "bias_ih_l1_reverse", "bias_hh_l1_reverse",
    "weight_hr_l1_reverse"};
const Vec kProjOut = {0.037850945, 0.300547357, -0.0673430505, 0.064174411, 0.0234944261, 0.510741354, -0.0424979209,
    0.0684648273, -0.0283532249, 0.399564427, -0.0665565653, 0.0665418515, -0.0668619935, 0.470342209, -0.0151487638,
    0.0658633764, -0.0607404102, 0.462756762, -0.0638596843, 0.0549889374, -0.0583625468, 0.4877694, -0.0085944607,
    0.041003609, -0.0462383962, 0.45837497, -0.0772977591, 0.0283915419, -0.0568263171, 0.471606469, 0.0238712337,
    0.0240567492, -0.0732845853, 0.484897602, -0.102358706, 0.0161318269, -0.0926497726, 0.500508352, 0.0931040157,
    0.0177573812};
const Vec kProjH = {-0.130217699, 0.176219111, -0.111560568, 0.0918679677, 0.442926628, 0.32078326, 0.458167861,
    0.321893836, -0.0732845853, 0.484897602, -0.0926497726, 0.500508352, -0.0673430505, 0.064174411, -0.0424979209,
    0.0684648273};
const Vec kProjC = {0.0581182772, 0.173583561, 0.302489133, 0.176508235, 0.0161673622, 0.161305345, 0.340258227,
    -0.139688259, -0.311218195, -0.725041815, -0.654618189, -0.0345282181, -0.243966557, -0.734478078, -0.586340641,
    -0.0320260921, -1.01611521, -1.02501457, -0.668209703, -0.591935774, -1.04744002, -1.02520447, -0.747744495,
    -0.633052853, 0.24091929, -0.159964575, -0.211183781, -0.385449154, 0.308042772, -0.0881360097, -0.198237547,
    -0.359811126};
const Vec kProjBatchFirstOut = {-0.0941009386, 0.0779019645, 0.0511628985, -0.183563338, 0.0812622824, 0.138773157,
    -0.0711583372, 0.0805027199, 0.0267868113, 0.0185469831, -0.0884064405, 0.0301809203, -0.0435949762, -0.177720816,
    0.14155122, -0.0292588417, -0.0524438267, 0.0581648551, -0.119448812, 0.0710560318, 0.0802841163, -0.15954903,
    0.0848621243, 0.112774687};
const Vec kProjBatchFirstH = {0.0185469831, -0.0884064405, 0.0301809203, -0.15954903, 0.0848621243, 0.112774687};
const Vec kProjBatchFirstC = {0.0759970453, 0.325776475, -0.00767553626, -0.0546533037, -0.127571112, 0.0431966266,
    -0.276197353, -0.622147502, 0.121933005, 0.821858069};
const Vec kProjUnbatchedOut = {-0.128294178, 0.0676056049, 0.0910312902, -0.061214275, 0.0799275828, 0.0171597532,
    0.026041821, -0.0780288076, 0.0169661336, -0.0433021418, -0.222861853, 0.166139243};
const Vec kProjUnbatchedH = {-0.0433021418, -0.222861853, 0.166139243};
const Vec kPackedData = {-0.889995575, -0.664881766, -0.864551425, -0.987772763, -0.0971819088, 0.269298434,
    -0.349779308, 0.0126641318, -0.977303624, -0.83456105, 0.599330485, 0.848245978, 0.373393536, 0.683585882,
    -0.578864574, -0.244821444, 0.901258111, 0.996949255, 0.957708001, 0.788845479};
const Vec kPackedLstmData = {0.14149136, -0.029136937, -0.018962746, -0.218692506, -0.102697203, -0.103248089,
    0.229119743, 0.15500946, 0.171645472, -0.276540995, -0.173744408, -0.0680673129, 0.106192433, 0.0604632842,
    -0.0625041281, -0.192526237, -0.137812169, -0.0870131242, 0.303493923, 0.0751329402, 0.1086861, -0.22749222,
    -0.111365444, -0.103977967, 0.271416934, 0.175096604, 0.242210771, -0.236942485, -0.149920729, -0.0687547272,
    0.201538471, 0.195084116, 0.0927507221, -0.0670409354, -0.0876852108, -0.038118575, 0.375768459, 0.124325338,
    0.177522382, -0.225987384, -0.122422687, -0.0973362184, 0.337845611, 0.17525003, 0.256472057, -0.230779409,
    -0.0887089435, 0.0218728575, 0.383160115, 0.16853999, 0.207261213, -0.20462239, -0.122780764, -0.0814282865,
    0.340655386, 0.225530071, 0.220013081, -0.147563305, -0.0534122158, 0.0253455764};
const Vec kPackedLstmH = {-0.0141063757, -0.0237129428, -0.0458995699, -0.460806617, -0.061620248, 0.241448166,
    -0.362855484, -0.0295799829, 0.185699369, -0.137273893, -0.0491979808, -0.0128164859, -0.256957055, -0.256249301,
    -0.126120157, -0.025475977, -0.150483645, -0.204914388, 0.337845611, 0.17525003, 0.256472057, 0.340655386,
    0.225530071, 0.220013081, 0.201538471, 0.195084116, 0.0927507221, -0.276540995, -0.173744408, -0.0680673129,
    -0.218692506, -0.102697203, -0.103248089, -0.192526237, -0.137812169, -0.0870131242};
const Vec kPackedLstmC = {-0.0277289424, -0.0402885424, -0.0671595094, -0.644906079, -0.0781134402, 0.367179935,
    -0.50879984, -0.0390049739, 0.278539697, -0.312289666, -0.149636775, -0.0596396159, -0.609226963, -0.806515324,
    -0.580294029, -0.0833357274, -0.509973384, -0.701470265, 0.459683984, 0.314879634, 0.567555694, 0.474046122,
    0.37001193, 0.518168418, 0.300293891, 0.327835395, 0.183717025, -0.547951938, -0.316262242, -0.119626406,
    -0.472340418, -0.156997903, -0.205557765, -0.418537288, -0.226043508, -0.150459455};
const Vec kPackedLstmPadded = {0.229119743, 0.15500946, 0.171645472, -0.276540995, -0.173744408, -0.0680673129,
    0.14149136, -0.029136937, -0.018962746, -0.218692506, -0.102697203, -0.103248089, 0.106192433, 0.0604632842,
    -0.0625041281, -0.192526237, -0.137812169, -0.0870131242, 0.271416934, 0.175096604, 0.242210771, -0.236942485,
    -0.149920729, -0.0687547272, 0.303493923, 0.0751329402, 0.1086861, -0.22749222, -0.111365444, -0.103977967,
    0.201538471, 0.195084116, 0.0927507221, -0.0670409354, -0.0876852108, -0.038118575, 0.337845611, 0.17525003,
    0.256472057, -0.230779409, -0.0887089435, 0.0218728575, 0.375768459, 0.124325338, 0.177522382, -0.225987384,
    -0.122422687, -0.0973362184, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0.383160115, 0.16853999, 0.207261213,
    -0.20462239, -0.122780764, -0.0814282865, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0.340655386,
    0.225530071, 0.220013081, -0.147563305, -0.0534122158, 0.0253455764, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
const Vec kPackedGruData = {0.0256048007, -0.175750888, -0.271572635, 0.0670917864, -0.186182482, -0.29025931,
    -0.317533896, -0.157266543, 0.0171793926, -0.212184311, -0.182385255, -0.149174435, 0.0927346865, -0.249890398,
    -0.43918013, -0.617511546, -0.116972224, 0.458651144, -0.533029399, -0.111553403, 0.3356321, -0.0903334343,
    -0.209926129, -0.312385644, -0.733096241, -0.153582886, 0.591672783, -0.790226967, -0.213666077, 0.592544795};
const Vec kPackedGruH = {-0.0903334343, -0.209926129, -0.312385644, -0.790226967, -0.213666077, 0.592544795,
    -0.617511546, -0.116972224, 0.458651144};
const Vec kPackedRnnData = {-0.764956541, -0.863795699, -0.817899028, 0.92788736, 0.982883883, 0.904208524,
    -0.819584986, -0.892504985, -0.830278916, 0.939177162, 0.984118186, 0.896247909, -0.213451918, -0.47502752,
    -0.648448855, 0.733779841, 0.924346993, 0.876181124, -0.850398987, -0.339718543, 0.268350739, 0.820028754,
    0.967762272, 0.918543671, -0.962142455, -0.769310036, 0.00485686997, 0.931748007, 0.974319503, 0.863217156,
    -0.0294646768, 0.346596875, 0.167098245, 0.197511802, 0.571331999, 0.800260536, -0.262173084, -0.150057975,
    -0.154082447, 0.526905045, 0.92739126, 0.927000505, -0.880061498, -0.698112303, -0.188842887, 0.832920667,
    0.78109053, 0.598418978, 0.343612019, 0.344020449, -0.0963443821, 0.18714008, 0.839162423, 0.915841889,
    0.628498489, 0.203086718, -0.571203056, 0.0517736312, 0.509459551, 0.807021666};
const Vec kPackedRnnH = {0.628498489, 0.203086718, -0.571203056, -0.880061498, -0.698112303, -0.188842887,
    -0.0294646768, 0.346596875, 0.167098245, 0.92788736, 0.982883883, 0.904208524, 0.939177162, 0.984118186,
    0.896247909, 0.733779841, 0.924346993, 0.876181124};
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

// proj_size: two layers in both directions from given states, batch_first without biases,
// unbatched; parameter names and order, shapes, initialisation and printing as PyTorch's.
TEST_P(Recurrent, LSTMProjSizeMatchesPyTorch) {
  const Device d = GetParam();
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2).proj_size(2).bidirectional(true).device(d));
  EXPECT_EQ(lstm->named_parameters().keys(), kProjLstmNames);
  EXPECT_EQ(lstm->named_parameters()["weight_hr_l0"].sizes(), IntArrayRef({2, 4}));
  EXPECT_EQ(lstm->named_parameters()["weight_hh_l0"].sizes(), IntArrayRef({16, 2}));
  EXPECT_EQ(lstm->named_parameters()["weight_ih_l1"].sizes(), IntArrayRef({16, 4}));  // proj_size * 2 directions in
  EXPECT_EQ(lstm->all_weights().size(), 20u);
  for (const Tensor& p : lstm->parameters()) {
    EXPECT_EQ(p.device(), d);
    EXPECT_LE(p.abs().max().item<double>(), 0.5);  // uniform in +-1/sqrt(hidden_size)
  }
  fill(*lstm);
  auto [y, state] = lstm->forward(det({5, 2, 3}, 101, 1, d),
                                  std::make_tuple(det({4, 2, 2}, 102, 0.5, d), det({4, 2, 4}, 103, 0.5, d)));
  expect_values(y, {5, 2, 4}, kProjOut);
  expect_values(std::get<0>(state), {4, 2, 2}, kProjH);
  expect_values(std::get<1>(state), {4, 2, 4}, kProjC);
  auto [y0, s0] = lstm->forward(det({5, 3, 3}, 1, 1, d));  // zero states: h [4, 3, 2], c [4, 3, 4]
  EXPECT_EQ(y0.sizes(), IntArrayRef({5, 3, 4}));
  EXPECT_EQ(std::get<0>(s0).sizes(), IntArrayRef({4, 3, 2}));
  EXPECT_EQ(std::get<1>(s0).sizes(), IntArrayRef({4, 3, 4}));

  nn::LSTM bf(nn::LSTMOptions(3, 5).proj_size(3).batch_first(true).bias(false).device(d));
  EXPECT_EQ(bf->named_parameters().keys(), (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "weight_hr_l0"}));
  fill(*bf);
  auto [by, bs] = bf->forward(det({2, 4, 3}, 104, 1, d));
  expect_values(by, {2, 4, 3}, kProjBatchFirstOut);
  expect_values(std::get<0>(bs), {1, 2, 3}, kProjBatchFirstH);
  expect_values(std::get<1>(bs), {1, 2, 5}, kProjBatchFirstC);
  auto [uy, us] = bf->forward(det({4, 3}, 105, 1, d));
  expect_values(uy, {4, 3}, kProjUnbatchedOut);
  expect_values(std::get<0>(us), {1, 3}, kProjUnbatchedH);
  EXPECT_EQ(std::get<1>(us).sizes(), IntArrayRef({1, 5}));
  std::ostringstream printed;
  printed << *bf;
  EXPECT_EQ(printed.str(), "locus::nn::LSTM(input_size=3, hidden_size=5, num_layers=1, bias=false, batch_first=true, "
                           "dropout=0, bidirectional=false, proj_size=3)");
  auto copy = std::dynamic_pointer_cast<nn::LSTMImpl>(bf->clone());
  ASSERT_TRUE(copy);
  EXPECT_TRUE(std::get<0>(copy->forward(det({2, 4, 3}, 104, 1, d))).equal(by));
}

TEST_P(Recurrent, LSTMProjSizeGradientsAndErrors) {
  const Device d = GetParam();
  manual_seed(8);
  nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).proj_size(2).bidirectional(true).device(d).dtype(kDouble));
  Tensor x = sample({3, 2, 2}).to(d).requires_grad_();
  Tensor h0 = sample({4, 2, 2}, 0.3).to(d).requires_grad_(), c0 = sample({4, 2, 3}, 0.6).to(d).requires_grad_();
  std::vector<Tensor> leaves = lstm->parameters();
  leaves.insert(leaves.end(), {x, h0, c0});
  gradcheck_leaves([&] {
    auto [y, s] = lstm->forward(x, std::make_tuple(h0, c0));
    return cat({y.reshape({-1}), std::get<0>(s).reshape({-1}), std::get<1>(s).reshape({-1})});
  }, leaves);
  EXPECT_TRUE(lstm->named_parameters()["weight_hr_l1_reverse"].grad().defined());

  const TensorOptions o = TensorOptions().device(d).dtype(kDouble);
  EXPECT_THROW_MSG(lstm->forward(x, std::make_tuple(zeros({4, 2, 3}, o), zeros({4, 2, 3}, o))), Error,
                   "LSTM: Expected hidden[0] size [4, 2, 2], got [4, 2, 3].");
  EXPECT_THROW_MSG(lstm->forward(x, std::make_tuple(zeros({4, 2, 2}, o), zeros({4, 2, 2}, o))), Error,
                   "LSTM: Expected hidden[1] size [4, 2, 3], got [4, 2, 2].");
  EXPECT_THROW_MSG(nn::LSTM(nn::LSTMOptions(4, 3).proj_size(3)), Error,
                   "[LSTM] proj_size must be smaller than hidden_size: got proj_size 3 and hidden_size 3. Pass a "
                   "proj_size below hidden_size, or 0 for no projection.");
  EXPECT_THROW_MSG(nn::LSTM(nn::LSTMOptions(4, 3).proj_size(-1)), Error,
                   "[LSTM] proj_size must be non-negative (0: no projection): got -1.");
  EXPECT_EQ(nn::LSTMOptions(4, 3).proj_size(), 0);
}

// Packing and padding against PyTorch 1.13 (rnn_cases.py), and LSTM / GRU / RNN over packed input:
// the packed outputs and each sequence's final states, taken at its own last step.
TEST_P(Recurrent, PackedSequencesMatchPyTorch) {
  namespace rnn = nn::utils::rnn;
  const Device d = GetParam();
  const std::vector<Tensor> seqs = {det({3, 2}, 111, 1, d), det({5, 2}, 112, 1, d), det({2, 2}, 113, 1, d)};
  const Tensor padded = rnn::pad_sequence(seqs);
  EXPECT_EQ(padded.sizes(), IntArrayRef({5, 3, 2}));
  EXPECT_EQ(values(padded.select(1, 2).narrow(0, 2, 3)), Vec(6, 0.0));
  EXPECT_TRUE(rnn::pad_sequence(seqs, true, -1).equal(rnn::pad_sequence(seqs, false, -1).transpose(0, 1)));
  const Tensor lengths = tensor({3, 5, 2}, TensorOptions().dtype(kLong));
  const rnn::PackedSequence packed = rnn::pack_padded_sequence(padded, lengths, false, false);
  expect_values(packed.data(), {10, 2}, kPackedData);
  EXPECT_EQ(values(packed.batch_sizes()), (Vec{3, 3, 2, 1, 1}));
  EXPECT_EQ(values(packed.sorted_indices()), (Vec{1, 0, 2}));
  EXPECT_EQ(values(packed.unsorted_indices()), (Vec{1, 0, 2}));
  // unpacked: the original order and lengths, batch first, padded with -1 to 6 steps
  auto [unpacked, unpacked_lengths] = rnn::pad_packed_sequence(packed, true, -1, 6);
  EXPECT_EQ(unpacked.sizes(), IntArrayRef({3, 6, 2}));
  EXPECT_TRUE(unpacked.narrow(1, 0, 5).equal(rnn::pad_sequence(seqs, true, -1)));
  EXPECT_EQ(values(unpacked.select(1, 5)), Vec(6, -1.0));
  EXPECT_EQ(values(unpacked_lengths), (Vec{3, 5, 2}));
  // a sorted batch needs no indices
  const rnn::PackedSequence sorted = rnn::pack_sequence({seqs[1], seqs[0], seqs[2]});
  EXPECT_FALSE(sorted.sorted_indices().defined());
  EXPECT_TRUE(sorted.data().equal(packed.data()));

  nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true).device(d));
  fill(*lstm);
  auto [ly, ls] = lstm->forward_with_packed_input(
      packed, std::make_tuple(det({4, 3, 3}, 114, 0.5, d), det({4, 3, 3}, 115, 0.5, d)));
  expect_values(ly.data(), {10, 6}, kPackedLstmData);
  EXPECT_EQ(values(ly.batch_sizes()), (Vec{3, 3, 2, 1, 1}));
  EXPECT_TRUE(ly.unsorted_indices().equal(packed.unsorted_indices()));
  expect_values(std::get<0>(ls), {4, 3, 3}, kPackedLstmH);
  expect_values(std::get<1>(ls), {4, 3, 3}, kPackedLstmC);
  expect_values(std::get<0>(rnn::pad_packed_sequence(ly, false, -1, 6)), {6, 3, 6}, kPackedLstmPadded);

  nn::GRU gru(nn::GRUOptions(2, 3).batch_first(true).device(d));
  fill(*gru);
  auto [gy, gh] =
      gru->forward_with_packed_input(rnn::pack_padded_sequence(padded.transpose(0, 1), lengths, true, false));
  expect_values(gy.data(), {10, 3}, kPackedGruData);
  expect_values(gh, {1, 3, 3}, kPackedGruH);

  nn::RNN elman(nn::RNNOptions(2, 3).bidirectional(true).device(d));
  fill(*elman);
  auto [ry, rh] = elman->forward_with_packed_input(sorted);
  expect_values(ry.data(), {10, 6}, kPackedRnnData);
  expect_values(rh, {2, 3, 3}, kPackedRnnH);
}

TEST_P(Recurrent, PackedSequenceGradientsAndErrors) {
  namespace rnn = nn::utils::rnn;
  const Device d = GetParam();
  manual_seed(9);
  const TensorOptions o = TensorOptions().device(d).dtype(kDouble);
  nn::LSTM lstm(nn::LSTMOptions(2, 3).bidirectional(true).proj_size(2).device(d).dtype(kDouble));
  Tensor a = sample({3, 2}).to(d).requires_grad_(), b = sample({1, 2}, 1).to(d).requires_grad_(),
         c = sample({2, 2}, 2).to(d).requires_grad_(), h0 = sample({2, 3, 2}, 0.3).to(d).requires_grad_();
  const Tensor c0 = sample({2, 3, 3}, 0.6).to(d);
  std::vector<Tensor> leaves = lstm->parameters();
  leaves.insert(leaves.end(), {a, b, c, h0});
  gradcheck_leaves([&] {
    auto [y, s] = lstm->forward_with_packed_input(rnn::pack_sequence({a, b, c}, false), std::make_tuple(h0, c0));
    const Tensor padded = std::get<0>(rnn::pad_packed_sequence(y, true));
    return cat({padded.reshape({-1}), std::get<0>(s).reshape({-1}), std::get<1>(s).reshape({-1})});
  }, leaves);

  const Tensor padded = zeros({5, 3, 2}, o);
  auto lengths = [](std::vector<int64_t> v) { return tensor(v, TensorOptions().dtype(kLong)); };
  EXPECT_THROW_MSG(rnn::pack_padded_sequence(zeros({5}, o), lengths({5})), Error,
                   "[pack_padded_sequence] input must have at least 2 dims, (T, B, *) or (B, T, *) batch_first: got "
                   "shape [5].");
  EXPECT_THROW_MSG(rnn::pack_padded_sequence(zeros({5, 0, 2}, o), zeros({0}, TensorOptions().dtype(kLong))), Error,
                   "[pack_padded_sequence] input holds no sequence steps: got shape [5, 0, 2].");
  EXPECT_THROW_MSG(rnn::pack_padded_sequence(padded, lengths({5, 3})), Error,
                   "[pack_padded_sequence] lengths must be 1-D with one entry per sequence (3): got shape [2].");
  EXPECT_THROW_MSG(rnn::pack_padded_sequence(padded, lengths({3, 6, 2}), false, false), Error,
                   "[pack_padded_sequence] every length must be in [1, 5] (the padded length): got [3, 6, 2]. Drop "
                   "empty sequences, or pad the input further.");
  EXPECT_THROW_MSG(rnn::pack_padded_sequence(padded, lengths({5, 0, 2})), Error,
                   "[pack_padded_sequence] every length must be in [1, 5] (the padded length): got [5, 0, 2].");
  EXPECT_THROW_MSG(rnn::pack_padded_sequence(padded, lengths({3, 5, 2})), Error,
                   "[pack_padded_sequence] lengths must be in decreasing order when enforce_sorted is true: got "
                   "[3, 5, 2]. Sort the batch, or pass enforce_sorted = false.");
  const rnn::PackedSequence packed = rnn::pack_padded_sequence(padded, lengths({5, 3, 2}));
  EXPECT_THROW_MSG(rnn::pad_packed_sequence(packed, false, 0, 4), Error,
                   "[pad_packed_sequence] total_length must be at least the longest sequence's length (5): got 4.");
  EXPECT_THROW_MSG(rnn::pad_packed_sequence(rnn::PackedSequence()), Error,
                   "[pad_packed_sequence] sequence is empty (default-constructed). Pass a PackedSequence from "
                   "pack_padded_sequence or pack_sequence.");
  EXPECT_THROW_MSG(rnn::PackedSequence(zeros({3, 2}, o), lengths({2, 1}), lengths({0, 0})), Error,
                   "[PackedSequence] sorted_indices must be a permutation of 0 .. 1: got [0, 0].");
  EXPECT_THROW_MSG(rnn::PackedSequence(zeros({3, 2}, o), lengths({2, 1}), lengths({2, 0})), Error,
                   "[PackedSequence] sorted_indices must be a permutation of 0 .. 1: got [2, 0].");
  EXPECT_THROW_MSG(rnn::pad_sequence({}), Error, "[pad_sequence] sequences is empty. Pass at least one tensor.");
  EXPECT_THROW_MSG(rnn::pad_sequence({zeros({3, 2}, o), zeros({2, 3}, o)}), Error,
                   "[pad_sequence] every sequence must be (L, *) with the first's trailing dims: got [3, 2] for "
                   "sequence 0 and [2, 3] for sequence 1.");
  EXPECT_THROW_MSG(rnn::pack_sequence({zeros({3, 2}, o), zeros({}, o)}), Error,
                   "[pad_sequence] every sequence must be (L, *) with the first's trailing dims: got [3, 2] for "
                   "sequence 0 and [] for sequence 1.");
  EXPECT_THROW_MSG(lstm->forward_with_packed_input(rnn::PackedSequence()), Error,
                   "[LSTM] the packed input is empty (default-constructed). Pass a PackedSequence from "
                   "pack_padded_sequence or pack_sequence.");
  EXPECT_THROW_MSG(lstm->forward_with_packed_input(packed, std::make_tuple(zeros({2, 2, 2}, o), c0)), Error,
                   "LSTM: Expected hidden[0] size [2, 3, 2], got [2, 2, 2].");
  nn::GRU gru(nn::GRUOptions(2, 3).device(d).dtype(kDouble));
  EXPECT_THROW_MSG(gru->forward_with_packed_input(rnn::PackedSequence(zeros({4}, o), lengths({2, 2}))), Error,
                   "[GRU] the packed input's data must be 2-D (sum of the lengths, input_size): got shape [4].");
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

}  // namespace rnn_test
