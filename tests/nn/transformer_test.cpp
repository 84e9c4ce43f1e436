// MultiheadAttention and the Transformer encoder and decoder against PyTorch 1.13 (the constants
// below come from tests/nn/transformer_cases.py) on every device: batched, unbatched, kdim/vdim,
// bool and float masks, key padding, per-head weights, bias_k/bias_v and the zero key, post-norm
// and norm_first with relu and gelu, two layers and a final norm, the whole Transformer; parameter
// names and initialisation; gradients by finite differences; dropout in train() and eval(); clone(); a larger
// encoder on each device against cpu; every error.
#include <limits>
#include <sstream>

#include "autograd/gradcheck.h"
#include "nn/cases.h"

using namespace locus;

namespace transformer_test {

using Vec = std::vector<double>;

class Transformer : public testing::TestWithParam<Device> {};

namespace {

using nn_cases::det;
using nn_cases::expect_values;
using nn_cases::fill;

// ---- from transformer_cases.py (PyTorch 1.13, float64) ----------------------------------------
const std::vector<std::string> kMhaNames = {"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"};
const Vec kSelfOut = {0.335877938, -0.142601356, -1.15453978, -0.908101525, 0.222894877, -0.233096771, -1.05796745,
    -0.800093379, -0.726300059, -0.174866403, -0.0982128278, -0.684278751, -0.692609709, -0.116252232, -0.121273889,
    -0.747074884, 0.260310786, -0.185882006, -1.08682128, -0.852540584, 0.277406182, -0.206724366, -1.1076963,
    -0.835483775};
const Vec kSelfWeights = {0.585177811, 0.0314946401, 0.383327549, 0.116740021, 0.743487742, 0.139772236, 0.536652355,
    0.0667429619, 0.396604683, 0.382069659, 0.05725079, 0.560679551, 0.151665349, 0.734737123, 0.113597528,
    0.364535954, 0.0321259335, 0.603338112};
const Vec kSelfHeadWeights = {0.619850232, 0.0142738726, 0.365875895, 0.178244694, 0.620600782, 0.201154524,
    0.581335967, 0.0309293045, 0.387734728, 0.55050539, 0.0487154076, 0.400779203, 0.0552353494, 0.866374702,
    0.0783899485, 0.491968743, 0.102556619, 0.405474638, 0.37088926, 0.0255623124, 0.603548427, 0.216155292,
    0.611813859, 0.172030849, 0.347719205, 0.0141637711, 0.638117024, 0.393250057, 0.0889392677, 0.517810675,
    0.0871754061, 0.857660388, 0.0551642063, 0.381352703, 0.050088096, 0.568559201};
const Vec kUnbatchedOut = {0.303675284, -0.296572729, -1.1502588, -0.753353829, -0.701448712, -0.306776588,
    -0.146985197, -0.5612131, -0.91886813, 0.186858731, 0.159951661, -0.99918751};
const Vec kUnbatchedWeights = {0.905343114, 0.0706698521, 0.0239870338, 0.257808466, 0.352890151, 0.389301383,
    0.0391091909, 0.276906535, 0.683984275};
const Vec kBoolMaskOut = {0.479635308, -0.123792177, -1.29488623, -0.952361583, 0.212252806, -0.116524549,
    -1.02618579, -0.910902218, -0.811915066, -0.0237502336, 0.014806078, -0.814899712, -0.745814257, 0.0733455979,
    -0.0336870527, -0.920789439, 0.238945018, -0.285631927, -1.08354449, -0.752196437, 0.277406182, -0.206724366,
    -1.1076963, -0.835483775};
const Vec kBoolMaskWeights = {1, 0, 0, 0.141530706, 0.858469294, 0, 0.888491072, 0.111508928, 0, 1, 0, 0, 0.176665991,
    0.823334009, 0, 0.364535954, 0.0321259335, 0.603338112};
const Vec kFloatKpmOut = {0.357649928, -0.101303722, -1.16882272, -0.951989274, 0.0593225954, -0.230391972,
    -0.893904672, -0.773046505, -0.442727156, -0.395146624, -0.421732064, -0.522666544, -0.738537476, 0.0420407215,
    -0.0466407616, -0.891833629, 0.330423156, -0.113068538, -1.14372942, -0.935673957, 0.134280481, -0.197066617,
    -0.96281923, -0.818869049};
const Vec kFloatKpmWeights = {0.476242812, 0.00942734557, 0.514329842, 0.175613576, 0.471332025, 0.353054399,
    0.441228382, 0.020361527, 0.538410091, 0.743883891, 0.107253312, 0.148862797, 0.172734221, 0.809670902,
    0.0175948763, 0.762930806, 0.065061007, 0.172008187};
const Vec kFloatMaskOut = {0.191761519, -0.147606551, -1.01133102, -0.8771264, 0.398295408, -0.15034676, -1.21836182,
    -0.911929818, -0.45924822, 0.0292343235, -0.328252373, -0.930095588, -0.836309133, -0.0863124931, 0.0278549013,
    -0.749971134, -0.202836009, -0.284126984, -0.641490547, -0.673537897, 0.452636961, -0.210466366, -1.28360566,
    -0.863641739};
const Vec kFloatMaskWeights = {0.0240681339, 0.142718994, 0.0516924479, 0.781520424, 0, 0.401520117, 0.202824468,
    0.345891648, 0.0497637672, 0, 0.301131293, 0.320853238, 0.0660584918, 0.311956977, 0, 0.455444701, 0.0372539872,
    0.507301311, 0, 0, 0.0492396463, 0.794601089, 0.156159265, 0, 0, 0.77576975, 0.0186193602, 0.20561089, 0, 0};
const std::vector<std::string> kKvDimsNames = {"q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias",
    "out_proj.weight", "out_proj.bias"};
const Vec kKvDimsOut = {-0.553445654, 0.576066875, 0.730887852, -0.0722779821, -0.573542195, 0.573016098, 0.750431136,
    -0.0656831358, -0.732024431, 0.574100409, 0.909110009, -0.0379921114, -0.590071186, 0.65855895, 0.782472763,
    -0.145415475, -0.580433787, 0.610904876, 0.764193619, -0.101076207, -0.608500447, 0.573183603, 0.785419762,
    -0.0595056888};
const Vec kKvDimsWeights = {0.0678376861, 0.105597563, 0.60126822, 0.0520259174, 0.173270613, 0.254634394, 0.20228219,
    0.0802636462, 0.312006078, 0.150813692, 0.0871815934, 0.130909623, 0.515543785, 0.0706029891, 0.19576201,
    0.0667369934, 0.311413498, 0.147503327, 0.0725298339, 0.401816347, 0.350985156, 0.096757165, 0.14786724,
    0.322092686, 0.0822977539, 0.0439276043, 0.327890851, 0.128405054, 0.0493521899, 0.4504243};
const std::vector<std::string> kBiasKvNames = {"in_proj_weight", "in_proj_bias", "bias_k", "bias_v",
    "out_proj.weight", "out_proj.bias"};
const Vec kBiasKvOut = {-0.147163122, -0.685129525, 0.0958958417, 1.07376693, 0.00758934852, -0.469872952,
    -0.0198212955, 0.837525829, 0.306719272, 0.0841969, -0.218474396, 0.247431575, 0.0184075399, -0.211425506,
    0.0162282098, 0.585615717, -0.14329999, -0.456810283, 0.133436864, 0.852255496, 0.00493833314, -0.507996719,
    -0.0240837675, 0.874876625};
const Vec kBiasKvWeights = {0.725905281, 0, 0, 0.141668439, 0.13242628, 0.122254137, 0.425656505, 0, 0.217682138,
    0.234407219, 0.626287911, 0.0333209203, 0, 0.175080436, 0.165310733, 0.709038997, 0, 0, 0.168466488, 0.122494514,
    0.0345095297, 0.541287126, 0, 0.175962069, 0.248241275, 0.517253839, 0.107827592, 0, 0.204806006, 0.170112562,
    0.54224179, 0, 0, 0.230736575, 0.227021635, 0.260676842, 0, 0, 0.362424675, 0.376898483, 0.585974717, 0, 0,
    0.211159334, 0.202865948, 0.556105381, 0, 0, 0.254569874, 0.189324745, 0.105150454, 0, 0, 0.351044533,
    0.543805013, 0.634934045, 0, 0, 0.217873665, 0.14719229};
const std::vector<std::string> kNoBiasNames = {"in_proj_weight", "out_proj.weight"};
const Vec kNoBiasOut = {0.529473679, 0.423016644, -0.452762509, -0.505122066, 0.507304792, 0.316852361, -0.449845789,
    -0.39842886, -0.354493244, -0.301814269, 0.299761293, 0.356173954, -0.37364303, -0.239021685, 0.330298086,
    0.298919015, 0.476024921, 0.384868665, -0.406231626, -0.458536026, 0.548261739, 0.343315952, -0.486003745,
    -0.431449453};
const std::vector<std::string> kLayerNames = {"self_attn.in_proj_weight", "self_attn.in_proj_bias",
    "self_attn.out_proj.weight", "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
    "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"};
const Vec kPostNormOut = {-0.954144651, 0.573225557, 0.124344693, 0.220516447, -0.922877342, 0.577067612, 0.169165008,
    0.178061781, -0.824342339, 0.551499506, 0.263754372, 0.0900667853, -0.969814555, 0.564539857, 0.104310024,
    0.243539437, -0.98786233, 0.548417749, 0.0896576966, 0.267906409, -0.921899617, 0.578392928, 0.167081244,
    0.178251944};
const Vec kPostNormUnbatchedOut = {-0.944601778, 0.572160746, 0.150797276, 0.2009649, -0.853662877, 0.558801573,
    0.245602065, 0.110407499, -0.833150779, 0.535876626, 0.282723922, 0.0899796155};
const Vec kPreNormGeluOut = {0.571868495, 1.00058879, 1.48609001, 0.279727828, 1.49675197, 0.754943215, 0.667428276,
    -0.503344303, 0.0768626878, -0.556347385, -0.432333263, -1.56630611, -0.521463323, -0.711501505, -0.387342998,
    -0.926805913, 0.32776739, 0.648269076, 1.15973459, 0.271632367, 1.5552497, 0.959771887, 0.957242719,
    -0.164223847};
const std::vector<std::string> kEncoderNames = {"layers.0.self_attn.in_proj_weight",
    "layers.0.self_attn.in_proj_bias", "layers.0.self_attn.out_proj.weight", "layers.0.self_attn.out_proj.bias",
    "layers.0.linear1.weight", "layers.0.linear1.bias", "layers.0.linear2.weight", "layers.0.linear2.bias",
    "layers.0.norm1.weight", "layers.0.norm1.bias", "layers.0.norm2.weight", "layers.0.norm2.bias",
    "layers.1.self_attn.in_proj_weight", "layers.1.self_attn.in_proj_bias", "layers.1.self_attn.out_proj.weight",
    "layers.1.self_attn.out_proj.bias", "layers.1.linear1.weight", "layers.1.linear1.bias", "layers.1.linear2.weight",
    "layers.1.linear2.bias", "layers.1.norm1.weight", "layers.1.norm1.bias", "layers.1.norm2.weight",
    "layers.1.norm2.bias", "norm.weight", "norm.bias"};
const Vec kEncoderOut = {0.475394444, 0.480905463, 0.900037749, 0.437262511, 0.476334327, 0.48267484, 0.895776189,
    0.443099859, 0.478790426, 0.487792262, 0.883675736, 0.458013451, 0.474903438, 0.479998239, 0.902194983,
    0.434252954, 0.474467057, 0.480027529, 0.903897426, 0.428943204, 0.476314384, 0.482470232, 0.89590381,
    0.443511187};
const std::vector<std::string> kDecoderLayerNames = {"self_attn.in_proj_weight", "self_attn.in_proj_bias",
    "self_attn.out_proj.weight", "self_attn.out_proj.bias", "multihead_attn.in_proj_weight",
    "multihead_attn.in_proj_bias", "multihead_attn.out_proj.weight", "multihead_attn.out_proj.bias", "linear1.weight",
    "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias",
    "norm3.weight", "norm3.bias"};
const Vec kDecoderLayerOut = {-0.932953308, 0.113427058, 0.50526323, -0.13475391, -0.93606492, 0.219974017,
    0.426815926, -0.145640974, -0.270630608, -0.0109037776, 0.393262058, -0.430619299, -1.08029286, 0.0940127504,
    0.458404615, 0.0169394353, -1.06484265, -0.0352501741, 0.531697292, 0.0384298861, -0.932846683, 0.212175941,
    0.433681416, -0.147786495};
const Vec kDecoderPreNormOut = {0.899895222, 0.962812281, 0.625220198, 0.354444339, 1.23557646, 0.876102756,
    0.248594268, -0.464024188, 0.127740355, -0.347778866, -1.12511455, -1.66849631, -0.570673984, -0.798439777,
    -0.88090526, -0.740711167, 0.431397461, 0.835355494, 0.598365574, 0.162159657, 1.34897109, 1.06051552,
    0.495421839, -0.113971252};
const Vec kDecoderOut = {0.325229245, 0.420765999, 0.421253577, 0.838762019, 0.446803544, 0.409019727, 0.428893402,
    0.825051048, 0.281737733, 0.428348249, 0.419588147, 0.837412192, 0.404882205, 0.416957121, 0.426502858,
    0.832200064, 0.330750394, 0.418256032, 0.421271541, 0.838911393, 0.450468219, 0.408171293, 0.429096284,
    0.824294636};
const std::vector<std::string> kTransformerNames = {"encoder.layers.0.self_attn.in_proj_weight",
    "encoder.layers.0.self_attn.in_proj_bias", "encoder.layers.0.self_attn.out_proj.weight",
    "encoder.layers.0.self_attn.out_proj.bias", "encoder.layers.0.linear1.weight", "encoder.layers.0.linear1.bias",
    "encoder.layers.0.linear2.weight", "encoder.layers.0.linear2.bias", "encoder.layers.0.norm1.weight",
    "encoder.layers.0.norm1.bias", "encoder.layers.0.norm2.weight", "encoder.layers.0.norm2.bias",
    "encoder.layers.1.self_attn.in_proj_weight", "encoder.layers.1.self_attn.in_proj_bias",
    "encoder.layers.1.self_attn.out_proj.weight", "encoder.layers.1.self_attn.out_proj.bias",
    "encoder.layers.1.linear1.weight", "encoder.layers.1.linear1.bias", "encoder.layers.1.linear2.weight",
    "encoder.layers.1.linear2.bias", "encoder.layers.1.norm1.weight", "encoder.layers.1.norm1.bias",
    "encoder.layers.1.norm2.weight", "encoder.layers.1.norm2.bias", "encoder.norm.weight", "encoder.norm.bias",
    "decoder.layers.0.self_attn.in_proj_weight", "decoder.layers.0.self_attn.in_proj_bias",
    "decoder.layers.0.self_attn.out_proj.weight", "decoder.layers.0.self_attn.out_proj.bias",
    "decoder.layers.0.multihead_attn.in_proj_weight", "decoder.layers.0.multihead_attn.in_proj_bias",
    "decoder.layers.0.multihead_attn.out_proj.weight", "decoder.layers.0.multihead_attn.out_proj.bias",
    "decoder.layers.0.linear1.weight", "decoder.layers.0.linear1.bias", "decoder.layers.0.linear2.weight",
    "decoder.layers.0.linear2.bias", "decoder.layers.0.norm1.weight", "decoder.layers.0.norm1.bias",
    "decoder.layers.0.norm2.weight", "decoder.layers.0.norm2.bias", "decoder.layers.0.norm3.weight",
    "decoder.layers.0.norm3.bias", "decoder.norm.weight", "decoder.norm.bias"};
const Vec kTransformerOut = {-0.213515211, 0.425977831, 0.268536111, 0.527278684, -0.254166089, 0.405021631,
    0.473140605, 0.409159395, -0.239059734, 0.330205974, 0.550616977, 0.391743903, -0.229641638, 0.299662431,
    0.563870501, 0.397266777, -0.204915486, 0.428843594, 0.24068804, 0.540284269, -0.25637775, 0.42800994,
    0.443956184, 0.416733076, -0.243696151, 0.348162649, 0.535288342, 0.394109968, -0.230100243, 0.300197683,
    0.569438952, 0.39245139, -0.174539051, 0.360118242, 0.227305492, 0.580873576, -0.256446167, 0.445183327,
    0.41649002, 0.425704265};
const Vec kTransformerPreNormOut = {0.312306687, 0.71343322, 0.925036904, -0.494150697, 0.177998918, 0.617501789,
    1.02767215, -0.297096102, -0.009647233, 0.551505939, 0.951494933, 0.117269087, 0.00974721478, 0.568503671,
    0.972953332, 0.0503329472, 0.273049813, 0.716851099, 0.937994535, -0.453976123, 0.246690915, 0.647627791,
    0.999398619, -0.400894062, 0.0148921034, 0.574328116, 0.976408354, 0.0333227575, -0.0107302027, 0.542126308,
    0.95239364, 0.128065154, 0.191952794, 0.687388656, 0.979047474, -0.345434687, 0.294563565, 0.672700544,
    0.965705067, -0.464096339};
const Vec kTransformerUnbatchedOut = {0.168324422, 0.609571912, 1.03231531, -0.279142892, 0.00765911342, 0.559864065,
    0.973506238, 0.0621097192, 0.232627078, 0.637845426, 1.00930355, -0.379728422, -0.0117151346, 0.532919169,
    0.952873736, 0.138939376, 0.273494835, 0.658135221, 0.984309421, -0.4361276};

}  // namespace

TEST_P(Transformer, MultiheadAttentionMatchesPyTorch) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().device(d);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2).device(d));
  EXPECT_EQ(mha->named_parameters().keys(), kMhaNames);
  fill(*mha);
  mha->eval();
  const Tensor x = det({3, 2, 4}, 101, 1, d);
  auto [out, w] = mha(x, x, x);
  expect_values(out, {3, 2, 4}, kSelfOut);
  expect_values(w, {2, 3, 3}, kSelfWeights);
  expect_values(std::get<1>(mha(x, x, x, Tensor(), true, Tensor(), false)), {2, 2, 3, 3}, kSelfHeadWeights);
  // the same values through separate projections (query, key and value not one tensor)
  expect_values(std::get<0>(mha(x, x.clone(), x.clone())), {3, 2, 4}, kSelfOut);
  auto [no_out, no_w] = mha(x, x, x, Tensor(), /*need_weights=*/false);
  expect_values(no_out, {3, 2, 4}, kSelfOut);
  EXPECT_FALSE(no_w.defined());

  const Tensor xu = det({3, 4}, 102, 1, d);
  std::tie(out, w) = mha(xu, xu, xu);
  expect_values(out, {3, 4}, kUnbatchedOut);
  expect_values(w, {3, 3}, kUnbatchedWeights);

  // bool masks: causal attn_mask (true above the diagonal) and key padding
  const Tensor causal = ones({3, 3}, o.dtype(kBool)).triu(1);
  const Tensor pad = tensor({0, 0, 1, 0, 0, 0}, o.dtype(kBool)).reshape({2, 3});
  std::tie(out, w) = mha(x, x, x, pad, true, causal);
  expect_values(out, {3, 2, 4}, kBoolMaskOut);
  expect_values(w, {2, 3, 3}, kBoolMaskWeights);
  // the causal mask as a float one gives the same
  const Tensor causal_float = zeros({3, 3}, o).masked_fill(causal, -INFINITY);
  expect_values(std::get<0>(mha(x, x, x, pad, true, causal_float)), {3, 2, 4}, kBoolMaskOut);
  // a float key_padding_mask is added
  const Tensor float_pad = tensor({0.0, -1.0, 0.5, 0.0, 0.0, -2.0}, o).reshape({2, 3});
  std::tie(out, w) = mha(x, x, x, float_pad);
  expect_values(out, {3, 2, 4}, kFloatKpmOut);
  expect_values(w, {2, 3, 3}, kFloatKpmWeights);
  // cross-attention (S = 5) with a 3-D float mask (N * num_heads, L, S) and bool key padding
  const Tensor kv = det({5, 2, 4}, 106, 1, d);
  const Tensor pad5 = tensor({0, 0, 0, 0, 1, 0, 0, 0, 1, 1}, o.dtype(kBool)).reshape({2, 5});
  std::tie(out, w) = mha(x, kv, kv, pad5, true, det({4, 3, 5}, 107, 2, d));
  expect_values(out, {3, 2, 4}, kFloatMaskOut);
  expect_values(w, {2, 3, 5}, kFloatMaskWeights);

  nn::MultiheadAttention kvdims(nn::MultiheadAttentionOptions(4, 2).kdim(3).vdim(5).device(d));
  EXPECT_EQ(kvdims->named_parameters().keys(), kKvDimsNames);
  EXPECT_FALSE(kvdims->in_proj_weight.defined());
  fill(*kvdims);
  kvdims->eval();
  std::tie(out, w) = kvdims(x, det({5, 2, 3}, 104, 1, d), det({5, 2, 5}, 105, 1, d));
  expect_values(out, {3, 2, 4}, kKvDimsOut);
  expect_values(w, {2, 3, 5}, kKvDimsWeights);

  // bias_k/bias_v and the zero key: two more source positions, the masks widened to them
  nn::MultiheadAttention extra(nn::MultiheadAttentionOptions(4, 2).add_bias_kv(true).add_zero_attn(true).device(d));
  EXPECT_EQ(extra->named_parameters().keys(), kBiasKvNames);
  fill(*extra);
  extra->eval();
  const Tensor pad_last = tensor({0, 0, 1, 0, 1, 1}, o.dtype(kBool)).reshape({2, 3});
  std::tie(out, w) = extra(x, x, x, pad_last, true, causal, /*average_attn_weights=*/false);
  expect_values(out, {3, 2, 4}, kBiasKvOut);
  expect_values(w, {2, 2, 3, 5}, kBiasKvWeights);

  nn::MultiheadAttention no_bias(nn::MultiheadAttentionOptions(4, 2).bias(false).device(d));
  EXPECT_EQ(no_bias->named_parameters().keys(), kNoBiasNames);
  fill(*no_bias);
  no_bias->eval();
  expect_values(std::get<0>(no_bias(x, x, x, Tensor(), false)), {3, 2, 4}, kNoBiasOut);
}

