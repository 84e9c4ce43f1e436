// scripts/libtorch-diff: In-place ops on views and on graph tensors: an RNN loop writing outputs[t] = h, ops on
// slices of graph tensors, index_put_ (slices, tensor indices, accumulate), fill_/zero_, scatter_, index_add_,
// a view taken before its base changed, grad_fn names.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
using namespace torch::indexing;
template <class T> void show(const T& x) { std::cout << x << "\n"; }
#define P(expr) std::cout << "--- " #expr "\n"; show(expr);
torch::Tensor leaf(std::vector<double> v) {
  return torch::tensor(v, torch::TensorOptions().dtype(torch::kDouble)).requires_grad_(true);
}
int main() {
  auto opts = torch::TensorOptions().dtype(torch::kDouble);
  {  // an RNN cell unrolled into a preallocated tensor
    auto x = leaf({-1.0, 0.5, 2.0}), w = leaf({0.5, -1.5, 0.25});
    auto out = torch::zeros({4, 3}, opts);
    auto h = x;
    for (int64_t t = 0; t < 4; ++t) {
      h = torch::tanh(h * w + 0.1 * t);
      out[t] = h;
    }
    P(out.requires_grad()); P(out.grad_fn()->name());
    (out * torch::arange(12, opts).reshape({4, 3})).sum().backward();
    P(x.grad()); P(w.grad());
  }
  {  // ops on slices of graph tensors
    auto x = leaf({1.0, -2.0, 3.0, 0.5}), w = leaf({2.0, 0.5, -1.0, 4.0});
    auto y = x * w;
    y.narrow(0, 1, 2).mul_(x.narrow(0, 0, 2));
    y[3] += 2;
    y.index_put_({Slice(0, 1)}, y.index({Slice(2, 3)}) * 3);
    P(y); P(y.grad_fn()->name());
    (y * y).sum().backward();
    P(x.grad()); P(w.grad());
  }
  {  // index_put_ with tensor indices, accumulating, and with a scalar
    auto x = leaf({1.0, 2.0, 3.0, 4.0}), w = leaf({0.5, -0.5, 2.0});
    auto y = x * 2;
    y.index_put_({torch::tensor({0, 0, 3})}, w, /*accumulate=*/true);
    auto z = torch::zeros({4}, opts);
    z.index_put_({torch::tensor({2, 1})}, w.slice(0, 0, 2) * x.slice(0, 2, 4));
    auto m = x * 1;
    m.index_put_({torch::tensor({true, false, true, false})}, 0.0);
    P(y); P(z); P(m);
    (y.pow(2).sum() + (z * x).sum() + (m * w.sum()).sum()).backward();
    P(x.grad()); P(w.grad());
  }
  {  // fill_, zero_, scatter_, scatter_add_, index_add_ on graph tensors
    auto x = leaf({1.0, -1.0, 2.0, 0.5}), w = leaf({3.0, 1.0});
    auto a = x * 2; a.fill_(1.5);
    auto b = x * 3; b.narrow(0, 0, 2).zero_();
    auto c = x * 1; c.scatter_(0, torch::tensor({3, 1}), w);
    auto d = x * x; d.scatter_add_(0, torch::tensor({0, 0}), w * w);
    auto e = x * 1; e.index_add_(0, torch::tensor({2, 3}), w, 0.5);
    P(a.grad_fn()->name()); P(b); P(c); P(d); P(e);
    (a.sum() + b.pow(2).sum() + c.pow(2).sum() + d.sum() + (e * e).sum()).backward();
    P(x.grad()); P(w.grad());
  }
  {  // a view taken before its base changed in place, and before it joined the graph
    auto x = leaf({1.0, 2.0, 3.0}), w = leaf({-1.0, 0.5, 2.0});
    auto y = x * 1;
    auto first = y.slice(0, 0, 2);
    y.mul_(w);
    P(first);
    first.sum().backward();
    P(x.grad()); P(w.grad());
    auto out = torch::zeros({3}, opts);
    auto tail = out.slice(0, 1, 3);
    P(tail.requires_grad());
    out.copy_(x * 2);
    P(tail.requires_grad());
    tail.pow(2).sum().backward();
    P(x.grad());
  }
  {  // activations with inplace=true on tensors of the graph: the input is overwritten
    namespace F = torch::nn::functional;
    auto x = leaf({-1.0, 2.0, -3.0, 4.0});
    auto a = x * 2, b = x * 3, c = x * 1;
    auto ra = F::relu(a, F::ReLUFuncOptions(true));
    auto rb = F::leaky_relu(b, F::LeakyReLUFuncOptions().negative_slope(0.1).inplace(true));
    auto rc = torch::nn::ELU(torch::nn::ELUOptions().inplace(true))(c);
    P(a); P(b); P(c); P(ra.is_same(a)); P(rb.is_same(b));
    (a * b + c).sum().backward();
    P(x.grad());
  }
  {  // in-place op on a column (a strided view) and on a transposed view
    auto x = leaf({1.0, 2.0, 3.0, 4.0, 5.0, 6.0});
    auto y = (x * 1).reshape({2, 3});
    y.select(1, 1).mul_(10);
    y.t()[2].add_(x.slice(0, 0, 2));
    P(y);
    (y * y).sum().backward();
    P(x.grad());
  }
}
