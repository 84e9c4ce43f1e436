// The losses of functional_losses.h and their modules on every device: values against PyTorch 1.13
// (tests/nn/losses_cases.py prints the reference table) for each reduction, float64 gradients
// against finite differences, a short training run, module printing and every error message.
#include <functional>
#include <map>
#include <sstream>

#include "autograd/gradcheck.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace losses_test {
using V = std::vector<Tensor>;

namespace {

struct Reference {
  const char* name;
  std::vector<double> none;
  double mean, sum;
};

// /usr/bin/python3 tests/nn/losses_cases.py
const std::vector<Reference> kLosses = {
    {"margin_ranking",
     {1.3939122802502655, 0, 0, 0, 1.4971290039964475, 0.95936722052907775},
     0.64173475079596509,
     3.8504085047757908},
    {"hinge_embedding",
     {0, 0, 2.5846275392282654, 0, 0.93871285858738396, -1.2769851903259315},
     0.37439253458161964,
     2.2463552074897177},
    {"cosine_embedding", {1.3832151606587082, 0, 0}, 0.46107172021956938, 1.3832151606587082},
    {"cosine_embedding_1d", {1.3832151606587082}, 1.3832151606587082, 1.3832151606587082},
    {"soft_margin",
     {0.69314718055994529, 2.6750860198785231, 0.020502467034547795, 3.2103053685155549, 0.35828811524128584,
      2.0528642578953975},
     1.5016989015208757,
     9.0101934091252538},
    {"multilabel_soft_margin", {1.2838901323932252, 1.9201389857811497}, 1.6020145590871875, 3.204029118174375},
    {"triplet", {1.6657972368242988, 1.7266627561396728, 1.56955853515371}, 1.6540061760392273, 4.9620185281176816},
    {"triplet_p1_swap",
     {2.9779877874332619, 2.4652525482740697, 1.6685061158395542},
     2.3705821505156286,
     7.1117464515468853},
    {"poisson_log_full",
     {1, 1.5140019676104159, 1.7083806638961294, 1.4708833929772047, 1.1836598286400426, 6.2393214054659607},
     2.1860412097649591,
     13.116247258589754},
    {"poisson_rate",
     {0.10000000000000001, 1.0005265316767802, 0.73037986381566455, 0.72050481168150893, 0.8635894834082487,
      1.9510693566874708},
     0.89434500787827886,
     5.3660700472696732},
    {"gaussian_full",
     {1.5089099814159002, 0.7886107490351949, 0.77591284086195711, 1.5362816129435004, 1.600569717494652,
      1.08309030467976},
     1.2155625344051606,
     7.293375206430964},
    {"gaussian_var_short",
     {0.85007048660236251, -0.17397119884400467, -0.12066856686429941, 0.66195411597844367, 0.70485305333235426,
      0.45526487315703301},
     0.39625046056031482,
     2.377502763361889},
    {"gaussian_var_last1",
     {598315.1306858887, 86294.287962705013, 112945.60395255763, 0.75955982813303557, 0.78815911970230934,
      0.62176699958542847},
     132926.19868118313,
     797557.19208709872},
    {"multi_margin",
     {0.68624805117561305, 0.020215958532681572, 0.23416562776246672},
     0.3135432124902538,
     0.94062963747076134},
    {"multi_margin_p2_weight",
     {0.47370049997326746, 0, 0.096803029912812033},
     0.19016784329535982,
     0.57050352988607944},
    {"multilabel_margin", {1.5519188486617319, 1.7267059417140094, 0}, 1.0928749301252472, 3.2786247903757415},
    {"multilabel_margin_1d", {1.6508915125056305}, 1.6508915125056305, 1.6508915125056305},
};
const std::vector<Reference> kDistances = {
    {"cosine_similarity",
     {-0.38321516065882405, -0.36040495460259542, -0.34818140056682251},
     -0.36393383860941397,
     -1.0918015158282419},
    {"cosine_similarity_dim0_broadcast",
     {-0.25074082983935747, 0.30752891674758664, -0.32207425470439116, -0.32172082119888906},
     -0.14675174724876278,
     -0.5870069889950511},
    {"pairwise_distance",
     {3.0313424467196364, 2.9902507725340892, 2.9684857905184185},
     2.9966930032573811,
     8.9900790097721437},
    {"pairwise_distance_p1.5_keepdim",
     {3.6387194383621417, 2.0164113334128917, 3.9790163105189977},
     3.2113823607646772,
     9.6341470822940316},
    {"pairwise_distance_inf",
     {2.1849352984147687, 2.1576818424353217, 2.0286759570466613},
     2.123764365965584,
     6.3712930978967517},
};

void expect_close(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-9 * std::max(1.0, std::abs(want[i]))) << what << " element " << i;
}

}  // namespace