TEST_P(Transformer, EncoderLayerMatchesPyTorch) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().device(d);
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6).device(d));
  EXPECT_EQ(layer->named_parameters().keys(), kLayerNames);
  fill(*layer);
  layer->eval();
  const Tensor x = det({3, 2, 4}, 101, 1, d);
  const Tensor causal = ones({3, 3}, o.dtype(kBool)).triu(1);
  const Tensor pad = tensor({0, 0, 1, 0, 1, 1}, o.dtype(kBool)).reshape({2, 3});
  expect_values(layer(x, causal, pad), {3, 2, 4}, kPostNormOut);
  expect_values(layer(det({3, 4}, 102, 1, d)), {3, 4}, kPostNormUnbatchedOut);

  nn::TransformerEncoderLayer pre(nn::TransformerEncoderLayerOptions(4, 2)
                                      .dim_feedforward(6)
                                      .activation(kGELU)
                                      .norm_first(true)
                                      .layer_norm_eps(1e-3)
                                      .device(d));
  fill(*pre);
  pre->eval();
  expect_values(pre(x, causal, pad), {3, 2, 4}, kPreNormGeluOut);
  // an activation given as a function
  pre->options.activation([](const Tensor& t) { return nn::functional::gelu(t); });
  expect_values(pre(x, causal, pad), {3, 2, 4}, kPreNormGeluOut);
  EXPECT_EQ(layer->self_attn->options.dropout(), 0.1);
  EXPECT_EQ(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(), 2048);
}

