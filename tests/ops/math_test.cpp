// The math batch of elementwise ops (trig/hyperbolic, trunc/frac, erfc/erfinv, lgamma/digamma, logit,
// sinc, signbit; hypot, fmod, copysign, xlogy, div's rounding modes, floor_divide, pow with a scalar
// base, float_power, nextafter, ldexp, logical_xor) on every device, against PyTorch 1.13's values
// (tests/ops/math_cases.py prints the table below), their gradients (second order where locus has
// it), integer promotion and the error messages.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>

#include "testing.h"

using namespace locus;

namespace math_test {
using V = std::vector<double>;

namespace {
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Output of tests/ops/math_cases.py (PyTorch 1.13, float64).
const std::map<std::string, V> kTorch = {
{"tan", {0.7470222972386603, -1.5574077246549023, -0.5463024898437905, -0.0, 0.0, 0.30933624960962325,
     0.5463024898437905, 1.5574077246549023, -2.185039863261519, 1.4492795301268253}},
{"asin", {kNan, -1.5707963267948966, -0.5235987755982989, -0.0, 0.0, 0.30469265401539747, 0.5235987755982989,
     1.5707963267948966, kNan, kNan}},
{"acos", {kNan, 3.141592653589793, 2.0943951023931957, 1.5707963267948966, 1.5707963267948966, 1.2661036727794992,
     1.0471975511965976, 0.0, kNan, kNan}},
{"atan", {-1.1902899496825317, -0.7853981633974483, -0.4636476090008061, -0.0, 0.0, 0.2914567944778671,
     0.4636476090008061, 0.7853981633974483, 1.1071487177940904, 1.433730152484709}},
{"sinh", {-6.0502044810397875, -1.1752011936438014, -0.5210953054937474, -0.0, 0.0, 0.3045202934471426,
     0.5210953054937474, 1.1752011936438014, 3.626860407847019, 704.0520690151534}},
{"cosh", {6.132289479663686, 1.5430806348152437, 1.1276259652063807, 1.0, 1.0, 1.0453385141288605,
     1.1276259652063807, 1.5430806348152437, 3.7621956910836314, 704.0527791895422}},
{"asinh", {-1.6472311463710958, -0.881373587019543, -0.48121182505960347, -0.0, 0.0, 0.29567304756342244,
     0.48121182505960347, 0.881373587019543, 1.4436354751788103, 2.678871313462426}},
{"acosh", {kNan, kNan, kNan, kNan, kNan, kNan, kNan, 0.0, 1.3169578969248166, 2.669358110903154}},
{"atanh", {kNan, -kInf, -0.5493061443340548, -0.0, 0.0, 0.30951960420311175, 0.5493061443340548, kInf, kNan, kNan}},
{"log10", {kNan, kNan, kNan, -kInf, -kInf, -0.5228787452803376, -0.3010299956639812, 0.0, 0.3010299956639812,
     0.8603380065709937}},
{"trunc", {-2.0, -1.0, -0.0, -0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 7.0}},
{"frac", {-0.5, 0.0, -0.5, 0.0, 0.0, 0.3, 0.5, 0.0, 0.0, 0.25}},
{"erfc", {1.999593047982555, 1.8427007929497148, 1.5204998778130465, 1.0, 1.0, 0.6713732405408726,
     0.4795001221869535, 0.15729920705028513, 0.004677734981047265, 1.1466900814815012e-24}},
{"erfinv", {kNan, -kInf, -0.4769362762044699, -0.0, 0.0, 0.2724627147267544, 0.4769362762044699, kInf, kNan, kNan}},
{"lgamma", {-0.05624371649767405, kInf, 1.2655121234846454, kInf, kInf, 1.0957979948180756, 0.5723649429247001, 0.0,
     0.0, 7.0521854507385395}},
{"digamma", {1.1031566406452433, kNan, 0.03648997397857639, kInf, -kInf, -3.502524222200133, -1.9635100260214229,
     -0.5772156649015328, 0.422784335098467, 1.910453526883736}},
{"logit", {kNan, kNan, kNan, -kInf, -kInf, -0.8472978603872036, 0.0, kInf, kNan, kNan}},
{"sinc", {0.12732395447351627, 3.8981718325193755e-17, 0.6366197723675814, 1.0, 1.0, 0.8583936913341398,
     0.6366197723675814, 3.8981718325193755e-17, -3.8981718325193755e-17, -0.031045390212314006}},
{"deg2rad", {-0.04363323129985824, -0.017453292519943295, -0.008726646259971648, -0.0, 0.0, 0.005235987755982988,
     0.008726646259971648, 0.017453292519943295, 0.03490658503988659, 0.1265363707695889}},
{"rad2deg", {-143.2394487827058, -57.29577951308232, -28.64788975654116, -0.0, 0.0, 17.188733853924695,
     28.64788975654116, 57.29577951308232, 114.59155902616465, 415.39440146984685}},
{"logit_eps", {-1.0986122886681098, -1.0986122886681098, -1.0986122886681098, -1.0986122886681098,
     -1.0986122886681098, -0.8472978603872036, 0.0, 1.0986122886681098, 1.0986122886681098, 1.0986122886681098}},
{"signbit", {1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}},
{"edges_asin", {kNan, kNan, 1.5707963267948966, -1.5707963267948966}},
{"edges_atanh", {kInf, -kInf, kNan}},
{"edges_acosh", {0.0, kNan, kInf}},
{"edges_erfinv", {kInf, -kInf, kNan, 2.3267537655135153, -3.7665625815775803}},
{"edges_lgamma", {1.2655121234846454, kInf, -0.05624371649767405, kInf, 6.907178885383853, 359.1342053695754, kInf,
     kInf}},
{"edges_digamma", {-kInf, kInf, kNan, 1.1031566406452433, -0.5772156649015328, 2.251752589066721,
     -1000.5755719318104, 4.8113737751162775}},
{"polygamma1", {9.53924664493752, 6.580790147320947e+32, 8.934802200117687, kInf, 12.245364544940365,
     1.6449340676383375, 0.6449340670881899, 0.14787923316154666, 1000001.6425331949, 0.008136651610865263}},
{"edges_trunc", {-2.0, 2.0, -0.0, kInf, -kInf}},
{"hypot", {7.762087348130012, 7.762087348130012, 7.762087348130012, 7.762087348130012, 5.830951894845301,
     5.830951894845301, 2.0, 3.0}},
{"fmod", {1.5, -1.5, 1.5, -1.5, 2.0, -2.0, 0.0, kNan}},
{"remainder", {1.5, 0.5, -0.5, -1.5, 2.0, 1.0, 0.0, kNan}},
{"copysign", {7.5, 7.5, -7.5, -7.5, 5.0, 5.0, 0.0, 3.0}},
{"xlogy", {5.19860385419959, -5.19860385419959, kNan, kNan, 5.493061443340549, -5.493061443340549, 0.0, -kInf}},
{"div_trunc", {3.0, -3.0, -3.0, 3.0, 1.0, -1.0, 0.0, kInf}},
{"div_floor", {3.0, -4.0, -4.0, 3.0, 1.0, -2.0, 0.0, kInf}},
{"fmod_scalar", {0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 0.5}},
{"xlogy_edges", {0.0, kNan, 0.0, -kInf}},
{"copysign_zero", {-1.0, 1.0}},
{"int_div_trunc", {3.0, -3.0, -3.0, 3.0, 2.0, -2.0, 0.0, 5.0}},
{"int_div_floor", {3.0, -4.0, -4.0, 3.0, 2.0, -2.0, 0.0, 5.0}},
{"int_fmod", {1.0, -1.0, 1.0, -1.0, 0.0, 0.0, 0.0, 0.0}},
{"int_remainder", {1.0, 1.0, -1.0, -1.0, 0.0, 0.0, 0.0, 0.0}},
{"int_floor_divide", {3.0, -4.0, -4.0, 3.0, 2.0, -2.0, 0.0, 5.0}},
{"pow_scalar_base", {1.0, 2.0, 32.0, 1024.0}},
{"pow_scalar_base_f", {0.4, 1.5811388300841898, 6.25}},
{"float_power", {1.4142135623730951, 9.0}},
{"ldexp", {8.0, -1.5, 8.0}},
{"nextafter_up", {1.0000000000000002, -5e-324}},
{"nextafter_f32", {1.0000001192092896, 1.401298464324817e-45}},
{"int_tan", {1.5574077367782593, -2.185039758682251}},
{"int_copysign", {-1.0, 2.0}},
{"grad_tan", {1.7094497158631172, 1.0410913584959274, 1.095688915322547, 1.4680431725279575}},
{"grad_asin", {1.4002800840280099, 1.0206207261596576, 1.0482848367219182, 1.25}},
{"grad_acos", {-1.4002800840280099, -1.0206207261596576, -1.0482848367219182, -1.25}},
{"grad_atan", {0.6711409395973155, 0.9615384615384615, 0.9174311926605504, 0.7352941176470589}},
{"grad_sinh", {1.255169005630943, 1.020066755619076, 1.0453385141288605, 1.1854652182422676}},
{"grad_cosh", {-0.7585837018395334, -0.20133600254109402, 0.3045202934471426, 0.6366535821482412}},
{"grad_asinh", {0.8192319205190405, 0.9805806756909201, 0.9578262852211513, 0.8574929257125443}},
{"grad_atanh", {1.9607843137254901, 1.0416666666666667, 1.0989010989010988, 1.5625}},
{"grad_trunc", {0.0, 0.0, 0.0, 0.0}},
{"grad_frac", {1.0, 1.0, 1.0, 1.0}},
{"grad_erfc", {-0.6912748604105386, -1.084134787104863, -1.031260909618963, -0.7872434317142872}},
{"grad_erfinv", {1.5163632173337642, 0.9151293475072344, 0.9545203588405493, 1.2628624281411842}},
{"grad_sinc", {1.3652403755203535, 0.6323614470684578, -0.9020281301388888, -1.3559469113367533}},
{"grad_deg2rad", {0.017453292519943295, 0.017453292519943295, 0.017453292519943295, 0.017453292519943295}},
{"grad_rad2deg", {57.29577951308232, 57.29577951308232, 57.29577951308232, 57.29577951308232}},
{"grad_acosh", {0.8944271909999159, 0.5773502691896258, 0.3233808333817773, 0.2581988897471611}},
{"grad_log10", {0.2895296546021679, 0.21714724095162594, 0.13362907135484672, 0.10857362047581297}},
{"grad_lgamma", {0.036489973978576194, 0.422784335098467, 1.016990911068179, 1.2561176684318003}},
{"grad_digamma", {0.9348022009716718, 0.6449340670881899, 0.35979829037509636, 0.2838229557697153}},
{"grad_logit", {4.761904761904762, 6.249999999999999, 4.761904761904762, 4.166666666666667}},
{"grad_logit_eps", {4.761904761904762, 0.0, 4.761904761904762, 4.166666666666667}},
{"grad_sinc0", {0.0, -1.0}},
{"grad2_tan", {-2.8796992653148323, -0.42207933249696306, 0.6778725996094256, 2.0086847411221784}},
{"grad2_asin", {-1.921953056509033, -0.2126293179499287, 0.3455884077105224, 1.171875}},
{"grad2_acos", {1.921953056509033, 0.2126293179499287, -0.3455884077105224, -1.171875}},
{"grad2_atan", {0.6306022251249943, 0.3698224852071006, -0.505007995959936, -0.6487889273356403}},
{"grad2_sinh", {-0.7585837018395334, -0.20133600254109402, 0.3045202934471426, 0.6366535821482412}},
{"grad2_cosh", {1.255169005630943, 1.020066755619076, 1.0453385141288605, 1.1854652182422676}},
{"grad2_asinh", {0.3848740566196835, 0.1885732068636385, -0.26362191336361956, -0.37830570252024026}},
{"grad2_atanh", {-5.382545174932718, -0.4340277777777779, 0.7245501750996255, 2.9296875}},
{"grad2_erfc", {-0.967784804574754, -0.4336539148419452, 0.6187565457713778, 0.9446921180571446}},
{"grad2_erfinv", {-3.370255885361794, -0.3000515722240515, 0.496486526010743, 1.898207858155958}},
{"grad2_acosh", {-1.073312629199899, -0.3849001794597507, -0.10990721134544065, -0.0688530372659096}},
{"grad2_log10", {-0.19301976973477858, -0.10857362047581295, -0.041116637339952834, -0.02714340511895324}},
{"grad2_lgamma", {0.9348022009716718, 0.6449340670881899, 0.35979829037509636, 0.2838229557697153}},
{"grad_hypot_a", {0.9486832980505138, -0.5547001962252291, 0.0, 0.6}},
{"grad_hypot_b", {0.31622776601683794, 0.8320502943378437, 1.0, -0.8}},
{"grad_fmod_a", {1.0, 1.0, 1.0, 1.0}},
{"grad_fmod_b", {-3.0, 0.0, -0.0, 0.0}},
{"grad_copysign_a", {1.0, -1.0, 0.0, -1.0}},
{"grad_copysign_b", {0.0, 0.0, 0.0, 0.0}},
{"grad_xlogy_a", {-0.6931471805599453, 1.0986122886681098, 0.6931471805599453, kNan}},
{"grad_xlogy_b", {3.0, -0.6666666666666666, 0.0, -0.75}},
{"grad_remainder_a", {1.0, 1.0, 1.0, 1.0}},
{"grad_remainder_b", {-3.0, 1.0, -0.0, 1.0}},
{"grad_div_floor_a", {0.0, 0.0, 0.0, 0.0}},
{"grad_div_floor_b", {0.0, 0.0, 0.0, 0.0}},
};

const V& torch_values(const std::string& name) {
  auto it = kTorch.find(name);
  if (it == kTorch.end()) throw std::runtime_error("no PyTorch values for " + name);
  return it->second;
}

// NaN matches NaN, infinities match exactly, finite values within atol + rtol * |want|.
void expect_close(const Tensor& got_t, const V& want, double rtol, double atol, const std::string& what) {
  V got = values(got_t);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = got[i], w = want[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << what << "[" << i << "]: got " << g << ", want NaN";
    } else if (std::isinf(w)) {
      EXPECT_EQ(g, w) << what << "[" << i << "]";
    } else {
      EXPECT_NEAR(g, w, atol + rtol * std::abs(w)) << what << "[" << i << "]";
    }
  }
}

const V kUnaryX = {-2.5, -1.0, -0.5, -0.0, 0.0, 0.3, 0.5, 1.0, 2.0, 7.25};
const V kBinA = {7.5, -7.5, 7.5, -7.5, 5.0, -5.0, 0.0, 3.0};
const V kBinB = {2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 2.0, 0.0};
const std::vector<int64_t> kBinI = {7, -7, 7, -7, 6, -6, 0, 5};
const std::vector<int64_t> kBinJ = {2, 2, -2, -2, 3, 3, 2, 1};
const V kGX = {-0.7, -0.2, 0.3, 0.6};
const V kGP = {1.5, 2.0, 3.25, 4.0};
const V kGA = {1.5, -2.0, 0.0, 3.0};
const V kGB = {0.5, 3.0, 2.0, -4.0};

using Fn = std::function<Tensor(const Tensor&)>;
const std::vector<std::pair<std::string, Fn>>& unary_ops() {
  static const std::vector<std::pair<std::string, Fn>> ops = {
      {"tan", [](const Tensor& x) { return x.tan(); }},
      {"asin", [](const Tensor& x) { return x.asin(); }},
      {"acos", [](const Tensor& x) { return x.acos(); }},
      {"atan", [](const Tensor& x) { return x.atan(); }},
      {"sinh", [](const Tensor& x) { return x.sinh(); }},
      {"cosh", [](const Tensor& x) { return x.cosh(); }},
      {"asinh", [](const Tensor& x) { return x.asinh(); }},
      {"acosh", [](const Tensor& x) { return x.acosh(); }},
      {"atanh", [](const Tensor& x) { return x.atanh(); }},
      {"log10", [](const Tensor& x) { return x.log10(); }},
      {"trunc", [](const Tensor& x) { return x.trunc(); }},
      {"frac", [](const Tensor& x) { return x.frac(); }},
      {"erfc", [](const Tensor& x) { return x.erfc(); }},
      {"erfinv", [](const Tensor& x) { return x.erfinv(); }},
      {"lgamma", [](const Tensor& x) { return x.lgamma(); }},
      {"digamma", [](const Tensor& x) { return x.digamma(); }},
      {"logit", [](const Tensor& x) { return x.logit(); }},
      {"sinc", [](const Tensor& x) { return x.sinc(); }},
      {"deg2rad", [](const Tensor& x) { return x.deg2rad(); }},
      {"rad2deg", [](const Tensor& x) { return x.rad2deg(); }},
      {"logit_eps", [](const Tensor& x) { return x.logit(0.25); }},
      {"signbit", [](const Tensor& x) { return x.signbit(); }},
  };
  return ops;
}

}  // namespace