class Losses : public testing::TestWithParam<Device> {
 protected:
  Device d = GetParam();
  TensorOptions o = TensorOptions().device(d).dtype(kDouble);
  Tensor s(std::vector<int64_t> shape, double offset = 0.0) { return sample(std::move(shape), offset).to(d); }
  Tensor t(const TensorDataContainer& v) { return tensor(v, o); }
  Tensor idx(const TensorDataContainer& v) { return tensor(v, TensorOptions().device(d).dtype(kLong)); }
};

// Every loss and reduction against PyTorch's numbers (the same inputs as losses_cases.py).
TEST_P(Losses, ValuesMatchPyTorch) {
  using R = enumtype::Reduction;
  const std::map<std::string, std::function<Tensor(R)>> loss = {
      {"margin_ranking",
       [&](R r) {
         return F::margin_ranking_loss(s({6}), s({6}, 1), t({1., -1., 1., 1., -1., -1.}),
                                       F::MarginRankingLossFuncOptions().margin(0.3).reduction(r));
       }},
      {"hinge_embedding",
       [&](R r) {
         return F::hinge_embedding_loss(s({2, 3}) * 2, t({{1., -1., 1.}, {-1., -1., 1.}}),
                                        F::HingeEmbeddingLossFuncOptions().margin(1.5).reduction(r));
       }},
      {"cosine_embedding",
       [&](R r) {
         return F::cosine_embedding_loss(s({3, 4}), s({3, 4}, 2), t({1., -1., -1.}),
                                         F::CosineEmbeddingLossFuncOptions().margin(0.1).reduction(r));
       }},
      {"cosine_embedding_1d",
       [&](R r) {
         return F::cosine_embedding_loss(s({4}), s({4}, 2), t(1.), F::CosineEmbeddingLossFuncOptions().reduction(r));
       }},
      {"soft_margin",
       [&](R r) {
         return F::soft_margin_loss(s({2, 3}) * 3, t({{1., -1., 1.}, {-1., 1., 1.}}), r);
       }},
      {"multilabel_soft_margin",
       [&](R r) {
         return F::multilabel_soft_margin_loss(
             s({2, 4}) * 2, t({{1., 0., 1., 0.}, {0., 0., 1., 1.}}),
             F::MultiLabelSoftMarginLossFuncOptions().weight(s({4}, 3).abs() + 0.2).reduction(r));
       }},
      {"triplet",
       [&](R r) {
         return F::triplet_margin_loss(s({3, 5}), s({3, 5}, 1), s({3, 5}, 2),
                                       F::TripletMarginLossFuncOptions().margin(3.0).reduction(r));
       }},
      {"triplet_p1_swap",
       [&](R r) {
         return F::triplet_margin_loss(s({3, 5}), s({3, 5}, 1), s({3, 5}, 2) * 0.5,
                                       F::TripletMarginLossFuncOptions().margin(2.0).p(1).swap(true).reduction(r));
       }},
      {"poisson_log_full",
       [&](R r) {
         return F::poisson_nll_loss(s({2, 3}), t({{0., 1., 2.}, {3., 0.5, 4.}}),
                                    F::PoissonNLLLossFuncOptions().full(true).reduction(r));
       }},
      {"poisson_rate",
       [&](R r) {
         return F::poisson_nll_loss(s({2, 3}).abs() + 0.1, t({{0., 1., 2.}, {3., 0.5, 4.}}),
                                    F::PoissonNLLLossFuncOptions().log_input(false).reduction(r));
       }},
      {"gaussian_full",
       [&](R r) {
         return F::gaussian_nll_loss(s({2, 3}), s({2, 3}, 1), s({2, 3}, 2).abs() + 0.05,
                                     F::GaussianNLLLossFuncOptions().full(true).reduction(r));
       }},
      {"gaussian_var_short",
       [&](R r) {
         return F::gaussian_nll_loss(s({2, 3}), s({2, 3}, 1), t({0.5, 2.0}),
                                     F::GaussianNLLLossFuncOptions().reduction(r));
       }},
      {"gaussian_var_last1",
       [&](R r) {
         return F::gaussian_nll_loss(s({2, 3}), s({2, 3}, 1), t({{0.}, {3.}}),
                                     F::GaussianNLLLossFuncOptions().reduction(r));
       }},
      {"multi_margin",
       [&](R r) {
         return F::multi_margin_loss(s({3, 4}), idx({1, 0, 3}), F::MultiMarginLossFuncOptions().reduction(r));
       }},
      {"multi_margin_p2_weight",
       [&](R r) {
         return F::multi_margin_loss(
             s({3, 4}), idx({1, 0, 3}),
             F::MultiMarginLossFuncOptions().p(2).margin(0.7).weight(s({4}, 3).abs() + 0.2).reduction(r));
       }},
      {"multilabel_margin",
       [&](R r) {
         return F::multilabel_margin_loss(s({3, 4}), idx({{3, 0, -1, 1}, {1, 2, 3, -1}, {-1, 0, 0, 0}}), r);
       }},
      {"multilabel_margin_1d",
       [&](R r) {
         return F::multilabel_margin_loss(s({4}), idx({2, 2, 0, -1}), r);
       }},
  };
  ASSERT_EQ(loss.size(), kLosses.size());
  for (const Reference& ref : kLosses) {
    SCOPED_TRACE(ref.name);
    const auto& f = loss.at(ref.name);
    const Tensor none = f(kNone);
    EXPECT_EQ(none.device(), d);
    expect_close(values(none), ref.none, "none");
    const Tensor mean = f(kMean), sum = f(kSum);
    EXPECT_EQ(mean.dim(), 0);
    EXPECT_EQ(sum.dim(), 0);
    expect_close(values(mean), {ref.mean}, "mean");
    expect_close(values(sum), {ref.sum}, "sum");
  }
  // the unreduced shapes, as PyTorch's
  EXPECT_EQ(loss.at("multi_margin")(kNone).sizes(), IntArrayRef({3}));
  EXPECT_EQ(loss.at("multilabel_margin_1d")(kNone).dim(), 0);
  EXPECT_EQ(loss.at("cosine_embedding_1d")(kNone).dim(), 0);
  EXPECT_EQ(loss.at("gaussian_var_short")(kNone).sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(F::multi_margin_loss(s({4}), idx(2), F::MultiMarginLossFuncOptions().reduction(kNone)).dim(), 0);
  // float32 follows float64
  const Tensor f32 = F::soft_margin_loss((s({2, 3}) * 3).to(kFloat), t({{1., -1., 1.}, {-1., 1., 1.}}).to(kFloat));
  EXPECT_EQ(f32.scalar_type(), kFloat);
  EXPECT_NEAR(f32.item<float>(), 1.5016989015208757, 1e-5);
}

TEST_P(Losses, DistancesMatchPyTorch) {
  const std::map<std::string, std::function<Tensor()>> dist = {
      {"cosine_similarity",
       [&] {
         return F::cosine_similarity(s({3, 4}), s({3, 4}, 2));
       }},
      {"cosine_similarity_dim0_broadcast",
       [&] {
         return F::cosine_similarity(s({3, 4}), s({4}, 2), F::CosineSimilarityFuncOptions().dim(0));
       }},
      {"pairwise_distance",
       [&] {
         return F::pairwise_distance(s({3, 4}), s({3, 4}, 2));
       }},
      {"pairwise_distance_p1.5_keepdim",
       [&] {
         return F::pairwise_distance(s({3, 4}), s({4}, 2), F::PairwiseDistanceFuncOptions().p(1.5).keepdim(true));
       }},
      {"pairwise_distance_inf",
       [&] {
         return F::pairwise_distance(s({3, 4}), s({3, 4}, 2), F::PairwiseDistanceFuncOptions().p(INFINITY));
       }},
  };
  ASSERT_EQ(dist.size(), kDistances.size());
  for (const Reference& ref : kDistances) {
    SCOPED_TRACE(ref.name);
    const Tensor v = dist.at(ref.name)();
    expect_close(values(v), ref.none, "values");
    expect_close(values(v.sum()), {ref.sum}, "sum");
  }
  EXPECT_EQ(dist.at("pairwise_distance_p1.5_keepdim")().sizes(), IntArrayRef({3, 1}));
  EXPECT_EQ(values(F::cosine_similarity(zeros({2, 3}, o), s({2, 3}))), std::vector<double>(2, 0.0));
}

// float64 gradients against central differences, for every input that takes one.
TEST_P(Losses, GradientsMatchFiniteDifferences) {
  const Tensor pm = t({1., -1., 1., -1.}), y = idx({1, 0, 3});
  gradcheck(
      [&](const V& x) { return F::margin_ranking_loss(x[0], x[1], pm, F::MarginRankingLossFuncOptions().margin(0.2)); },
      {sample({4}), sample({4}, 1.)}, d);
  gradcheck(
      [&](const V& x) {
        return F::hinge_embedding_loss(x[0] * 2, pm, F::HingeEmbeddingLossFuncOptions().reduction(kNone));
      },
      {sample({4})}, d);
  gradcheck(
      [&](const V& x) {
        return F::cosine_embedding_loss(x[0], x[1], t({1., -1., -1.}),
                                        F::CosineEmbeddingLossFuncOptions().margin(-0.9));
      },
      {sample({3, 4}), sample({3, 4}, 2.)}, d);
  gradcheck([&](const V& x) { return F::soft_margin_loss(x[0] * 3, pm, kSum); }, {sample({4})}, d);
  gradcheck(
      [&](const V& x) {
        return F::multilabel_soft_margin_loss(x[0], t({{1., 0., 1., 0.}, {0., 0., 1., 1.}}),
                                              F::MultiLabelSoftMarginLossFuncOptions().weight(x[1]).reduction(kNone));
      },
      {sample({2, 4}), sample({4}, 3.)}, d);
  for (bool swap : {false, true})
    gradcheck(
        [&](const V& x) {
          return F::triplet_margin_loss(x[0], x[1], x[2],
                                        F::TripletMarginLossFuncOptions().margin(3.0).p(1.5).swap(swap));
        },
        {sample({3, 5}), sample({3, 5}, 1.), sample({3, 5}, 2.)}, d);
  for (bool log_input : {true, false})
    gradcheck(
        [&](const V& x) {
          return F::poisson_nll_loss(log_input ? x[0] : x[0].abs() + 0.1, x[1].abs() * 3,
                                     F::PoissonNLLLossFuncOptions().log_input(log_input).full(true));
        },
        {sample({2, 3}), sample({2, 3}, 1.)}, d);
  gradcheck(
      [&](const V& x) {
        return F::gaussian_nll_loss(x[0], x[1], x[2].abs() + 0.05, F::GaussianNLLLossFuncOptions().reduction(kNone));
      },
      {sample({2, 3}), sample({2, 3}, 1.), sample({2, 1}, 2.)}, d);
  for (int64_t p : {1, 2})
    gradcheck(
        [&](const V& x) {
          return F::multi_margin_loss(x[0], y, F::MultiMarginLossFuncOptions().p(p).weight(x[1]).reduction(kNone));
        },
        {sample({3, 4}), sample({4}, 3.)}, d);
  gradcheck(
      [&](const V& x) {
        return F::multilabel_margin_loss(x[0], idx({{3, 0, -1, 1}, {1, 2, 3, -1}}));
      },
      {sample({2, 4})}, d);
  gradcheck([&](const V& x) { return F::cosine_similarity(x[0], x[1]); }, {sample({3, 4}), sample({4}, 2.)}, d);
  for (double p : {1.5, 2.0, double(INFINITY)})
    gradcheck([&](const V& x) { return F::pairwise_distance(x[0], x[1], F::PairwiseDistanceFuncOptions().p(p)); },
              {sample({3, 4}), sample({3, 4}, 2.)}, d);
}

// A linear classifier trained with MultiMarginLoss separates three points, on the device.
TEST_P(Losses, TrainsOnTheDevice) {
  manual_seed(0);
  nn::Linear model(nn::LinearOptions(2, 3));
  model->to(d);
  nn::MultiMarginLoss criterion;
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.5));
  const Tensor x = tensor({{1.f, 0.f}, {0.f, 1.f}, {-1.f, -1.f}}).to(d), y = idx({0, 1, 2});
  float first = 0, last = 0;
  for (int step = 0; step < 50; ++step) {
    opt.zero_grad();
    Tensor loss = criterion(model(x), y);
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item<float>();
  }
  EXPECT_LT(last, first * 0.1f);
  EXPECT_EQ(values(model(x).argmax(1)), std::vector<double>({0, 1, 2}));
}