TEST_P(Transformer, EncoderMatchesPyTorch) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().device(d);
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6).device(d));
  nn::TransformerEncoder encoder(
      nn::TransformerEncoderOptions(layer, 2).norm(nn::LayerNorm(nn::LayerNormOptions({4}).device(d))));
  EXPECT_EQ(encoder->named_parameters().keys(), kEncoderNames);
  EXPECT_EQ(encoder->state_dict().keys(), kEncoderNames);  // no buffers
  EXPECT_EQ(encoder->layers->size(), 2u);
  // deep copies: the layers and the norm are not the modules passed in
  const Tensor first = encoder->layers->ptr<nn::TransformerEncoderLayerImpl>(0)->linear1->weight;
  EXPECT_FALSE(first.is_same(layer->linear1->weight));
  EXPECT_TRUE(first.equal(layer->linear1->weight));
  fill(*encoder);
  encoder->eval();
  const Tensor x = det({3, 2, 4}, 101, 1, d);
  const Tensor causal = ones({3, 3}, o.dtype(kBool)).triu(1);
  const Tensor pad = tensor({0, 0, 1, 0, 1, 1}, o.dtype(kBool)).reshape({2, 3});
  const Tensor y = encoder(x, causal, pad);
  expect_values(y, {3, 2, 4}, kEncoderOut);
  // clone(): equal outputs, its own parameters; onto cpu from any device
  auto copy = std::dynamic_pointer_cast<nn::TransformerEncoderImpl>(encoder->clone(Device(kCPU)));
  ASSERT_TRUE(copy);
  EXPECT_FALSE(copy->parameters()[0].is_same(encoder->parameters()[0]));
  copy->eval();
  expect_values(copy->forward(x.cpu(), causal.cpu(), pad.cpu()), {3, 2, 4}, kEncoderOut);
  // built from layer options, without a norm
  nn::TransformerEncoder plain(nn::TransformerEncoderOptions(nn::TransformerEncoderLayerOptions(4, 2).device(d), 3));
  EXPECT_EQ(plain->layers->size(), 3u);
  EXPECT_TRUE(plain->norm.is_empty());
  EXPECT_EQ(plain->forward(x).sizes().vec(), (std::vector<int64_t>{3, 2, 4}));
}