class MathOps : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o(ScalarType dt = kDouble) const { return TensorOptions().dtype(dt).device(GetParam()); }
  Tensor t(const V& v, ScalarType dt = kDouble) const { return tensor(v, o(kDouble)).to(dt); }
  Tensor ti(const std::vector<int64_t>& v) const { return tensor(v, TensorOptions().device(GetParam())); }
};

TEST_P(MathOps, UnaryFloat64AndFloat32MatchPyTorch) {
  for (const auto& [name, fn] : unary_ops()) {
    Tensor r64 = fn(t(kUnaryX));
    EXPECT_EQ(r64.dtype(), name == "signbit" ? kBool : kDouble) << name;
    expect_close(r64, torch_values(name), 1e-12, 1e-15, name + " float64");
    Tensor r32 = fn(t(kUnaryX, kFloat));
    EXPECT_EQ(r32.dtype(), name == "signbit" ? kBool : kFloat) << name;
    expect_close(r32, torch_values(name), 2e-6, 1e-6, name + " float32");
  }
}

TEST_P(MathOps, UnaryEdgeCasesPyTorchDefines) {
  for (ScalarType dt : {kDouble, kFloat}) {
    double rtol = dt == kDouble ? 1e-12 : 2e-6;
    expect_close(t({2.0, -2.0, 1.0, -1.0}, dt).asin(), torch_values("edges_asin"), rtol, 0, "asin");
    expect_close(t({1.0, -1.0, 2.0}, dt).atanh(), torch_values("edges_atanh"), rtol, 0, "atanh");
    expect_close(t({1.0, 0.5, kInf}, dt).acosh(), torch_values("edges_acosh"), rtol, 0, "acosh");
    expect_close(t({-2.7, 2.7, -0.2, kInf, -kInf}, dt).trunc(), torch_values("edges_trunc"), rtol, 0, "trunc");
    expect_close(t({-0.5, -1.0, -2.5, 0.0, 1e-3, 100.0, -kInf, kInf}, dt).lgamma(), torch_values("edges_lgamma"),
                 dt == kDouble ? 1e-12 : 1e-5, 0, "lgamma");
    expect_close(t({0.0, -0.0, -1.0, -2.5, 1.0, 10.0, 1e-3, 123.4}, dt).digamma(), torch_values("edges_digamma"),
                 dt == kDouble ? 1e-12 : 1e-5, 0, "digamma");
  }
  // erfinv near +-1: float64 only (float32 cannot hold 0.9999999 closely enough)
  expect_close(t({1.0, -1.0, 1.5, 0.999, -0.9999999}).erfinv(), torch_values("edges_erfinv"), 1e-10, 0, "erfinv");
  EXPECT_TRUE(std::isnan(values(t({kNan}, kFloat).erfinv())[0]));
  // signbit reads the sign of zeros and of NaN
  Tensor z = t({-0.0, 0.0, -kNan, kNan}, kFloat);
  EXPECT_EQ(values(z.signbit()), (V{1, 0, std::signbit(-kNan) ? 1.0 : 0.0, std::signbit(kNan) ? 1.0 : 0.0}));
}