// The modules call the functional forms with their options, and print as libtorch's.
TEST_P(Losses, ModulesForwardAndPrint) {
  auto printed = [](const auto& m) {
    std::ostringstream s;
    s << *m;
    return s.str();
  };
  const Tensor a = s({3, 4}), b = s({3, 4}, 1), c = s({3, 4}, 2), pm = t({1., -1., 1.});
  nn::MarginRankingLoss mr(nn::MarginRankingLossOptions().margin(0.5));
  EXPECT_EQ(values(mr(a, b, t({{1., -1., 1., 1.}, {-1., -1., 1., 1.}, {1., 1., 1., -1.}}))),
            values(F::margin_ranking_loss(a, b, t({{1., -1., 1., 1.}, {-1., -1., 1., 1.}, {1., 1., 1., -1.}}),
                                          F::MarginRankingLossFuncOptions().margin(0.5))));
  EXPECT_EQ(printed(mr), "locus::nn::MarginRankingLoss()");
  nn::HingeEmbeddingLoss he(nn::HingeEmbeddingLossOptions().margin(2));
  EXPECT_EQ(printed(he), "locus::nn::HingeEmbeddingLoss(margin=2)");
  nn::CosineEmbeddingLoss ce(nn::CosineEmbeddingLossOptions().margin(0.25));
  EXPECT_EQ(values(ce(a, b, pm)),
            values(F::cosine_embedding_loss(a, b, pm, F::CosineEmbeddingLossFuncOptions().margin(0.25))));
  EXPECT_EQ(printed(ce), "locus::nn::CosineEmbeddingLoss(margin=0.25)");
  EXPECT_EQ(printed(nn::SoftMarginLoss()), "locus::nn::SoftMarginLoss()");
  EXPECT_EQ(printed(nn::MultiLabelSoftMarginLoss()), "locus::nn::MultiLabelSoftMarginLoss()");
  nn::TripletMarginLoss tm(nn::TripletMarginLossOptions().margin(3).swap(true));
  EXPECT_EQ(values(tm(a, b, c)),
            values(F::triplet_margin_loss(a, b, c, F::TripletMarginLossFuncOptions().margin(3).swap(true))));
  EXPECT_EQ(printed(tm), "locus::nn::TripletMarginLoss(margin=3, p=2, eps=1e-06, swap=true)");
  EXPECT_EQ(printed(nn::PoissonNLLLoss()), "locus::nn::PoissonNLLLoss()");
  nn::GaussianNLLLoss g(nn::GaussianNLLLossOptions().full(true));
  EXPECT_EQ(values(g(a, b, c.abs())),
            values(F::gaussian_nll_loss(a, b, c.abs(), F::GaussianNLLLossFuncOptions().full(true))));
  EXPECT_EQ(printed(g), "locus::nn::GaussianNLLLoss()");
  nn::MultiMarginLoss mm(nn::MultiMarginLossOptions().p(2).margin(0.5));
  EXPECT_EQ(values(mm(a, idx({0, 1, 2}))),
            values(F::multi_margin_loss(a, idx({0, 1, 2}), F::MultiMarginLossFuncOptions().p(2).margin(0.5))));
  EXPECT_EQ(printed(mm), "locus::nn::MultiMarginLoss(p=2, margin=0.5)");
  EXPECT_EQ(printed(nn::MultiLabelMarginLoss()), "locus::nn::MultiLabelMarginLoss()");
  nn::CosineSimilarity cs(nn::CosineSimilarityOptions().dim(0));
  EXPECT_EQ(values(cs(a, b)), values(F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(0))));
  EXPECT_EQ(printed(cs), "locus::nn::CosineSimilarity(dim=0, eps=1e-08)");
  nn::PairwiseDistance pd(nn::PairwiseDistanceOptions().p(1).keepdim(true));
  EXPECT_EQ(values(pd(a, b)), values(F::pairwise_distance(a, b, F::PairwiseDistanceFuncOptions().p(1).keepdim(true))));
  EXPECT_EQ(printed(pd), "locus::nn::PairwiseDistance(p=1, eps=1e-06, keepdim=true)");
}