TEST_P(Transformer, DecoderMatchesPyTorch) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().device(d);
  nn::TransformerDecoderLayer layer(nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(6).device(d));
  EXPECT_EQ(layer->named_parameters().keys(), kDecoderLayerNames);
  fill(*layer);
  layer->eval();
  const Tensor x = det({3, 2, 4}, 101, 1, d), memory = det({5, 2, 4}, 106, 1, d);
  const Tensor causal = ones({3, 3}, o.dtype(kBool)).triu(1);
  const Tensor pad = tensor({0, 0, 1, 0, 1, 1}, o.dtype(kBool)).reshape({2, 3});
  const Tensor memory_pad = tensor({0, 0, 0, 0, 1, 0, 0, 0, 1, 1}, o.dtype(kBool)).reshape({2, 5});
  expect_values(layer(x, memory, causal, Tensor(), pad, memory_pad), {3, 2, 4}, kDecoderLayerOut);

  nn::TransformerDecoderLayer pre(
      nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(6).activation(kGELU).norm_first(true).device(d));
  fill(*pre);
  pre->eval();
  expect_values(pre(x, memory, Tensor(), det({3, 5}, 108, 2, d)), {3, 2, 4}, kDecoderPreNormOut);

  nn::TransformerDecoder decoder(
      nn::TransformerDecoderOptions(layer, 2).norm(nn::LayerNorm(nn::LayerNormOptions({4}).device(d))));
  const auto names = decoder->named_parameters().keys();
  ASSERT_EQ(names.size(), 2 * kDecoderLayerNames.size() + 2);
  EXPECT_EQ(names[0], "layers.0.self_attn.in_proj_weight");
  EXPECT_EQ(names[kDecoderLayerNames.size() + 4], "layers.1.multihead_attn.in_proj_weight");
  EXPECT_EQ(names.back(), "norm.bias");
  fill(*decoder);
  decoder->eval();
  expect_values(decoder(x, memory, causal, Tensor(), Tensor(), memory_pad), {3, 2, 4}, kDecoderOut);
  EXPECT_THROW_MSG(decoder(x, det({5, 2, 6}, 1, 1, d)), Error,
                   "[MultiheadAttention at TransformerDecoder/layers/0/multihead_attn] key's last dim must be kdim "
                   "(4): got shape [5, 2, 6].");
  EXPECT_THROW_MSG(nn::TransformerDecoder(nn::TransformerDecoderLayer(nullptr), 1), Error,
                   "[TransformerDecoder] decoder_layer is empty (nullptr). Pass a TransformerDecoderLayer.");
  EXPECT_THROW_MSG(nn::TransformerDecoder(layer, -1), Error,
                   "[TransformerDecoder] num_layers must be positive: got -1.");
  EXPECT_THROW_MSG(nn::TransformerDecoderLayer(nn::TransformerDecoderLayerOptions(0, 2)), Error,
                   "[TransformerDecoderLayer] d_model, nhead and dim_feedforward must be positive: got 0, 2 and 2048.");
}