TEST_P(MathOps, InPlaceAliasesAndFreeFunctions) {
  Tensor x = t({0.3, -0.6, 0.9}, kFloat);
  const std::vector<std::pair<std::function<Tensor&(Tensor&)>, Fn>> pairs = {
      {[](Tensor& a) -> Tensor& { return a.tan_(); }, [](const Tensor& a) { return locus::tan(a); }},
      {[](Tensor& a) -> Tensor& { return a.arcsin_(); }, [](const Tensor& a) { return locus::asin(a); }},
      {[](Tensor& a) -> Tensor& { return a.arccos_(); }, [](const Tensor& a) { return locus::arccos(a); }},
      {[](Tensor& a) -> Tensor& { return a.arctan_(); }, [](const Tensor& a) { return locus::atan(a); }},
      {[](Tensor& a) -> Tensor& { return a.sinh_(); }, [](const Tensor& a) { return locus::sinh(a); }},
      {[](Tensor& a) -> Tensor& { return a.cosh_(); }, [](const Tensor& a) { return locus::cosh(a); }},
      {[](Tensor& a) -> Tensor& { return a.arcsinh_(); }, [](const Tensor& a) { return locus::asinh(a); }},
      {[](Tensor& a) -> Tensor& { return a.arctanh_(); }, [](const Tensor& a) { return locus::arctanh(a); }},
      {[](Tensor& a) -> Tensor& { return a.fix_(); }, [](const Tensor& a) { return locus::trunc(a); }},
      {[](Tensor& a) -> Tensor& { return a.frac_(); }, [](const Tensor& a) { return locus::frac(a); }},
      {[](Tensor& a) -> Tensor& { return a.erfc_(); }, [](const Tensor& a) { return locus::erfc(a); }},
      {[](Tensor& a) -> Tensor& { return a.erfinv_(); }, [](const Tensor& a) { return locus::erfinv(a); }},
      {[](Tensor& a) -> Tensor& { return a.logit_(0.1); }, [](const Tensor& a) { return locus::logit(a, 0.1); }},
      {[](Tensor& a) -> Tensor& { return a.sinc_(); }, [](const Tensor& a) { return locus::sinc(a); }},
      {[](Tensor& a) -> Tensor& { return a.deg2rad_(); }, [](const Tensor& a) { return locus::deg2rad(a); }},
      {[](Tensor& a) -> Tensor& { return a.rad2deg_(); }, [](const Tensor& a) { return locus::rad2deg(a); }},
      {[](Tensor& a) -> Tensor& { return a.sgn_(); }, [](const Tensor& a) { return locus::sign(a); }},
      {[](Tensor& a) -> Tensor& { return a.absolute_(); }, [](const Tensor& a) { return locus::abs(a); }},
      {[](Tensor& a) -> Tensor& { return a.negative_(); }, [](const Tensor& a) { return locus::neg(a); }},
      {[](Tensor& a) -> Tensor& { return a.clip_(-0.5, 0.5); },
       [](const Tensor& a) { return locus::clamp(a, -0.5, 0.5); }},
  };
  for (size_t i = 0; i < pairs.size(); ++i) {
    Tensor y = x.clone();
    Tensor& r = pairs[i].first(y);
    EXPECT_TRUE(r.is_same(y)) << i;
    EXPECT_EQ(values(y), values(pairs[i].second(x))) << i;
  }
  Tensor p = t({1.5, 2.5}, kFloat);
  EXPECT_EQ(values(p.clone().log10_()), values(locus::log10(p)));
  EXPECT_EQ(values(p.clone().acosh_()), values(locus::arccosh(p)));
  EXPECT_EQ(values(p.clone().lgamma_()), values(locus::lgamma(p)));
  EXPECT_EQ(values(p.clone().digamma_()), values(locus::digamma(p)));
  EXPECT_EQ(values(locus::fix(p)), values(p.trunc()));
  EXPECT_EQ(values(locus::sgn(p.neg())), (V{-1, -1}));
  EXPECT_EQ(values(locus::absolute(p.neg())), values(p));
  EXPECT_EQ(values(locus::negative(p)), values(p.neg()));
  EXPECT_EQ(values(locus::clip(p, std::nullopt, 2.0)), (V{1.5, 2.0}));
  EXPECT_EQ(values(locus::signbit(p.neg())), (V{1, 1}));
}

