// torch::special (locus/special.h), values and gradients against PyTorch 1.13 (special_cases.py
// prints the table below), in float64 on every device; float32 results round the same values.
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "testing.h"
#include "locus/locus.h"

using namespace locus;
namespace S = locus::special;

namespace special_test {

namespace {

using V = std::vector<double>;
constexpr double kInf = std::numeric_limits<double>::infinity();
const std::map<std::string, V> kTorch = {
    {"bessel_j0", {-0.3801277399872634, 0.7651976865579666, 0.9844359292958527, 1.0, 0.9384698072408129, 0.22389077914123567, 0.2663396578803784, -0.08636798358104021}},
    {"bessel_j1", {-0.1373775273623272, -0.4400505857449335, -0.12402597732272692, 0.0, 0.2422684576748739, 0.5767248077568734, 0.1352484275797055, -0.11875106261662294}},
    {"i0", {7.3782034322254795, 1.2660658777520082, 1.015686141223608, 1.0, 1.0634833707413236, 2.279585302336067, 268.1613115151893, 781672297823.9775}},
    {"i0e", {0.22280243801077917, 0.46575960759364043, 0.7910171621397194, 1.0, 0.6450352704491501, 0.308508322553671, 0.1483158300773955, 0.0731459464822373}},
    {"i1", {-6.205834922258364, -0.5651591039924851, -0.12597910894546793, 0.0, 0.25789430539089636, 1.5906368546373295, 249.58436542268808, 768532038938.9569}},
    {"i1e", {-0.18739997660304997, -0.2079104153497085, -0.09811262869736825, 0.0, 0.15642080318487173, 0.2152692892489377, 0.13804121154855417, 0.07191633059864755}},
    {"erfcx", {417962.42244577035, 5.008980080762283, 1.3586423701047217, 1.0, 0.6156903441929258, 0.2553956763105058, 0.07457369306287667, 0.018795888861416754}},
    {"ndtr", {0.0002326290790355401, 0.15865525393145702, 0.4012936743170763, 0.5, 0.6914624612740131, 0.9772498680518208, 0.999999999999968, 1.0}},
    {"log_ndtr", {-8.366065308344094, -1.841021645009264, -0.913061764811135, -0.6931471805599453, -0.36894641528865635, -0.02301290932896348, -3.1908916729109405e-14, -4.906713927148024e-198}},
    {"modified_bessel_i0", {7.3782034322254795, 1.2660658777520082, 1.015686141223608, 1.0, 1.0634833707413236, 2.279585302336067, 268.1613115151893, 781672297823.9775}},
    {"modified_bessel_i1", {-6.205834922258364, -0.5651591039924851, -0.12597910894546793, 0.0, 0.25789430539089636, 1.5906368546373295, 249.58436542268808, 768532038938.9569}},
    {"spherical_bessel_j0", {-0.10022377933989138, 0.8414709848078965, 0.9896158370180917, 1.0, 0.958851077208406, 0.45464871341284085, 0.12506666356996518, -0.03293438746976206}},
    {"entr", {-kInf, -kInf, -kInf, 0.0, 0.34657359027997264, -1.3862943611198906, -15.111772654066986, -102.03592144986466}},
    {"expit", {0.02931223075135632, 0.2689414213699951, 0.43782349911420193, 0.5, 0.6224593312018546, 0.8807970779778823, 0.9994472213630764, 0.9999999999999065}},
    {"sinc", {-0.09094568176679733, 3.8981718325193755e-17, 0.9003163161571061, 1.0, 0.6366197723675814, -3.8981718325193755e-17, -0.04244131815783876, -1.1437264410803267e-16}},
    {"bessel_y0", {-0.9315730249300587, 0.08825696421567696, 0.4980703596152319, -0.28819468398157916, 0.12593641705826092}},
    {"bessel_y1", {-2.7041052293152825, -0.7812128213002887, 0.1459181379667858, -0.17501034430039825, -0.005793505821549633}},
    {"modified_bessel_k0", {1.5415067512483027, 0.4210244382407082, 0.062347553200366196, 0.0012439943280131234, 8.392861100099567e-19}},
    {"modified_bessel_k1", {3.747025974440712, 0.6019072301972346, 0.07389081634774705, 0.001343919717735509, 8.497131954861038e-19}},
    {"scaled_modified_bessel_k0", {1.9793338485985683, 1.1444630798068944, 0.7595486903280996, 0.5018631308621401, 0.19755558495729816}},
    {"scaled_modified_bessel_k1", {4.811276588171025, 1.636153486263258, 0.9001744239078779, 0.5421759102771336, 0.20000996725443346}},
    {"ndtri", {-3.090232306167813, -1.2815515655446004, 0.0, 0.8416212335729143, 3.090232306167813}},
    {"zeta", {17.197329154507113, 1.1267338673170566, 1.4037797688568259, 0.001971304698792513, 0.025315103841291032}},
    {"gammainc", {0.8464864041916775, 0.8646647167633873, 0.5841198130044921, 0.08391794203130346, 0.7916181799674072}},
    {"gammaincc", {0.15351359580832247, 0.1353352832366127, 0.41588018699550794, 0.9160820579686966, 0.20838182003259278}},
    {"multigammaln", {2.1686775340635553, 1.5963125911388552, 6.254169265926614}},
    {"xlog1py", {0.0, 0.6081976621622466, -2.197224577336219, -2.0794415416798357}},
    {"polygamma3", {1538.782144009189, 6.493939402266829, 0.2239058488172521, 0.011827828192755078, 3.24414001515635e-05}},
    {"chebyshev_polynomial_t", {1.0, 0.3, 1.0, -1.0, -0.8720108054999999}},
    {"chebyshev_polynomial_u", {1.0, 0.6, 3.0, -6.0, -1.118664711}},
    {"chebyshev_polynomial_v", {1.0, -0.4, 1.0, -11.0, -0.5705449210000002}},
    {"chebyshev_polynomial_w", {1.0, 1.6, 5.0, -1.0, -1.666784501}},
    {"shifted_chebyshev_polynomial_t", {1.0, -0.4, 1.0, -3363.0, -0.7842626559999993}},
    {"shifted_chebyshev_polynomial_u", {1.0, -0.8, 3.0, -6930.0, -0.8466181119999994}},
    {"shifted_chebyshev_polynomial_v", {1.0, -1.8, 1.0, -8119.0, -1.4701726720000001}},
    {"shifted_chebyshev_polynomial_w", {1.0, 0.19999999999999996, 5.0, -5741.0, -0.22306355199999858}},
    {"hermite_polynomial_h", {1.0, 0.6, 2.0, 8.0, 7118.450923689001}},
    {"hermite_polynomial_he", {1.0, 0.3, 0.0, -6.0, 317.2738988025176}},
    {"laguerre_polynomial_l", {1.0, 0.7, -0.5, 12.883333333333335, -0.4839001853915624}},
    {"legendre_polynomial_p", {1.0, 0.3, 1.0, -1.0, -0.26367022186592104}},
    {"grad_i0", {-1.5906368546373295, -0.25789430539089636, 0.4019924615809222, 3.9533702174026093}},
    {"grad_i0e", {0.0932390333047333, 0.4886144672642784, -0.35127742589864025, -0.04617364086452452}},
    {"grad_i1", {1.484266875017402, 0.5476947599595309, 0.6096568292694382, 3.563002513397487}},
    {"grad_i1e", {-0.014395611319735546, 0.17577286089453492, 0.09809370149216695, -0.01943526356790909}},
    {"grad_erfcx", {-436.8919967270074, -3.0807396562780696, -0.36797269165579505, -0.05437226000717277}},
    {"grad_log_ndtr", {2.3732155328228406, 1.1410777703680643, 0.3893820567359271, 0.004437839042125664}},
    {"grad_ndtr", {0.05399096651318802, 0.35206532676429947, 0.3011374321548044, 0.004431848411938004}},
    {"grad_zeta_q", {-16.828796644234316, -0.7045455170012184, -0.013983718691727381}},
    {"grad_gammainc_x", {0.4839414490382867, 0.33469524022264474, 0.23353043198227907}},
    {"grad_multigammaln", {1.1259409757437102, 2.02594097574371, 2.8949885947913288}},
};

const V& torch_values(const std::string& name) { return kTorch.at(name); }

void expect_close(const Tensor& got_t, const V& want, double rtol, const std::string& what) {
  V got = values(got_t);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " [" << i << "]";
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << " [" << i << "]";
    } else {
      EXPECT_NEAR(got[i], want[i], rtol * std::max(1.0, std::fabs(want[i]))) << what << " [" << i << "]";
    }
  }
}

}  // namespace