// The whole encoder-decoder: state_dict names, every mask, norm_first with gelu, unbatched, clone().
TEST_P(Transformer, TransformerMatchesPyTorch) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().device(d);
  nn::Transformer model(nn::TransformerOptions(4, 2, 2, 1).dim_feedforward(6).device(d));
  EXPECT_EQ(model->named_parameters().keys(), kTransformerNames);
  EXPECT_EQ(model->state_dict().keys(), kTransformerNames);
  EXPECT_EQ(model->encoder->layers->size(), 2u);
  EXPECT_EQ(model->decoder->layers->size(), 1u);
  fill(*model);
  model->eval();
  const Tensor src = det({3, 2, 4}, 101, 1, d), tgt = det({5, 2, 4}, 109, 1, d);
  const Tensor causal = ones({3, 3}, o.dtype(kBool)).triu(1);
  const Tensor pad = tensor({0, 0, 1, 0, 1, 1}, o.dtype(kBool)).reshape({2, 3});
  const Tensor tgt_pad = tensor({0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, o.dtype(kBool)).reshape({2, 5});
  const Tensor tgt_mask = nn::TransformerImpl::generate_square_subsequent_mask(5).to(d);
  expect_values(model(src, tgt, causal, tgt_mask, Tensor(), pad, tgt_pad, pad), {5, 2, 4}, kTransformerOut);
  auto copy = std::dynamic_pointer_cast<nn::TransformerImpl>(model->clone());
  ASSERT_TRUE(copy);
  EXPECT_FALSE(copy->parameters()[0].is_same(model->parameters()[0]));
  copy->eval();
  expect_values(copy->forward(src, tgt, causal, tgt_mask, Tensor(), pad, tgt_pad, pad), {5, 2, 4}, kTransformerOut);

  nn::Transformer pre(nn::TransformerOptions(4, 2, 1, 2)
                          .dim_feedforward(6)
                          .activation(kGELU)
                          .norm_first(true)
                          .layer_norm_eps(1e-3)
                          .device(d));
  EXPECT_EQ(pre->encoder->norm->options.eps(), 1e-3);
  EXPECT_TRUE(pre->decoder->layers->ptr<nn::TransformerDecoderLayerImpl>(1)->options.norm_first());
  fill(*pre);
  pre->eval();
  expect_values(pre(src, tgt, Tensor(), Tensor(), det({5, 3}, 110, 2, d)), {5, 2, 4}, kTransformerPreNormOut);
  expect_values(pre(det({3, 4}, 102, 1, d), tgt.select(1, 1)), {5, 4}, kTransformerUnbatchedOut);
}

// libtorch's defaults; the causal mask; xavier-uniform for every parameter with more than one dim.
TEST_P(Transformer, TransformerOptionsMaskAndInitialisation) {
  const Device d = GetParam();
  const nn::TransformerOptions defaults;
  EXPECT_EQ(defaults.d_model(), 512);
  EXPECT_EQ(defaults.nhead(), 8);
  EXPECT_EQ(defaults.num_encoder_layers(), 6);
  EXPECT_EQ(defaults.num_decoder_layers(), 6);
  EXPECT_EQ(defaults.dim_feedforward(), 2048);
  EXPECT_EQ(defaults.dropout(), 0.1);
  EXPECT_TRUE(std::holds_alternative<enumtype::kReLU>(defaults.activation()));
  EXPECT_EQ(defaults.layer_norm_eps(), 1e-5);
  EXPECT_FALSE(defaults.norm_first());

  const Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(3);
  EXPECT_EQ(mask.scalar_type(), kFloat);
  EXPECT_TRUE(mask.device().is_cpu());
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(values(mask), (Vec{0, -inf, -inf, 0, 0, -inf, 0, 0, 0}));
  EXPECT_EQ(nn::TransformerImpl::generate_square_subsequent_mask(0).sizes().vec(), (std::vector<int64_t>{0, 0}));

  manual_seed(6);
  nn::Transformer model(nn::TransformerOptions(8, 2, 1, 1).dim_feedforward(16).device(d));
  int64_t matrices = 0;
  for (const auto& item : model->named_parameters()) {
    const Tensor& p = item.value();
    EXPECT_EQ(p.device(), d) << item.key();
    if (p.dim() < 2) continue;
    ++matrices;
    const double bound = std::sqrt(6.0 / static_cast<double>(p.size(0) + p.size(1)));
    EXPECT_LE(p.abs().max().item<double>(), bound) << item.key();
    EXPECT_GT(p.abs().max().item<double>(), 0.8 * bound) << item.key();  // not Linear's 1/sqrt(in)
  }
  EXPECT_EQ(matrices, 4 + 6);  // encoder: in_proj, out_proj, linear1, linear2; decoder: two attentions more
  // the vectors as the layers leave them: zero attention biases, unit LayerNorm weights
  EXPECT_EQ(model->decoder->layers->ptr<nn::TransformerDecoderLayerImpl>(0)->multihead_attn->in_proj_bias.abs()
                .sum()
                .item<double>(),
            0.0);
  EXPECT_TRUE(model->encoder->norm->weight.equal(ones({8}, TensorOptions().device(d))));
  // dropout only while training
  const Tensor src = randn({4, 2, 8}, TensorOptions().device(d)), tgt = randn({3, 2, 8}, TensorOptions().device(d));
  EXPECT_FALSE(model(src, tgt).allclose(model(src, tgt), 1e-4, 1e-4));
  model->eval();
  EXPECT_TRUE(model(src, tgt).equal(model(src, tgt)));
}