// Every refusal, by message; none of them crashes.
TEST_P(Losses, ErrorMessages) {
  const Tensor a = s({3, 4}), v3 = s({3});
  EXPECT_THROW_MSG(F::margin_ranking_loss(v3, s({4}), v3), Error,
                   "[margin_ranking_loss] input2 size [4] differs from input1 size [3]; give input1, input2 and target "
                   "the same shape.");
  EXPECT_THROW_MSG(F::margin_ranking_loss(v3, v3, a), Error,
                   "[margin_ranking_loss] target size [3, 4] differs from input1 size [3];");
  EXPECT_THROW_MSG(F::hinge_embedding_loss(a, v3), Error,
                   "[hinge_embedding_loss] target size [3] differs from input size [3, 4]; give both the same shape.");
  EXPECT_THROW_MSG(
      F::cosine_embedding_loss(a, a, a), Error,
      "[cosine_embedding_loss] expected a 0-dim or 1-D target, got [3, 4]; multi-target is not supported.");
  EXPECT_THROW_MSG(F::cosine_embedding_loss(a, a, s({2})), Error,
                   "[cosine_embedding_loss] a target of shape [2] takes inputs [2, D], got [3, 4].");
  EXPECT_THROW_MSG(F::cosine_embedding_loss(a, a, t(1.)), Error,
                   "[cosine_embedding_loss] a target of shape [] takes inputs [D], got [3, 4].");
  EXPECT_THROW_MSG(F::cosine_embedding_loss(a, s({3, 5}), v3), Error,
                   "[cosine_embedding_loss] input2 size [3, 5] differs from input1 size [3, 4]");
  EXPECT_THROW_MSG(F::soft_margin_loss(a, v3), Error,
                   "[soft_margin_loss] target size [3] differs from input size [3, 4]");
  EXPECT_THROW_MSG(F::multilabel_soft_margin_loss(a, a, F::MultiLabelSoftMarginLossFuncOptions().weight(v3)), Error,
                   "[multilabel_soft_margin_loss] expected weight of 4 elements (one per class), got [3].");
  EXPECT_THROW_MSG(F::multilabel_soft_margin_loss(t(1.), t(1.)), Error,
                   "[multilabel_soft_margin_loss] expected an input [N, C] or [C], got a 0-dim tensor.");
  EXPECT_THROW_MSG(F::triplet_margin_loss(a, a, v3), Error,
                   "[triplet_margin_loss] expected anchor, positive and negative of one number of dims, got anchor "
                   "[3, 4], positive [3, 4] and negative [3].");
  EXPECT_THROW_MSG(F::triplet_margin_loss(a, a, a, F::TripletMarginLossFuncOptions().p(0)), Error,
                   "[triplet_margin_loss] p must be positive (or infinity), got 0.");
  EXPECT_THROW_MSG(F::pairwise_distance(a, a, F::PairwiseDistanceFuncOptions().p(-1)), Error,
                   "[pairwise_distance] p must be positive (or infinity), got -1.");
  EXPECT_THROW_MSG(F::pairwise_distance(t(1.), t(2.)), Error,
                   "[pairwise_distance] expected inputs of at least 1 dim, got two 0-dim tensors.");
  EXPECT_THROW_MSG(F::pairwise_distance(a, v3), Error, "[pairwise_distance] ");
  EXPECT_THROW_MSG(F::cosine_similarity(a, a, F::CosineSimilarityFuncOptions().dim(2)), Error,
                   "[cosine_similarity] dim 2 is out of range for inputs of 2 dims; give -2 <= dim < 2.");
  EXPECT_THROW_MSG(F::cosine_similarity(a, v3), Error, "[cosine_similarity] ");
  EXPECT_THROW_MSG(F::poisson_nll_loss(a, v3), Error,
                   "[poisson_nll_loss] target size [3] differs from input size [3, 4]");
  EXPECT_THROW_MSG(F::gaussian_nll_loss(a, a, s({4})), Error,
                   "[gaussian_nll_loss] var of shape [4] does not fit input [3, 4]; give var input's shape, or it "
                   "without the last dim, or with a last dim of 1.");
  EXPECT_THROW_MSG(F::gaussian_nll_loss(a, a, s({3, 2})), Error,
                   "[gaussian_nll_loss] var of shape [3, 2] does not fit");
  EXPECT_THROW_MSG(F::gaussian_nll_loss(a, a, -ones({3}, o)), Error,
                   "[gaussian_nll_loss] var has negative entries; variances must be at least 0.");
  EXPECT_THROW_MSG(F::gaussian_nll_loss(a, v3, v3), Error,
                   "[gaussian_nll_loss] target size [3] differs from input size");
  const Tensor y = idx({0, 1, 2});
  EXPECT_THROW_MSG(F::multi_margin_loss(a, y, F::MultiMarginLossFuncOptions().p(3)), Error,
                   "[multi_margin_loss] p must be 1 or 2, got 3.");
  EXPECT_THROW_MSG(F::multi_margin_loss(a, y.to(kFloat)), Error,
                   "[multi_margin_loss] expected target to hold int64 class indices, got float32; convert with "
                   ".to(locus::kLong).");
  EXPECT_THROW_MSG(F::multi_margin_loss(s({2, 3, 4}), y), Error,
                   "[multi_margin_loss] expected a non-empty input [N, C] or [C], got [2, 3, 4].");
  EXPECT_THROW_MSG(F::multi_margin_loss(a, idx({0, 1})), Error,
                   "[multi_margin_loss] expected a target of 3 class indices (one per row of input [3, 4]), got [2].");
  EXPECT_THROW_MSG(F::multi_margin_loss(a, idx({0, 4, 1})), Error,
                   "[multi_margin_loss] target 4 is out of range for 4 classes; give class indices from 0 to 3.");
  EXPECT_THROW_MSG(F::multi_margin_loss(a, idx({0, -1, 1})), Error, "[multi_margin_loss] target -1 is out of range");
  EXPECT_THROW_MSG(F::multi_margin_loss(a, y, F::MultiMarginLossFuncOptions().weight(v3)), Error,
                   "[multi_margin_loss] expected weight of 4 elements (one per class), got [3].");
  EXPECT_THROW_MSG(F::multilabel_margin_loss(a, idx({{0, 1, -1, 0}, {0, 1, 2, 3}, {4, -1, 0, 0}})), Error,
                   "[multilabel_margin_loss] target 4 is out of range for 4 classes; give class indices from 0 to 3, "
                   "ended by -1.");
  EXPECT_THROW_MSG(
      F::multilabel_margin_loss(a, y), Error,
      "[multilabel_margin_loss] target size [3] differs from input size [3, 4]; give both the same shape.");
  EXPECT_THROW_MSG(F::multilabel_margin_loss(a, a), Error,
                   "[multilabel_margin_loss] expected target to hold int64 class indices, got float64;");
  if (!d.is_cpu()) {
    EXPECT_THROW(F::soft_margin_loss(a, a.cpu()), DeviceMismatchError);
    EXPECT_THROW(F::multi_margin_loss(a, y.cpu()), DeviceMismatchError);
    EXPECT_THROW(F::gaussian_nll_loss(a, a, a.cpu()), DeviceMismatchError);
  }
}