class Special : public testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return TensorOptions().dtype(kDouble).device(GetParam()); }
  Tensor t(const V& v) const { return tensor(v, o()); }
};

TEST_P(Special, FunctionsOfOneArgumentAsPyTorch) {
  const Tensor x = t({-3.5, -1.0, -0.25, 0.0, 0.5, 2.0, 7.5, 30.0});
  const Tensor pos = t({0.25, 1.0, 2.5, 6.0, 40.0});
  const std::map<std::string, std::function<Tensor(const Tensor&)>> on_x = {
      {"i0", S::i0}, {"i0e", S::i0e}, {"i1", S::i1}, {"i1e", S::i1e}, {"erfcx", S::erfcx}, {"ndtr", S::ndtr},
      {"log_ndtr", S::log_ndtr}, {"bessel_j0", S::bessel_j0}, {"bessel_j1", S::bessel_j1},
      {"modified_bessel_i0", S::modified_bessel_i0}, {"modified_bessel_i1", S::modified_bessel_i1},
      {"spherical_bessel_j0", S::spherical_bessel_j0}, {"entr", S::entr}, {"expit", S::expit}, {"sinc", S::sinc}};
  for (const auto& [name, f] : on_x) {
    Tensor r = f(x);
    EXPECT_EQ(r.device(), GetParam()) << name;
    EXPECT_EQ(r.scalar_type(), kDouble) << name;
    expect_close(r, torch_values(name), 1e-12, name);
  }
  const std::map<std::string, std::function<Tensor(const Tensor&)>> on_pos = {
      {"bessel_y0", S::bessel_y0}, {"bessel_y1", S::bessel_y1}, {"modified_bessel_k0", S::modified_bessel_k0},
      {"modified_bessel_k1", S::modified_bessel_k1}, {"scaled_modified_bessel_k0", S::scaled_modified_bessel_k0},
      {"scaled_modified_bessel_k1", S::scaled_modified_bessel_k1}};
  for (const auto& [name, f] : on_pos) expect_close(f(pos), torch_values(name), 1e-12, name);
  expect_close(S::ndtri(t({0.001, 0.1, 0.5, 0.8, 0.999})), torch_values("ndtri"), 1e-10, "ndtri");
  expect_close(locus::polygamma(3, pos), torch_values("polygamma3"), 1e-12, "polygamma3");
  expect_close(S::multigammaln(t({1.5, 2.0, 4.25}), 3), torch_values("multigammaln"), 1e-12, "multigammaln");
  expect_close(mvlgamma(t({1.5, 2.0, 4.25}), 3), torch_values("multigammaln"), 1e-12, "mvlgamma");
  expect_close(i0(x), torch_values("i0"), 1e-12, "torch::i0");
  // float32 and integer inputs: the default float dtype, the same values rounded
  Tensor f32 = S::i0e(x.to(kFloat));
  EXPECT_EQ(f32.scalar_type(), kFloat);
  expect_close(f32, torch_values("i0e"), 1e-6, "i0e float32");
  EXPECT_EQ(S::erfcx(tensor({1, 2}, TensorOptions().device(GetParam()))).scalar_type(), kFloat);
}

