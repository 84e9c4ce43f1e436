// L-BFGS as torch.optim.LBFGS: the two-loop recursion over the last history_size (s, y) pairs,
// then a step of lr (the first scaled by 1 / |g|_1) or a strong-Wolfe line search (bracketing,
// then zooming with cubic interpolation, Nocedal and Wright's algorithms 3.5 and 3.6, with
// PyTorch's safeguards so that the same inputs take the same steps).
#include "locus/optim/lbfgs.h"

#include <algorithm>
#include <cmath>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"

namespace locus::optim {

namespace {
double dot_value(const Tensor& a, const Tensor& b) { return a.dot(b).item<double>(); }
double abs_max(const Tensor& a) { return a.abs().max().item<double>(); }

// The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, kept within
// [lo, hi] (the points' span by default); the middle when the cubic has no minimum.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  const auto [lo, hi] = bounds ? *bounds : std::make_pair(std::min(x1, x2), std::max(x1, x2));
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square < 0) return (lo + hi) / 2;
  const double d2 = std::sqrt(d2_square);
  const double at = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                             : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(at, lo), hi);
}

// One end of a line-search bracket: step, loss, gradient and directional derivative there.
struct Point {
  double t = 0, f = 0;
  Tensor g;
  double gtd = 0;
};
}  // namespace

LBFGS::LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<LBFGSOptions>(defaults)) {
  if (param_groups_.size() != 1)
    throw Error("LBFGS doesn't support per-parameter options (parameter groups): got " +
                std::to_string(param_groups_.size()) + " groups; pass one list of parameters.");
  if (defaults.line_search_fn() && *defaults.line_search_fn() != "strong_wolfe")
    throw Error("LBFGS: only 'strong_wolfe' is supported as line_search_fn, got '" + *defaults.line_search_fn() +
                "'; leave it unset for a fixed step.");
  if (defaults.history_size() <= 0 || defaults.max_iter() <= 0)
    throw Error("LBFGS: history_size and max_iter must be positive, got " + std::to_string(defaults.history_size()) +
                " and " + std::to_string(defaults.max_iter()) + ".");
  const std::vector<Tensor>& ps = param_groups_[0].params();
  for (const Tensor& p : ps)
    if (p.device() != ps[0].device())
      throw DeviceMismatchError("LBFGS: every parameter must be on one device, found " + ps[0].device().str() + " and " +
                                p.device().str() + "; move the module with ->to(device) before making the optimizer.");
}

Tensor LBFGS::flat_grad() const {
  std::vector<Tensor> parts;
  for (const Tensor& p : param_groups_[0].params())
    parts.push_back(p.grad().defined() ? p.grad().reshape({-1}).to(p.scalar_type()) : zeros({p.numel()}, p.options()));
  return cat(parts, 0);
}

void LBFGS::add_to_params(double step, const Tensor& direction) {
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (Tensor& p : param_groups_[0].params()) {
    p.add_(direction.narrow(0, offset, p.numel()).view(p.sizes()), step);
    offset += p.numel();
  }
}

double LBFGS::evaluate(const LossClosure& closure, Tensor& grad) {
  const double loss = call_closure(closure).item<double>();
  grad = flat_grad();
  return loss;
}

Tensor LBFGS::step(LossClosure closure) {
  if (!closure)
    throw Error("LBFGS requires a closure function: step([&] { optimizer.zero_grad(); auto loss = ...; "
                "loss.backward(); return loss; }).");
  const auto& o = static_cast<const LBFGSOptions&>(param_groups_[0].options());
  const double lr = o.lr(), tol_grad = o.tolerance_grad(), tol_change = o.tolerance_change();
  const int64_t max_iter = o.max_iter(), max_eval = o.max_eval().value_or(max_iter * 5 / 4);
  const size_t history = static_cast<size_t>(o.history_size());

  const Tensor orig_loss = call_closure(closure);
  if (!orig_loss.defined() || orig_loss.numel() != 1)
    throw Error("LBFGS: the closure must return the loss, a tensor of one element.");
  double loss = orig_loss.item<double>();
  int64_t evals = 1;
  ++func_evals_;
  NoGradGuard no_grad;
  Tensor g = flat_grad();
  if (abs_max(g) <= tol_grad) return orig_loss;

  for (int64_t iter = 1;; ++iter) {
    ++n_iter_;
    if (n_iter_ == 1) {
      d_ = g.neg();
      old_dirs_.clear(), old_stps_.clear(), ro_.clear();
      h_diag_ = 1;
    } else {
      // the newest (s, y) pair joins the history when the curvature along it is positive
      const Tensor y = g - prev_flat_grad_, s = d_ * t_;
      const double ys = dot_value(y, s);
      if (ys > 1e-10) {
        if (old_dirs_.size() == history) {
          old_dirs_.erase(old_dirs_.begin()), old_stps_.erase(old_stps_.begin()), ro_.erase(ro_.begin());
        }
        old_dirs_.push_back(y), old_stps_.push_back(s), ro_.push_back(1.0 / ys);
        h_diag_ = ys / dot_value(y, y);
      }
      // the two-loop recursion: d = -H g
      std::vector<double> al(old_dirs_.size());
      Tensor q = g.neg();
      for (size_t i = old_dirs_.size(); i-- > 0;) {
        al[i] = dot_value(old_stps_[i], q) * ro_[i];
        q.add_(old_dirs_[i], -al[i]);
      }
      d_ = q * h_diag_;
      for (size_t i = 0; i < old_dirs_.size(); ++i) {
        const double be = dot_value(old_dirs_[i], d_) * ro_[i];
        d_.add_(old_stps_[i], al[i] - be);
      }
    }
    prev_flat_grad_ = g.clone();
    prev_loss_ = loss;
    t_ = n_iter_ == 1 ? std::min(1.0, 1.0 / g.abs().sum().item<double>()) * lr : lr;
    const double gtd = dot_value(g, d_);
    if (gtd > -tol_change) break;  // not a descent direction any more

    int64_t ls_evals = 0;
    bool optimal = false;
    if (o.line_search_fn()) {
      ls_evals = strong_wolfe(closure, loss, g, gtd);
      optimal = abs_max(g) <= tol_grad;
    } else {
      add_to_params(t_, d_);
      if (iter != max_iter) {
        loss = evaluate(closure, g);
        optimal = abs_max(g) <= tol_grad;
        ls_evals = 1;
      }
    }
    evals += ls_evals;
    func_evals_ += ls_evals;
    if (iter == max_iter || evals >= max_eval || optimal) break;
    if (abs_max(d_ * t_) <= tol_change || std::abs(loss - prev_loss_) < tol_change) break;
  }
  return orig_loss;
}