// cross_entropy with class probabilities as the target (a float target of the input's shape):
// values and first gradients against PyTorch 1.13 (float64, [2, 3, 4]: the class dim is 1) with
// class weights, label smoothing and each reduction; the mean is over the 8 positions, unweighted.
TEST_P(Losses, CrossEntropyWithClassProbabilities) {
  const Tensor x0 = (arange(24, o) * 0.37).sin().reshape({2, 3, 4});
  const Tensor p = (arange(24, o) * 0.11).cos().reshape({2, 3, 4}).softmax(1);
  const Tensor w = t({1.0, 2.0, 0.5});
  struct Case {
    F::CrossEntropyFuncOptions opts;
    std::vector<double> loss, grad6;
  };
  const std::vector<Case> cases = {
      {F::CrossEntropyFuncOptions(), {1.3793455092002445},
       {-0.022503620383147672, -0.013050568749933125, -0.000138307192447909, 0.013518416609710475,
        0.025360120956956285, 0.023731016098418795}},
      {F::CrossEntropyFuncOptions().weight(w), {1.5554807071376302},
       {-0.017012224299014035, -0.005020844280393694, 0.011191280360694398, 0.028286003895997613,
        -0.003401881272509921, -0.004896872715630516}},
      {F::CrossEntropyFuncOptions().label_smoothing(0.2), {1.3636865610300704},
       {-0.021239430487020188, -0.01141885254488939, 0.001843992134489436, 0.015829389277459804,
        0.025752348339692525, 0.024048487495135287}},
      {F::CrossEntropyFuncOptions().weight(w).label_smoothing(0.1).reduction(kSum), {12.34581692405873},
       {-0.1320362855730218, -0.035160378473012545, 0.09525441763197799, 0.23261651155863178,
        -0.026771482260587648, -0.03940477978711633}},
      {F::CrossEntropyFuncOptions().reduction(kNone),
       {1.1944453034453144, 1.1561754995784002, 1.140714934399569, 1.1526351658573328, 1.650256052956431,
        1.670167796946733, 1.597540916552183, 1.4728284038659922},
       {-0.18002896306518137, -0.104404549999465, -0.001106457539583272, 0.1081473328776838,
        0.20288096765565028, 0.18984812878735036}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    Tensor x = x0.clone().requires_grad_(true);
    Tensor loss = F::cross_entropy(x, p, cases[i].opts);
    expect_close(values(loss), cases[i].loss, "case " + std::to_string(i));
    loss.sum().backward();
    const std::vector<double> grad = values(x.grad());
    expect_close(std::vector<double>(grad.begin(), grad.begin() + 6), cases[i].grad6, "gradient, case " + std::to_string(i));
  }
  EXPECT_THROW_MSG(F::cross_entropy(x0, p.narrow(2, 0, 3)), Error,
                   "[cross_entropy] a floating-point target holds class probabilities and needs the input's shape "
                   "[2, 3, 4], got [2, 3, 3]; for class indices pass an int64 target (.to(locus::kLong)).");
  EXPECT_THROW_MSG(F::cross_entropy(x0, p, F::CrossEntropyFuncOptions().ignore_index(0)), Error,
                   "[cross_entropy] ignore_index is not supported for floating point target (class probabilities).");
}

LOCUS_INSTANTIATE_DEVICES(Losses);

}  // namespace losses_test