TEST_P(Special, FunctionsOfTwoArgumentsAsPyTorch) {
  const Tensor pos = t({0.25, 1.0, 2.5, 6.0, 40.0});
  expect_close(S::zeta(t({2.0, 3.5, 1.5, 4.0, 2.0}), pos), torch_values("zeta"), 1e-12, "zeta");
  expect_close(S::gammainc(pos, t({0.5, 2.0, 2.5, 3.0, 45.0})), torch_values("gammainc"), 1e-12, "gammainc");
  expect_close(S::gammaincc(pos, t({0.5, 2.0, 2.5, 3.0, 45.0})), torch_values("gammaincc"), 1e-12, "gammaincc");
  expect_close(igamma(pos, t({0.5, 2.0, 2.5, 3.0, 45.0})), torch_values("gammainc"), 1e-12, "igamma");
  expect_close(igammac(pos, t({0.5, 2.0, 2.5, 3.0, 45.0})), torch_values("gammaincc"), 1e-12, "igammac");
  expect_close(S::xlog1py(t({0.0, 1.5, -2.0, 3.0}), t({-1.0, 0.5, 2.0, -0.5})), torch_values("xlog1py"), 1e-12,
               "xlog1py");
  // Scalar forms and broadcasting
  expect_close(S::zeta(2.0, t({1.0})), {1.6449340668482264}, 1e-12, "zeta(2, 1)");
  expect_close(S::zeta(t({2.0, 4.0}), 1.0), {1.6449340668482264, 1.0823232337111381}, 1e-12, "zeta(s, 1)");
  const Tensor n = t({0.0, 1.0, 2.0, 5.0, 9.0}), xp = t({-0.7, 0.3, 1.0, -1.0, 0.45});
  const std::map<std::string, std::function<Tensor(const Tensor&, const Tensor&)>> polys = {
      {"chebyshev_polynomial_t", [](const Tensor& a, const Tensor& b) { return S::chebyshev_polynomial_t(a, b); }},
      {"chebyshev_polynomial_u", [](const Tensor& a, const Tensor& b) { return S::chebyshev_polynomial_u(a, b); }},
      {"chebyshev_polynomial_v", [](const Tensor& a, const Tensor& b) { return S::chebyshev_polynomial_v(a, b); }},
      {"chebyshev_polynomial_w", [](const Tensor& a, const Tensor& b) { return S::chebyshev_polynomial_w(a, b); }},
      {"shifted_chebyshev_polynomial_t",
       [](const Tensor& a, const Tensor& b) { return S::shifted_chebyshev_polynomial_t(a, b); }},
      {"shifted_chebyshev_polynomial_u",
       [](const Tensor& a, const Tensor& b) { return S::shifted_chebyshev_polynomial_u(a, b); }},
      {"shifted_chebyshev_polynomial_v",
       [](const Tensor& a, const Tensor& b) { return S::shifted_chebyshev_polynomial_v(a, b); }},
      {"shifted_chebyshev_polynomial_w",
       [](const Tensor& a, const Tensor& b) { return S::shifted_chebyshev_polynomial_w(a, b); }},
      {"hermite_polynomial_h", [](const Tensor& a, const Tensor& b) { return S::hermite_polynomial_h(a, b); }},
      {"hermite_polynomial_he", [](const Tensor& a, const Tensor& b) { return S::hermite_polynomial_he(a, b); }},
      {"laguerre_polynomial_l", [](const Tensor& a, const Tensor& b) { return S::laguerre_polynomial_l(a, b); }},
      {"legendre_polynomial_p", [](const Tensor& a, const Tensor& b) { return S::legendre_polynomial_p(a, b); }}};
  for (const auto& [name, f] : polys) expect_close(f(xp, n), torch_values(name), 1e-10, name);
  expect_close(S::legendre_polynomial_p(t({0.5}), -1), {0.0}, 0, "degree -1");
}