// Gradients to the inputs and to parameters in the encoder, the decoder and both final norms.
TEST_P(Transformer, TransformerGradients) {
  const Device d = GetParam();
  nn::Transformer model(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(3).dtype(kDouble).device(d));
  fill(*model);
  model->eval();
  Tensor src = sample({3, 2, 4}).to(d).requires_grad_(), tgt = sample({2, 2, 4}, 1).to(d).requires_grad_();
  const Tensor tgt_mask = nn::TransformerImpl::generate_square_subsequent_mask(2).to(kDouble).to(d);
  const Tensor pad = tensor({0, 0, 0, 0, 0, 1}, TensorOptions().dtype(kBool).device(d)).reshape({2, 3});
  const std::vector<Tensor> leaves = {
      src, tgt, model->encoder->layers->ptr<nn::TransformerEncoderLayerImpl>(0)->self_attn->in_proj_weight,
      model->encoder->norm->weight, model->decoder->layers->ptr<nn::TransformerDecoderLayerImpl>(0)->linear1->weight,
      model->decoder->norm->bias};
  gradcheck_leaves([&] { return model(src, tgt, Tensor(), tgt_mask, Tensor(), pad, Tensor(), pad); }, leaves);
  for (const Tensor& p : model->parameters()) ASSERT_TRUE(p.grad().defined());
}

TEST_P(Transformer, TransformerErrors) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().device(d);
  using nn::TransformerOptions;
  nn::Transformer model(TransformerOptions(4, 2, 1, 1).dim_feedforward(6).device(d));
  const Tensor src = randn({3, 2, 4}, o);
  EXPECT_THROW_MSG(model(src, randn({5, 3, 4}, o)), Error,
                   "[Transformer] src and tgt must have the same batch size (dim 1): got src [3, 2, 4] and tgt "
                   "[5, 3, 4]. Pass them as (S, N, E) and (T, N, E).");
  EXPECT_THROW_MSG(model(src, randn({5, 2, 6}, o)), Error,
                   "[Transformer] src and tgt must have d_model (4) features: got src [3, 2, 4] and tgt [5, 2, 6].");
  EXPECT_THROW_MSG(model(randn({3, 5}, o), randn({5, 4}, o)), Error,
                   "[Transformer] src and tgt must have d_model (4) features: got src [3, 5] and tgt [5, 4].");
  EXPECT_THROW_MSG(model(src, randn({5, 4}, o)), Error,
                   "[Transformer] src and tgt must both be 3-D, (S, N, E) and (T, N, E), or both unbatched 2-D: got "
                   "src [3, 2, 4] and tgt [5, 4].");
  EXPECT_THROW_MSG(model(randn({4}, o), randn({4}, o)), Error,
                   "[Transformer] src and tgt must both be 3-D, (S, N, E) and (T, N, E), or both unbatched 2-D: got "
                   "src [4] and tgt [4].");
  EXPECT_THROW_MSG(model(src, randn({5, 2, 4}, o), zeros({2, 2}, o)), Error,
                   "[MultiheadAttention at Transformer/encoder/layers/0/self_attn] attn_mask has shape [2, 2], but "
                   "should be [3, 3] (L, S)");
  EXPECT_THROW_MSG(model(src, randn({5, 2, 4}, o), Tensor(), Tensor(), zeros({5, 2}, o)), Error,
                   "[MultiheadAttention at Transformer/decoder/layers/0/multihead_attn] attn_mask has shape [5, 2], "
                   "but should be [5, 3] (L, S)");
  EXPECT_THROW_MSG(nn::TransformerImpl::generate_square_subsequent_mask(-1), Error,
                   "[Transformer] generate_square_subsequent_mask's sz must be non-negative: got -1.");
  EXPECT_THROW_MSG(nn::Transformer(TransformerOptions(4, 2, 0, 1)), Error,
                   "[Transformer] num_encoder_layers and num_decoder_layers must be positive: got 0 and 1.");
  EXPECT_THROW_MSG(nn::Transformer(TransformerOptions(4, 2, 1, -2)), Error,
                   "[Transformer] num_encoder_layers and num_decoder_layers must be positive: got 1 and -2.");
  EXPECT_THROW_MSG(nn::Transformer(TransformerOptions(0, 2)), Error,
                   "[Transformer] d_model, nhead and dim_feedforward must be positive: got 0, 2 and 2048.");
  EXPECT_THROW_MSG(nn::Transformer(TransformerOptions(4, 2).dropout(2)), Error,
                   "[Transformer] dropout must be a probability in [0, 1]: got 2. Pass a value in [0, 1].");
  EXPECT_THROW_MSG(nn::Transformer(TransformerOptions(4, 2).activation(std::function<Tensor(const Tensor&)>())), Error,
                   "[Transformer] activation is an empty function. Pass kReLU, kGELU or a callable.");
  EXPECT_THROW_MSG(nn::Transformer(TransformerOptions(6, 4)), Error,
                   "[MultiheadAttention] embed_dim must be divisible by num_heads: embed_dim 6, num_heads 4.");
}