TEST_P(MathOps, IntegerInputsPromoteAsPyTorch) {
  Tensor i = ti({1, 2});
  EXPECT_EQ(i.tan().dtype(), kFloat);
  expect_close(i.tan(), torch_values("int_tan"), 1e-6, 0, "tan(int)");
  for (Tensor r : {i.asin(), i.atanh(), i.log10(), i.erfc(), i.erfinv(), i.lgamma(), i.digamma(), i.logit(), i.sinc(),
                   i.deg2rad(), i.rad2deg(), i.xlogy(i), i.copysign(i)})
    EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(i.trunc().dtype(), kLong);  // rounding keeps integers
  EXPECT_EQ(values(i.trunc()), (V{1, 2}));
  EXPECT_EQ(i.sgn().dtype(), kLong);
  EXPECT_EQ(i.fmod(i).dtype(), kLong);
  EXPECT_EQ(i.fmod(2.5).dtype(), kFloat);
  EXPECT_EQ(values(i.fmod(2.5)), (V{1, 2}));
  EXPECT_EQ(i.signbit().dtype(), kBool);
  EXPECT_EQ(values(ti({-1, 1}).signbit()), (V{1, 0}));
  EXPECT_EQ(values(tensor({true, false}, TensorOptions().device(GetParam())).signbit()), (V{0, 0}));
  expect_close(ti({1, 2}).copysign(ti({-1, 1})), torch_values("int_copysign"), 0, 0, "copysign(int)");
  Tensor i2 = i.clone();
  EXPECT_THROW_MSG(i2.tan_(), Error, "[tan_] result type Float can't be cast to the desired output type Long.");
  EXPECT_THROW_MSG(i.frac(), Error, "[frac] expected a floating-point tensor, got Long");
  EXPECT_THROW_MSG(i.hypot(i), Error, "[hypot] expected floating-point inputs, got Long and Long");
  EXPECT_THROW_MSG(i.nextafter(i), Error, "[nextafter] expected float32 or float64 inputs, got Long.");
  EXPECT_THROW_MSG(t({1.0}, kHalf).nextafter(t({2.0}, kHalf)), Error,
                   "[nextafter] expected float32 or float64 inputs, got Half.");
}