int64_t LBFGS::strong_wolfe(const LossClosure& closure, double& loss, Tensor& g, double gtd) {
  const double c1 = 1e-4, c2 = 0.9, tol_change = 1e-9;
  const int64_t max_ls = 25;
  const double d_norm = abs_max(d_);
  const double f0 = loss;
  const Tensor g0 = g;
  const std::vector<Tensor> start = [&] {
    std::vector<Tensor> x;
    for (const Tensor& p : param_groups_[0].params()) x.push_back(p.clone());
    return x;
  }();
  // the loss and gradient at x0 + t d, the parameters then put back
  auto at = [&](double t) {
    Point p{t, 0, Tensor(), 0};
    add_to_params(t, d_);
    p.f = evaluate(closure, p.g);
    p.gtd = dot_value(p.g, d_);
    for (size_t i = 0; i < start.size(); ++i) param_groups_[0].params()[i].copy_(start[i]);
    return p;
  };
  double t = t_;
  Point next = at(t), prev{0, f0, g0, gtd};
  int64_t evals = 1, ls_iter = 0;
  Point bracket[2];
  int n_bracket = 0;
  bool done = false;
  // bracketing: find an interval holding a point that satisfies the strong Wolfe conditions
  while (ls_iter < max_ls) {
    if (next.f > f0 + c1 * t * gtd || (ls_iter > 1 && next.f >= prev.f)) {
      bracket[0] = prev, bracket[1] = next, n_bracket = 2;
      break;
    }
    if (std::abs(next.gtd) <= -c2 * gtd) {
      bracket[0] = next, n_bracket = 1, done = true;
      break;
    }
    if (next.gtd >= 0) {
      bracket[0] = prev, bracket[1] = next, n_bracket = 2;
      break;
    }
    const double lo = t + 0.01 * (t - prev.t), hi = t * 10;
    const double nt = cubic_interpolate(prev.t, prev.f, prev.gtd, t, next.f, next.gtd, std::make_pair(lo, hi));
    prev = next;
    t = nt;
    next = at(t);
    ++evals, ++ls_iter;
  }
  if (ls_iter == max_ls) bracket[0] = Point{0, f0, g0, gtd}, bracket[1] = next, n_bracket = 2;
  // zoom: shrink the bracket until a point satisfies them
  bool insufficient_progress = false;
  int low = 0, high = 1;
  if (n_bracket == 2 && bracket[0].f > bracket[1].f) low = 1, high = 0;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1].t - bracket[0].t) * d_norm < tol_change) break;
    t = cubic_interpolate(bracket[0].t, bracket[0].f, bracket[0].gtd, bracket[1].t, bracket[1].f, bracket[1].gtd);
    const double bmax = std::max(bracket[0].t, bracket[1].t), bmin = std::min(bracket[0].t, bracket[1].t);
    const double eps = 0.1 * (bmax - bmin);
    if (std::min(bmax - t, t - bmin) < eps) {  // too close to an end: move away from it, or note it
      if (insufficient_progress || t >= bmax || t <= bmin) {
        t = std::abs(t - bmax) < std::abs(t - bmin) ? bmax - eps : bmin + eps;
        insufficient_progress = false;
      } else {
        insufficient_progress = true;
      }
    } else {
      insufficient_progress = false;
    }
    next = at(t);
    ++evals, ++ls_iter;
    if (next.f > f0 + c1 * t * gtd || next.f >= bracket[low].f) {
      bracket[high] = next;
      low = bracket[0].f <= bracket[1].f ? 0 : 1, high = 1 - low;
    } else {
      if (std::abs(next.gtd) <= -c2 * gtd) done = true;
      else if (next.gtd * (bracket[high].t - bracket[low].t) >= 0) bracket[high] = bracket[low];
      bracket[low] = next;
    }
  }
  const Point& best = bracket[n_bracket == 1 ? 0 : low];
  t_ = best.t;
  loss = best.f;
  g = best.g;
  add_to_params(t_, d_);
  return evals;
}

}  // namespace locus::optim