// PyTorch's initialisation: xavier-uniform projections, zero in_proj_bias and out_proj.bias,
// xavier-normal bias_k/bias_v; shapes.
TEST_P(Transformer, Initialisation) {
  const Device d = GetParam();
  manual_seed(1);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(8, 4).add_bias_kv(true).device(d));
  EXPECT_EQ(mha->in_proj_weight.sizes().vec(), (std::vector<int64_t>{24, 8}));
  EXPECT_EQ(mha->in_proj_weight.device(), d);
  EXPECT_EQ(mha->head_dim, 2);
  const double bound = std::sqrt(6.0 / (8 + 24));
  EXPECT_LE(mha->in_proj_weight.abs().max().item<double>(), bound);
  EXPECT_GT(mha->in_proj_weight.abs().max().item<double>(), 0.8 * bound);
  EXPECT_EQ(mha->in_proj_bias.abs().sum().item<double>(), 0.0);
  EXPECT_EQ(mha->out_proj->bias.abs().sum().item<double>(), 0.0);
  EXPECT_EQ(mha->bias_k.sizes().vec(), (std::vector<int64_t>{1, 1, 8}));
  EXPECT_GT(mha->bias_k.abs().sum().item<double>(), 0.0);
  nn::MultiheadAttention separate(nn::MultiheadAttentionOptions(8, 2).kdim(3).vdim(5).dtype(kDouble).device(d));
  EXPECT_EQ(separate->k_proj_weight.sizes().vec(), (std::vector<int64_t>{8, 3}));
  EXPECT_EQ(separate->v_proj_weight.sizes().vec(), (std::vector<int64_t>{8, 5}));
  EXPECT_EQ(separate->v_proj_weight.scalar_type(), kDouble);
  EXPECT_LE(separate->v_proj_weight.abs().max().item<double>(), std::sqrt(6.0 / (8 + 5)));
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).device(d));
  EXPECT_EQ(layer->parameters().size(), 12u);
  EXPECT_EQ(layer->linear1->weight.sizes().vec(), (std::vector<int64_t>{16, 8}));
  EXPECT_EQ(layer->norm2->weight.device(), d);
}

// Gradients against finite differences in float64, through every option and mask, to every
// parameter and input.
TEST_P(Transformer, Gradients) {
  const Device d = GetParam();
  manual_seed(3);
  const TensorOptions o = TensorOptions().device(d).dtype(kDouble);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2).kdim(3).vdim(2).add_bias_kv(true).add_zero_attn(true)
                                 .dtype(kDouble)
                                 .device(d));
  fill(*mha);
  Tensor q = sample({3, 2, 4}).to(d).requires_grad_(), k = sample({2, 2, 3}, 1).to(d).requires_grad_(),
         v = sample({2, 2, 2}, 2).to(d).requires_grad_();
  const Tensor mask = sample({3, 2}, 3).to(d), pad = tensor({0, 0, 0, 1}, o.dtype(kBool)).reshape({2, 2});
  std::vector<Tensor> leaves = mha->parameters();
  EXPECT_EQ(leaves.size(), 8u);
  leaves.insert(leaves.end(), {q, k, v});
  gradcheck_leaves([&] {
    auto [out, w] = mha(q, k, v, pad, true, mask, false);
    return cat({out.reshape({-1}), w.reshape({-1})});
  }, leaves);
  for (const Tensor& p : mha->parameters()) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_GT(p.grad().abs().sum().item<double>(), 0.0);
  }

  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2)
                                        .dim_feedforward(3)
                                        .activation(kGELU)
                                        .norm_first(true)
                                        .dtype(kDouble)
                                        .device(d));
  fill(*layer);
  layer->eval();
  Tensor x = sample({2, 2, 4}).to(d).requires_grad_();
  leaves = layer->parameters();
  leaves.push_back(x);
  gradcheck_leaves([&] { return layer(x, Tensor(), pad); }, leaves);
  for (const Tensor& p : layer->parameters()) ASSERT_TRUE(p.grad().defined());
}

// Dropout on the attention weights and in the layer while training only: train() changes the
// output from one call to the next, eval() gives the same output each time.
TEST_P(Transformer, DropoutOnlyWhileTraining) {
  const Device d = GetParam();
  manual_seed(4);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(8, 2).dropout(0.5).device(d));
  const Tensor x = randn({5, 3, 8}, TensorOptions().device(d));
  mha->eval();
  auto [a, wa] = mha(x, x, x);
  auto [b, wb] = mha(x, x, x);
  EXPECT_TRUE(a.equal(b));
  EXPECT_TRUE(wa.sum(-1).allclose(ones({3, 5}, TensorOptions().device(d)), 1e-5, 1e-5));
  mha->train();
  auto [c, wc] = mha(x, x, x, Tensor(), true, Tensor(), false);
  EXPECT_FALSE(c.allclose(a, 1e-4, 1e-4));
  // the weights returned are the dropped ones: zeros, and the others scaled by 2
  const double zeros_seen = (wc == 0).to(kDouble).mean().item<double>();
  EXPECT_GT(zeros_seen, 0.3);
  EXPECT_LT(zeros_seen, 0.7);
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).device(d));
  const Tensor y1 = layer(x), y2 = layer(x);
  EXPECT_FALSE(y1.allclose(y2, 1e-4, 1e-4));
  layer->eval();
  EXPECT_TRUE(layer(x).equal(layer(x)));
}

// A larger encoder on this device against the same one on cpu.
TEST_P(Transformer, DeviceMatchesCpu) {
  const Device d = GetParam();
  manual_seed(5);
  nn::TransformerEncoder cpu_encoder(nn::TransformerEncoderOptions(
      nn::TransformerEncoderLayerOptions(16, 4).dim_feedforward(32).activation(kGELU), 2).norm(nn::LayerNorm(
      nn::LayerNormOptions({16}))));
  cpu_encoder->eval();
  auto encoder = std::dynamic_pointer_cast<nn::TransformerEncoderImpl>(cpu_encoder->clone(d));
  ASSERT_TRUE(encoder);
  EXPECT_EQ(nn::device_of(*encoder), d);
  const Tensor x = randn({7, 3, 16});
  const Tensor pad = (arange(21).remainder(5) == 4).reshape({3, 7});  // no row all masked
  const Tensor mask = randn({7, 7});
  const Tensor want = cpu_encoder(x, mask, pad);
  const Tensor got = encoder->forward(x.to(d), mask.to(d), pad.to(d));
  EXPECT_EQ(got.device(), d);
  EXPECT_TRUE(got.cpu().allclose(want, 1e-4, 1e-4));
  // and the gradients of the input
  Tensor xc = x.clone().requires_grad_(), xd = x.to(d).requires_grad_();
  cpu_encoder(xc, mask, pad).pow(2).sum().backward();
  encoder->forward(xd, mask.to(d), pad.to(d)).pow(2).sum().backward();
  EXPECT_TRUE(xd.grad().cpu().allclose(xc.grad(), 1e-3, 1e-3));
}