TEST_P(MathOps, HalfAndBFloat16KeepTheirDtype) {
  for (ScalarType dt : {kHalf, kBFloat16}) {
    Tensor x = t({0.3, -0.6, 0.9}, dt);
    Tensor ref = t({0.3, -0.6, 0.9}, dt).to(kFloat);  // the same rounded inputs in float32
    for (const auto& [name, fn] : unary_ops()) {
      if (name == "signbit") continue;
      Tensor r = fn(x);
      EXPECT_EQ(r.dtype(), dt) << name;
      expect_close(r, values(fn(ref)), 1e-2, 1e-2, name + " " + toString(dt));
    }
    expect_close(x.hypot(x), values(ref.hypot(ref)), 1e-2, 1e-3, "hypot");
    expect_close(x.fmod(0.5), values(ref.fmod(0.5)), 1e-2, 1e-3, "fmod");
    EXPECT_EQ(x.xlogy(x.abs()).dtype(), dt);
  }
}

TEST_P(MathOps, BinaryFloatMatchPyTorch) {
  for (ScalarType dt : {kDouble, kFloat}) {
    double rtol = dt == kDouble ? 1e-12 : 2e-6;
    Tensor a = t(kBinA, dt), b = t(kBinB, dt);
    expect_close(a.hypot(b), torch_values("hypot"), rtol, 0, "hypot");
    expect_close(a.fmod(b), torch_values("fmod"), rtol, 0, "fmod");
    expect_close(a.remainder(b), torch_values("remainder"), rtol, 0, "remainder");
    expect_close(a.copysign(b), torch_values("copysign"), rtol, 0, "copysign");
    expect_close(a.xlogy(b), torch_values("xlogy"), rtol, 0, "xlogy");
    expect_close(a.div(b, "trunc"), torch_values("div_trunc"), 0, 0, "div trunc");
    expect_close(a.div(b, "floor"), torch_values("div_floor"), 0, 0, "div floor");
    expect_close(locus::floor_divide(a, b), torch_values("div_floor"), 0, 0, "floor_divide");
    expect_close(a.div(b, std::nullopt), values(a / b), 0, 0, "div None");
    expect_close(locus::true_divide(a, b), values(a / b), 0, 0, "true_divide");
    expect_close(a.fmod(-2.5), torch_values("fmod_scalar"), rtol, 0, "fmod scalar");
    expect_close(locus::xlogy(t({0.0, 0.0, 0.0, 2.0}, dt), t({0.0, kNan, 5.0, 0.0}, dt)), torch_values("xlogy_edges"),
                 rtol, 0, "xlogy edges");
    EXPECT_EQ(values(t({1.0, 1.0}, dt).copysign(t({-0.0, 0.0}, dt))), torch_values("copysign_zero"));
  }
  // fmod keeps the dividend's sign, remainder the divisor's: the sign of a zero result too
  Tensor f = t(kBinA).fmod(-2.5);
  EXPECT_TRUE(std::signbit(values(f)[1]));
  EXPECT_FALSE(std::signbit(values(f)[0]));
  // broadcasting and scalar forms
  Tensor col = t({3.0, 6.0}).reshape({2, 1});
  EXPECT_EQ(values(col.hypot(t({4.0, 8.0}))), (V{5, std::hypot(3.0, 8.0), std::hypot(6.0, 4.0), 10}));
  EXPECT_EQ(values(t({7.5, -7.5}).div(2, "floor")), (V{3, -4}));
  EXPECT_EQ(values(t({7.5, -7.5}).div(2, "trunc")), (V{3, -3}));
  EXPECT_EQ(values(locus::div(t({7.5, -7.5}), 2, "floor")), (V{3, -4}));
  EXPECT_EQ(values(t({-7.5}).copysign(1)), (V{7.5}));
  EXPECT_EQ(values(locus::xlogy(2, t({1.0, 4.0}))), (V{0, 2 * std::log(4.0)}));
  EXPECT_EQ(values(locus::remainder(5, t({3.0, -3.0}))), (V{2, -1}));
  expect_close(locus::nextafter(t({1.0, 0.0}), t({2.0, -1.0})), torch_values("nextafter_up"), 0, 0, "nextafter");
  expect_close(t({1.0, 0.0}, kFloat).nextafter(t({2.0, 1.0}, kFloat)), torch_values("nextafter_f32"), 0, 0,
               "nextafter f32");
}