TEST_P(Special, GradientsAsPyTorch) {
  const std::map<std::string, std::function<Tensor(const Tensor&)>> fs = {
      {"i0", S::i0}, {"i0e", S::i0e}, {"i1", S::i1}, {"i1e", S::i1e}, {"erfcx", S::erfcx}, {"log_ndtr", S::log_ndtr},
      {"ndtr", S::ndtr}};
  for (const auto& [name, f] : fs) {
    Tensor g = t({-2.0, -0.5, 0.75, 3.0}).requires_grad_(true);
    f(g).sum().backward();
    expect_close(g.grad(), torch_values("grad_" + name), 1e-11, "grad_" + name);
  }
  Tensor q = t({0.5, 1.5, 3.0}).requires_grad_(true);
  S::zeta(t({2.0, 3.0, 4.5}), q).sum().backward();
  expect_close(q.grad(), torch_values("grad_zeta_q"), 1e-11, "grad zeta q");
  q.mutable_grad() = Tensor();
  S::gammainc(t({0.5, 2.0, 3.5}), q).sum().backward();
  expect_close(q.grad(), torch_values("grad_gammainc_x"), 1e-11, "grad gammainc x");
  q.mutable_grad() = Tensor();
  S::multigammaln(q + 2, 2).sum().backward();
  expect_close(q.grad(), torch_values("grad_multigammaln"), 1e-11, "grad multigammaln");
}

TEST_P(Special, ErrorsNameTheFunction) {
  Tensor a = t({0.5, 2.0}).requires_grad_(true);
  EXPECT_THROW_MSG(S::zeta(a, t({1.0, 2.0})).sum().backward(), Error,
                   "[backward] the derivative of special.zeta with respect to its first argument is not implemented");
  EXPECT_THROW_MSG(S::gammainc(a, t({1.0, 2.0})).sum().backward(), Error,
                   "[backward] the derivative of gammainc with respect to its first argument (a) is not implemented");
  EXPECT_THROW_MSG(S::bessel_j0(a).sum().backward(), Error,
                   "[backward] the derivative for 'special.bessel_j0' is not implemented (as in PyTorch)");
  EXPECT_THROW_MSG(S::multigammaln(t({0.5, 2.0}), 3), Error,
                   "[special.multigammaln] All elements must be greater than (p-1)/2 = 1.0");
  EXPECT_THROW_MSG(S::multigammaln(t({2.0}), 0), Error,
                   "[special.multigammaln] p has to be greater than or equal to 1, got 0.");
  EXPECT_THROW_MSG(S::i0(Tensor()), Error, "[special.i0] the tensor is undefined.");
  if (all_devices().size() > 1) {
    Device other = all_devices()[GetParam() == all_devices()[0] ? 1 : 0];
    EXPECT_THROW(S::zeta(t({2.0}), tensor({1.0}, TensorOptions().dtype(kDouble).device(other))), DeviceMismatchError);
  }
}

LOCUS_INSTANTIATE_DEVICES(Special);

}  // namespace special_test