TEST_P(Transformer, Errors) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().device(d);
  using nn::MultiheadAttentionOptions;
  EXPECT_THROW_MSG(nn::MultiheadAttention(5, 2), Error,
                   "[MultiheadAttention] embed_dim must be divisible by num_heads: embed_dim 5, num_heads 2. "
                   "Choose a num_heads that divides embed_dim.");
  EXPECT_THROW_MSG(nn::MultiheadAttention(MultiheadAttentionOptions(4, 0)), Error,
                   "[MultiheadAttention] embed_dim, num_heads, kdim and vdim must be positive: got 4, 0, 4 and 4.");
  EXPECT_THROW_MSG(nn::MultiheadAttention(MultiheadAttentionOptions(4, 2).dropout(1.5)), Error,
                   "[MultiheadAttention] dropout must be a probability in [0, 1]: got 1.5. Pass a value in [0, 1].");
  nn::MultiheadAttention mha(MultiheadAttentionOptions(4, 2).device(d));
  const Tensor x = randn({3, 2, 4}, o);
  EXPECT_THROW_MSG(mha(randn({3, 2, 4, 1}, o), x, x), Error,
                   "[MultiheadAttention] query must be 3-D (L, N, E) or unbatched 2-D (L, E): got shape [3, 2, 4, 1].");
  EXPECT_THROW_MSG(mha(x, randn({3, 4}, o), x), Error,
                   "[MultiheadAttention] key and value must have as many dims as query (3): got key [3, 4] and value "
                   "[3, 2, 4].");
  EXPECT_THROW_MSG(mha(randn({3, 2, 5}, o), x, x), Error,
                   "[MultiheadAttention] query's last dim must be embed_dim (4): got shape [3, 2, 5].");
  EXPECT_THROW_MSG(mha(x, randn({3, 2, 3}, o), x), Error,
                   "[MultiheadAttention] key's last dim must be kdim (4): got shape [3, 2, 3].");
  EXPECT_THROW_MSG(mha(x, x, randn({3, 2, 6}, o)), Error,
                   "[MultiheadAttention] value's last dim must be vdim (4): got shape [3, 2, 6].");
  EXPECT_THROW_MSG(mha(x, randn({5, 2, 4}, o), x), Error,
                   "[MultiheadAttention] key and value must have the same source length and batch size: got key "
                   "[5, 2, 4] and value [3, 2, 4].");
  EXPECT_THROW_MSG(mha(randn({3, 4}, o), randn({5, 4}, o), randn({4, 4}, o)), Error,
                   "[MultiheadAttention] key and value must have the same source length: got key [5, 4] and value "
                   "[4, 4].");
  EXPECT_THROW_MSG(mha(x, randn({3, 1, 4}, o), randn({3, 1, 4}, o)), Error,
                   "[MultiheadAttention] query and key must have the same batch size: got query [3, 2, 4] and key "
                   "[3, 1, 4].");
  EXPECT_THROW_MSG(mha(x, x, x, Tensor(), true, zeros({3, 3}, o.dtype(kLong))), Error,
                   "[MultiheadAttention] attn_mask must be bool (true: may not attend) or floating (added to the "
                   "scores): got int64. Convert it with .to(kBool).");
  EXPECT_THROW_MSG(mha(x, x, x, zeros({2, 3}, o.dtype(kInt))), Error,
                   "[MultiheadAttention] key_padding_mask must be bool (true: may not attend) or floating");
  EXPECT_THROW_MSG(mha(x, x, x, Tensor(), true, zeros({3, 4}, o)), Error,
                   "[MultiheadAttention] attn_mask has shape [3, 4], but should be [3, 3] (L, S) or [4, 3, 3] "
                   "(N * num_heads, L, S). Pass a mask of one of these shapes.");
  EXPECT_THROW_MSG(mha(x, x, x, Tensor(), true, zeros({2, 3, 3}, o.dtype(kBool))), Error,
                   "[MultiheadAttention] attn_mask has shape [2, 3, 3], but should be [3, 3] (L, S) or [4, 3, 3]");
  EXPECT_THROW_MSG(mha(x, x, x, zeros({3, 2}, o.dtype(kBool))), Error,
                   "[MultiheadAttention] key_padding_mask has shape [3, 2], but should be [2, 3] (N, S).");
  const Tensor u = randn({3, 4}, o);
  EXPECT_THROW_MSG(mha(u, u, u, zeros({1, 3}, o)), Error,
                   "[MultiheadAttention] key_padding_mask has shape [1, 3], but should be [3] (S).");
  // inside a model, the message names where
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2).device(d));
  nn::TransformerEncoder encoder(layer, 2);
  EXPECT_THROW_MSG(encoder(randn({3, 2, 6}, o)), Error,
                   "[MultiheadAttention at TransformerEncoder/layers/0/self_attn] query's last dim must be embed_dim "
                   "(4): got shape [3, 2, 6].");
  EXPECT_THROW_MSG(encoder(x, zeros({2, 2}, o)), Error,
                   "[MultiheadAttention at TransformerEncoder/layers/0/self_attn] attn_mask has shape [2, 2]");
  EXPECT_THROW_MSG(nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(4, 3)), Error,
                   "[MultiheadAttention] embed_dim must be divisible by num_heads: embed_dim 4, num_heads 3.");
  EXPECT_THROW_MSG(nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(0)), Error,
                   "[TransformerEncoderLayer] d_model, nhead and dim_feedforward must be positive: got 4, 2 and 0.");
  EXPECT_THROW_MSG(nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(4, 2).dropout(-0.1)), Error,
                   "[TransformerEncoderLayer] dropout must be a probability in [0, 1]: got -0.1.");
  EXPECT_THROW_MSG(nn::TransformerEncoderLayer(
                       nn::TransformerEncoderLayerOptions(4, 2).activation(std::function<Tensor(const Tensor&)>())),
                   Error,
                   "[TransformerEncoderLayer] activation is an empty function. Pass kReLU, kGELU or a callable.");
  EXPECT_THROW_MSG(nn::TransformerEncoder(layer, 0), Error,
                   "[TransformerEncoder] num_layers must be positive: got 0.");
  EXPECT_THROW_MSG(nn::TransformerEncoder(nn::TransformerEncoderLayer(nullptr), 2), Error,
                   "[TransformerEncoder] encoder_layer is empty (nullptr). Pass a TransformerEncoderLayer.");
  if (d.is_cpu()) return;
  EXPECT_THROW_MSG(mha(x.cpu(), x, x), DeviceMismatchError,
                   "MultiheadAttention 4x2: in_proj_weight is on " + d.str() + " but input is on cpu");
  EXPECT_THROW(mha(x, x, x, zeros({2, 3}, TensorOptions().dtype(kBool))), DeviceMismatchError);
}

LOCUS_INSTANTIATE_DEVICES(Transformer);

}  // namespace transformer_test