TEST_P(MathOps, IntegerDivisionModes) {
  Tensor a = ti(kBinI), b = ti(kBinJ);
  for (const auto& [name, r] : std::vector<std::pair<std::string, Tensor>>{{"int_div_trunc", a.div(b, "trunc")},
                                                                          {"int_div_floor", a.div(b, "floor")},
                                                                          {"int_fmod", a.fmod(b)},
                                                                          {"int_remainder", a.remainder(b)},
                                                                          {"int_floor_divide", a.floor_divide(b)}}) {
    EXPECT_EQ(r.dtype(), kLong) << name;
    EXPECT_EQ(values(r), torch_values(name)) << name;
  }
  EXPECT_EQ(a.div(b).dtype(), kFloat);  // true division promotes
  EXPECT_EQ(a.div(2, "trunc").dtype(), kLong);
  EXPECT_EQ(values(a.div(2, "trunc")), (V{3, -3, 3, -3, 3, -3, 0, 2}));
  EXPECT_EQ(values(a.div(2, "floor")), (V{3, -4, 3, -4, 3, -3, 0, 2}));
  EXPECT_EQ(a.to(kInt).div(b.to(kInt), "floor").dtype(), kInt);
  // An integer division by zero: PyTorch's cpu raises ZeroDivisionError (its GPU returns garbage);
  // locus returns 0, as its remainder already does, on every device (no crash, no trap).
  Tensor z = ti({0, 0});
  EXPECT_EQ(values(ti({5, -5}).div(z, "trunc")), (V{0, 0}));
  EXPECT_EQ(values(ti({5, -5}).div(z, "floor")), (V{0, 0}));
  EXPECT_EQ(values(ti({5, -5}).fmod(z)), (V{0, 0}));
  EXPECT_EQ(values(ti({5, -5}).fmod(0)), (V{0, 0}));
  // INT64_MIN / -1 wraps instead of trapping
  int64_t mn = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(ti({mn}).div(ti({-1}), "trunc").cpu().data_ptr<int64_t>()[0], mn);
  EXPECT_EQ(ti({mn}).fmod(ti({-1})).cpu().data_ptr<int64_t>()[0], 0);
  // in place
  Tensor c = a.clone();
  c.div_(b, "floor");
  EXPECT_EQ(values(c), torch_values("int_div_floor"));
  Tensor d = a.clone();
  d.floor_divide_(2);
  EXPECT_EQ(values(d), (V{3, -4, 3, -4, 3, -3, 0, 2}));
  Tensor e = a.clone();
  e.fmod_(b);
  EXPECT_EQ(values(e), torch_values("int_fmod"));
  Tensor f = a.clone();
  EXPECT_THROW_MSG(f.div_(b, std::nullopt), Error,
                   "[div_] result type Float can't be cast to the desired output type Long.");
  EXPECT_THROW_MSG(a.div(b, "round"), Error,
                   "[div] expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'.");
  EXPECT_THROW_MSG(f.div_(2, "Floor"), Error,
                   "[div_] expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'Floor'.");
  EXPECT_THROW_MSG(locus::div(a, b, "x"), Error, "[div] expected rounding_mode");
}

TEST_P(MathOps, PowersLogicalXorAndInPlaceBinary) {
  Tensor e = ti({0, 1, 5, 10});
  Tensor p = locus::pow(2, e);
  EXPECT_EQ(p.dtype(), kLong);
  EXPECT_EQ(values(p), torch_values("pow_scalar_base"));
  expect_close(locus::pow(2.5, t({-1.0, 0.5, 2.0})), torch_values("pow_scalar_base_f"), 1e-14, 0, "pow(2.5, t)");
  EXPECT_EQ(locus::pow(2.5, ti({1, 2})).dtype(), kFloat);
  // the new overload leaves pow(Tensor, Scalar) and pow(Tensor, Tensor) unambiguous
  EXPECT_EQ(values(locus::pow(e, 2)), (V{0, 1, 25, 100}));
  EXPECT_EQ(values(locus::pow(ti({2, 3}), ti({3, 2}))), (V{8, 9}));
  Tensor fp = locus::float_power(ti({2, 3}), t({0.5, 2.0}, kFloat));
  EXPECT_EQ(fp.dtype(), kDouble);
  expect_close(fp, torch_values("float_power"), 1e-15, 0, "float_power");
  EXPECT_EQ(ti({2, 3}).float_power(2).dtype(), kDouble);
  EXPECT_EQ(values(locus::float_power(2, ti({1, 3}))), (V{2, 8}));
  expect_close(locus::ldexp(t({1.0, -3.0, 0.5}), ti({3, -1, 4})), torch_values("ldexp"), 0, 0, "ldexp");
  Tensor x = t({1.0, 2.0}, kFloat);
  EXPECT_THROW_MSG(x.float_power_(2), Error,
                   "[float_power_] the base must be float64 for an in-place float_power, got Float; "
                   "use float_power() instead.");
  Tensor x64 = t({4.0, 9.0});
  x64.float_power_(0.5);
  EXPECT_EQ(values(x64), (V{2, 3}));

  Tensor l = locus::logical_xor(ti({0, 1, 2}), t({0.0, 0.0, 3.0}, kFloat));
  EXPECT_EQ(l.dtype(), kBool);
  EXPECT_EQ(values(l), (V{0, 1, 0}));
  Tensor lx = t({0.0, 2.0}, kFloat);
  lx.logical_xor_(ti({1, 1}));
  EXPECT_EQ(lx.dtype(), kFloat);
  EXPECT_EQ(values(lx), (V{1, 0}));

  Tensor h = t({3.0, 5.0}, kFloat);
  h.hypot_(t({4.0, 12.0}, kFloat));
  EXPECT_EQ(values(h), (V{5, 13}));
  Tensor cs = t({3.0, 5.0}, kFloat);
  cs.copysign_(-1);
  EXPECT_EQ(values(cs), (V{-3, -5}));
  Tensor xl = t({2.0, 0.0}, kFloat);
  xl.xlogy_(t({1.0, 0.0}, kFloat));
  EXPECT_EQ(values(xl), (V{0, 0}));
  Tensor na = t({1.0}, kFloat);
  na.nextafter_(t({2.0}, kFloat));
  EXPECT_EQ(values(na), (V{static_cast<double>(std::nextafter(1.0f, 2.0f))}));
  Tensor ld = t({3.0}, kFloat);
  ld.ldexp_(ti({2}));
  EXPECT_EQ(values(ld), (V{12}));
  Tensor td = t({3.0}, kFloat);
  td.true_divide_(2);
  EXPECT_EQ(values(td), (V{1.5}));
  Tensor ii = ti({1, 2});
  EXPECT_THROW_MSG(ii.copysign_(-1), Error,
                   "[copysign_] result type Float can't be cast to the desired output type Long.");
}

namespace {
Tensor grad_of(const Fn& f, const Tensor& x0) {
  Tensor x = x0.detach().clone().set_requires_grad(true);
  f(x).sum().backward();
  return x.grad();
}
Tensor grad2_of(const Fn& f, const Tensor& x0) {
  Tensor x = x0.detach().clone().set_requires_grad(true);
  Tensor g = autograd::grad({f(x).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  return autograd::grad({g.sum()}, {x})[0];
}
}  // namespace

TEST_P(MathOps, GradientsMatchPyTorch) {
  Tensor gx = t(kGX), gp = t(kGP);
  for (const auto& [name, fn] : unary_ops()) {
    if (name == "signbit" || name == "logit" || name == "logit_eps") continue;
    bool positive = name == "acosh" || name == "log10" || name == "lgamma" || name == "digamma";
    expect_close(grad_of(fn, positive ? gp : gx), torch_values("grad_" + name), 1e-12, 1e-14, "grad " + name);
  }
  expect_close(grad_of([](const Tensor& x) { return x.logit(); }, gx.abs()), torch_values("grad_logit"), 1e-12, 0,
               "grad logit");
  expect_close(grad_of([](const Tensor& x) { return x.logit(0.25); }, gx.abs()), torch_values("grad_logit_eps"), 1e-12,
               0, "grad logit eps");
  expect_close(grad_of([](const Tensor& x) { return x.sinc(); }, t({0.0, 1.0})), torch_values("grad_sinc0"), 1e-12,
               1e-15, "grad sinc at 0");
  for (const char* name : {"tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh", "erfc", "erfinv"}) {
    auto it = std::find_if(unary_ops().begin(), unary_ops().end(), [&](auto& p) { return p.first == name; });
    const Fn& fn = it->second;
    expect_close(grad2_of(fn, gx), torch_values(std::string("grad2_") + name), 1e-11, 1e-14,
                 std::string("grad2 ") + name);
  }
  expect_close(grad2_of([](const Tensor& x) { return x.acosh(); }, gp), torch_values("grad2_acosh"), 1e-11, 0, "acosh");
  expect_close(grad2_of([](const Tensor& x) { return x.log10(); }, gp), torch_values("grad2_log10"), 1e-11, 0, "log10");
  // float32 gradients run the same formulas
  expect_close(grad_of([](const Tensor& x) { return x.erfinv(); }, t(kGX, kFloat)), torch_values("grad_erfinv"), 1e-5,
               0, "grad erfinv float32");
}

TEST_P(MathOps, BinaryGradientsMatchPyTorch) {
  using Fn2 = std::function<Tensor(const Tensor&, const Tensor&)>;
  const std::vector<std::pair<std::string, Fn2>> ops = {
      {"hypot", [](const Tensor& a, const Tensor& b) { return a.hypot(b); }},
      {"fmod", [](const Tensor& a, const Tensor& b) { return a.fmod(b); }},
      {"copysign", [](const Tensor& a, const Tensor& b) { return a.copysign(b); }},
      {"xlogy", [](const Tensor& a, const Tensor& b) { return a.xlogy(b); }},
      {"remainder", [](const Tensor& a, const Tensor& b) { return a.remainder(b); }},
      {"div_floor", [](const Tensor& a, const Tensor& b) { return a.div(b, "floor"); }},
  };
  for (const auto& [name, f] : ops) {
    Tensor a = t(kGA).set_requires_grad(true), b = t(kGB).set_requires_grad(true);
    f(a, b).sum().backward();
    expect_close(a.grad(), torch_values("grad_" + name + "_a"), 1e-12, 1e-15, name + " a");
    expect_close(b.grad(), torch_values("grad_" + name + "_b"), 1e-12, 1e-15, name + " b");
  }
  // scalar forms: d fmod(a, s)/da = 1, d xlogy(s, a)/da = s / a, d div(a, s, trunc)/da = 0
  Tensor a = t({1.5, 2.5}).set_requires_grad(true);
  (a.fmod(2) + locus::xlogy(3, a) + a.div(2, "trunc") + a.copysign(-1)).sum().backward();
  expect_close(a.grad(), {1 + 3 / 1.5 - 1, 1 + 3 / 2.5 - 1}, 1e-14, 0, "scalar forms");
  // second order through hypot (recomputed in its formula)
  Tensor x = t({3.0}).set_requires_grad(true), y = t({4.0});
  Tensor g = autograd::grad({x.hypot(y).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  Tensor gg = autograd::grad({g.sum()}, {x})[0];
  expect_close(gg, {16.0 / 125.0}, 1e-14, 0, "d2 hypot / dx2 = y^2 / r^3");
}

TEST_P(MathOps, PolygammaAndTheGammaFunctionsSecondOrder) {
  Tensor x = t({-2.5, -1.0, -0.5, 0.0, 0.3, 1.0, 2.0, 7.25, 1e-3, 123.4});
  expect_close(x.polygamma(1), torch_values("polygamma1"), 1e-10, 0, "polygamma(1, x)");
  expect_close(locus::polygamma(0, x), values(x.digamma()), 0, 0, "polygamma(0, x)");
  expect_close(x.to(kFloat).polygamma(1).narrow(0, 2, 8), V(torch_values("polygamma1").begin() + 2,
                                                           torch_values("polygamma1").end()),
               1e-5, 0, "polygamma(1, x) float32");
  EXPECT_EQ(ti({1, 2}).polygamma(1).dtype(), kFloat);
  Tensor y = t({1.0, 2.0});
  y.polygamma_(1);
  expect_close(y, {1.6449340676383375, 0.6449340670881899}, 1e-12, 0, "polygamma_");
  EXPECT_THROW_MSG(x.polygamma(-1), Error, "[polygamma] polygamma(n, x) does not support negative n, got -1.");
  // n >= 2 from the Hurwitz zeta function (PyTorch 1.13: torch.polygamma(2 / 3, [0.5, 1, 2.5, 7]))
  expect_close(t({0.5, 1.0, 2.5, 7.0}).polygamma(2),
               {-16.828796644234316, -2.404113806319188, -0.23620405164172736, -0.023530472985855234}, 1e-12, 0,
               "polygamma(2, x)");
  expect_close(t({0.5, 1.0, 2.5, 7.0}).polygamma(3),
               {97.40909103400242, 6.493939402266829, 0.2239058488172521, 0.007198198563125444}, 1e-12, 0,
               "polygamma(3, x)");
  // lgamma three times: digamma's gradient is trigamma, trigamma's polygamma(2, x)
  Tensor z = t(kGP).set_requires_grad(true);
  Tensor g = autograd::grad({z.lgamma().sum()}, {z}, {}, std::nullopt, /*create_graph=*/true)[0];
  Tensor gg = autograd::grad({g.sum()}, {z}, {}, /*retain_graph=*/true, /*create_graph=*/true)[0];
  expect_close(gg, torch_values("grad2_lgamma"), 1e-12, 0, "d2 lgamma");
  expect_close(autograd::grad({gg.sum()}, {z})[0],
               {-0.8287966442343201, -0.4041138063191886, -0.12815694713911513, -0.0800397322451145}, 1e-12, 0,
               "d3 lgamma");
  Tensor w = t({1.5}).set_requires_grad(true);
  Tensor p = w.polygamma(1);
  EXPECT_TRUE(p.requires_grad());
  p.sum().backward();
  expect_close(w.grad(), {-0.8287966442343201}, 1e-12, 0, "d polygamma(1, x)");
}

LOCUS_INSTANTIATE_DEVICES(MathOps);

// PyTorch's CUDA autocast float32 list holds tan, asin, acos, sinh, cosh, log10 and erfinv (cuda and
// opencl follow it); its CPU lists hold none of the batch (checked with torch.autocast("cpu")).
TEST_P(MathOps, AutocastFloat32ListOnGpuTypes) {
  Device d = GetParam();
  ScalarType low = d.is_cpu() ? kBFloat16 : kHalf;
  Tensor h = t({0.25, 0.5}, low);
  autocast::AutocastGuard g(d.type(), low);
  ScalarType gpu_f32 = d.is_cpu() ? low : kFloat;
  for (Tensor r : {h.tan(), h.asin(), h.acos(), h.sinh(), h.cosh(), h.log10(), h.erfinv()})
    EXPECT_EQ(r.scalar_type(), gpu_f32);
  for (Tensor r : {h.atan(), h.asinh(), h.atanh(), h.erfc(), h.lgamma(), h.digamma(), h.trunc(), h.hypot(h)})
    EXPECT_EQ(r.scalar_type(), low);
}

TEST_P(MathOps, ScalarBasePowGradientsMatchPyTorch) {
  // PyTorch 1.13: torch.pow(2.5, x) and torch.pow(0.0, x) at x = [-1, 0, 0.5, 2] (float64)
  Tensor x = t({-1.0, 0.0, 0.5, 2.0});
  Fn f = [](const Tensor& e) { return locus::pow(2.5, e); };
  expect_close(grad_of(f, x), {0.3665162927496621, 0.9162907318741551, 1.4487828558124876, 5.72681707421347}, 1e-14, 0,
               "d pow(2.5, x)");
  expect_close(grad2_of(f, x), {0.33583548212738995, 0.8395887053184748, 1.3275063032791528, 5.2474294082404676}, 1e-14,
               0, "d2 pow(2.5, x)");
  expect_close(grad_of([](const Tensor& e) { return locus::pow(0.0, e); }, x), {-kInf, 0.0, 0.0, 0.0}, 0, 0,
               "d pow(0, x)");
}

TEST_P(MathOps, MixedDevicesRaise) {
  // the cpu run pairs the cpu with the first other device, the others pair theirs with the cpu
  std::vector<Device> devs = all_devices();
  Device other = GetParam().is_cpu() ? devs.back() : Device(kCPU);
  if (other == GetParam()) GTEST_SKIP() << "needs a device besides cpu (CI exposes two OpenCL devices)";
  Tensor a = t({1.0, 2.0}), c = tensor({1.0, 2.0}, TensorOptions().device(other));
  EXPECT_THROW_MSG(a.hypot(c), DeviceMismatchError, "[hypot] Expected all tensors to be on the same device");
  EXPECT_THROW_MSG(a.fmod(c), DeviceMismatchError, "[fmod] Expected all tensors to be on the same device");
  EXPECT_THROW_MSG(a.div(c, "floor"), DeviceMismatchError, "Expected all tensors to be on the same device");
  EXPECT_THROW_MSG(a.logical_xor(c), DeviceMismatchError,
                   "[logical_xor] Expected all tensors to be on the same device");
  EXPECT_THROW_MSG(a.copysign_(c), DeviceMismatchError, "[copysign_] Expected all tensors to be on the same device");
  // a 0-dim cpu tensor is a scalar, as in PyTorch
  EXPECT_EQ(values(a.fmod(tensor(1.5))), (V{1.0, 0.5}));
}

}  // namespace math_test
