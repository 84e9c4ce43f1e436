// Matrix products: shapes and layouts are settled here, the backend runs one (batched) GEMM.
#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/functions.h"
#include "autograd/record.h"
#include "ops/autocast.h"
#include "ops/checks.h"

namespace locus {
namespace ac = ops::autocast;
namespace {

struct MatLayout {
  Tensor t;       // the tensor whose memory the GEMM reads
  bool trans;     // read as transposed
  int64_t ld;     // row stride of the stored matrix
};

// A [r, c] or [B, r, c] operand as GEMM wants it: row-major (stride c, 1) or transposed (1, r).
// `shared_ok`: a batch of one matrix repeated (batch stride 0, as matmul's broadcasting makes of a
// weight shared by every batch entry) is read in place, not copied B times (the cpu backend's
// GEMM takes stride 0; conv_transpose2d's weight was copied once per image: 15% of a DCGAN step).
MatLayout layout(const Tensor& m, bool shared_ok) {
  IntArrayRef sz = m.sizes(), st = m.strides();
  const size_t nd = sz.size();
  int64_t r = sz[nd - 2], c = sz[nd - 1];
  int64_t sr = st[nd - 2], sc = st[nd - 1];
  if (shared_ok && nd == 3 && sz[0] > 1 && st[0] == 0) {
    // the one matrix row-major (copied once when it is not: a transposed A was slower here)
    Tensor one = m.select(0, 0);
    if (!((sc == 1 || c == 1) && sr >= std::max<int64_t>(c, 1))) one = one.contiguous();
    return {one.unsqueeze(0).expand({sz[0], r, c}), false, std::max<int64_t>(one.strides()[0], 1)};
  }
  bool batch_ok = true;
  if (nd == 3 && sz[0] > 1 && st[0] < r * c) batch_ok = false;  // broadcast/overlapping batch
  if (batch_ok && (sc == 1 || c == 1) && sr >= std::max<int64_t>(c, 1)) return {m, false, std::max<int64_t>(sr, 1)};
  if (batch_ok && (sr == 1 || r == 1) && sc >= std::max<int64_t>(r, 1)) return {m, true, std::max<int64_t>(sc, 1)};
  Tensor cm = m.contiguous();
  return {cm, false, std::max<int64_t>(c, 1)};
}

void check_mat_dtypes(const char* op, const Tensor& a, const Tensor& b) {
  if (a.scalar_type() != b.scalar_type())
    throw Error("[" + std::string(op) + "] expected both operands to have the same dtype, but got " +
                dtype_name(a.scalar_type()) + " for argument 'self' and " + dtype_name(b.scalar_type()) +
                " for argument 'mat2'. Convert one with .to(" + dtype_name(a.scalar_type()) + ").");
  if (a.scalar_type() == kBool)
    throw Error("[" + std::string(op) + "] not implemented for bool tensors; convert to a numeric dtype first.");
}

// out = alpha * a @ b + beta * out for 2-D a [m,k], b [k,n] and contiguous out [m,n], or the same
// for each b of 3-D a [B,m,k], b [B,k,n], out [B,m,n]. Matrices are not unsqueezed into batches of
// one: a view per operand was a third of locus's host time in a small GEMM (issue 16).
void run_gemm(const Tensor& a, const Tensor& b, Tensor& out, double alpha, double beta) {
  IntArrayRef as = a.sizes();
  const size_t nd = as.size();
  int64_t batch = nd == 3 ? as[0] : 1, m = as[nd - 2], k = as[nd - 1], n = b.sizes()[nd - 1];
  if (out.numel() == 0) return;
  Device d = out.device();
  if (k == 0) {
    if (beta == 0) out.zero_();
    else if (beta != 1) out.mul_(beta);
    return;
  }
  MatLayout la = layout(a, d.is_cpu()), lb = layout(b, d.is_cpu());
  backend::Backend::Gemm g;
  g.dtype = a.scalar_type();
  g.trans_a = la.trans;
  g.trans_b = lb.trans;
  g.m = m; g.n = n; g.k = k;
  g.alpha = alpha; g.beta = beta;
  g.a = ops::buffer(la.t);
  g.b = ops::buffer(lb.t);
  g.c = ops::buffer(out);
  g.lda = la.ld; g.ldb = lb.ld; g.ldc = n;
  g.batch = batch;
  g.stride_a = batch > 1 ? la.t.strides()[0] : m * k;
  g.stride_b = batch > 1 ? lb.t.strides()[0] : k * n;
  g.stride_c = m * n;
  ops::backend_for(d).gemm(backend::device_index(d), ops::current_stream(d), g);
}

// mm once autocast and the device check have passed: matmul makes both itself (its autocast
// list is mm's), so its matrix cases come here rather than through mm and check twice.
Tensor mm_checked(const Tensor& a, const Tensor& o) {
  if (a.dim() != 2 || o.dim() != 2)
    throw Error("[mm] expected 2-D tensors, got " + std::to_string(a.dim()) + "-D 'self' " + ops::shape_str(a.sizes()) +
                " and " + std::to_string(o.dim()) + "-D 'mat2' " + ops::shape_str(o.sizes()) + ".");
  if (a.sizes()[1] != o.sizes()[0])
    throw Error("[mm] mat1 and mat2 shapes cannot be multiplied (" + std::to_string(a.size(0)) + "x" +
                std::to_string(a.size(1)) + " and " + std::to_string(o.size(0)) + "x" + std::to_string(o.size(1)) +
                ").");
  check_mat_dtypes("mm", a, o);
  Tensor out = detail::make_empty({a.sizes()[0], o.sizes()[1]}, a.scalar_type(), a.device());
  run_gemm(a, o, out, 1.0, 0.0);
  if (autograd::should_record(a, o)) autograd::on_mm(out, a, o);
  return out;
}

}  // namespace

Tensor Tensor::mm(const Tensor& o) const {
  if (auto c = ac::policy(ac::Op::Mm, device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).mm(C(o)); });
  ops::check_same_device("mm", {{"self", this}, {"mat2", &o}});
  return mm_checked(*this, o);
}

Tensor Tensor::bmm(const Tensor& o) const {
  if (auto c = ac::policy(ac::Op::Bmm, device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).bmm(C(o)); });
  ops::check_same_device("bmm", {{"self", this}, {"mat2", &o}});
  if (dim() != 3 || o.dim() != 3)
    throw Error("[bmm] expected 3-D tensors, got " + std::to_string(dim()) + "-D 'self' " + ops::shape_str(sizes()) +
                " and " + std::to_string(o.dim()) + "-D 'mat2' " + ops::shape_str(o.sizes()) + ".");
  if (size(0) != o.size(0) || size(2) != o.size(1))
    throw Error("[bmm] batch1 and batch2 shapes cannot be multiplied: " + ops::shape_str(sizes()) + " and " +
                ops::shape_str(o.sizes()) + " (expected [b, n, m] and [b, m, p]).");
  check_mat_dtypes("bmm", *this, o);
  Tensor out = detail::make_empty({size(0), size(1), o.size(2)}, scalar_type(), device());
  run_gemm(*this, o, out, 1.0, 0.0);
  if (autograd::should_record(*this, o)) autograd::on_bmm(out, *this, o);
  return out;
}

Tensor Tensor::addmm(const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) const {
  if (auto c = ac::policy(ac::Op::Addmm, device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).addmm(C(m1), C(m2), beta, alpha); });
  ops::check_same_device("addmm", {{"self", this}, {"mat1", &m1}, {"mat2", &m2}});
  if (m1.dim() != 2 || m2.dim() != 2 || m1.size(1) != m2.size(0))
    throw Error("[addmm] mat1 and mat2 shapes cannot be multiplied (" + ops::shape_str(m1.sizes()) + " and " +
                ops::shape_str(m2.sizes()) + ").");
  check_mat_dtypes("addmm", m1, m2);
  Tensor out = detail::make_empty({m1.size(0), m2.size(1)}, m1.scalar_type(), m1.device());
  double b = beta.toDouble();
  if (b != 0) out.copy_(expand({m1.size(0), m2.size(1)}));
  run_gemm(m1, m2, out, alpha.toDouble(), b);
  if (autograd::should_record(*this, m1, m2)) autograd::on_addmm(out, *this, m1, m2, b, alpha.toDouble());
  return out;
}

Tensor Tensor::matmul(const Tensor& o) const {
  if (auto c = ac::policy(ac::Op::Matmul, device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).matmul(C(o)); });
  ops::check_same_device("matmul", {{"self", this}, {"other", &o}});
  int64_t da = dim(), db = o.dim();
  if (da == 0 || db == 0)
    throw Error("[matmul] both arguments need at least 1 dimension, but got " + std::to_string(da) + "D and " +
                std::to_string(db) + "D; use mul() for scalars.");
  if (da == 1 && db == 1) {
    if (size(0) != o.size(0))
      throw Error("[matmul] inconsistent tensor size, expected tensor [" + std::to_string(size(0)) +
                  "] and src [" + std::to_string(o.size(0)) + "] to have the same number of elements.");
    return mm_checked(unsqueeze(0), o.unsqueeze(1)).reshape({});
  }
  if (da == 2 && db == 1) return mm_checked(*this, o.unsqueeze(1)).squeeze(1);
  if (da == 1 && db == 2) return mm_checked(unsqueeze(0), o).squeeze(0);
  if (da == 2 && db == 2) return mm_checked(*this, o);
  // batched: broadcast batch dims
  Tensor a = da == 1 ? unsqueeze(0) : *this;
  Tensor b = db == 1 ? o.unsqueeze(1) : o;
  int64_t m = a.size(-2), k = a.size(-1), k2 = b.size(-2), n = b.size(-1);
  if (k != k2)
    throw Error("[matmul] shapes cannot be multiplied: " + ops::shape_str(sizes()) + " and " + ops::shape_str(o.sizes()) +
                " (the last dim of the first, " + std::to_string(k) + ", must equal the second-to-last of the second, " +
                std::to_string(k2) + ").");
  DimVector ba(a.sizes()), bb(b.sizes());
  ba.resize(ba.size() - 2);
  bb.resize(bb.size() - 2);
  DimVector batch = ops::broadcast_shapes(ba, bb, "matmul");
  int64_t bn = 1;
  for (int64_t s : batch) bn *= s;
  DimVector ea(batch), eb(batch);
  ea.push_back(m); ea.push_back(k);
  eb.push_back(k); eb.push_back(n);
  Tensor a3 = a.expand(ea).reshape({bn, m, k});
  Tensor b3 = b.expand(eb).reshape({bn, k, n});
  Tensor r = a3.bmm(b3);
  DimVector out(batch);
  if (da > 1) out.push_back(m);
  if (db > 1) out.push_back(n);
  return r.view(out);
}

Tensor Tensor::trace() const {
  if (dim() != 2) throw Error("[trace] expected a matrix (2-D tensor), got " + std::to_string(dim()) + "-D " + ops::shape_str(sizes()) + ".");
  // the diagonal is a strided view (stride0 + stride1); as_strided is differentiable
  return as_strided({std::min(size(0), size(1))}, {stride(0) + stride(1)}).sum();
}

Tensor trace(const Tensor& a) { return a.trace(); }
Tensor matmul(const Tensor& a, const Tensor& b) { return a.matmul(b); }
Tensor mm(const Tensor& a, const Tensor& b) { return a.mm(b); }
Tensor bmm(const Tensor& a, const Tensor& b) { return a.bmm(b); }
Tensor addmm(const Tensor& s, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) {
  return s.addmm(m1, m2, beta, alpha);
}

}  // namespace locus
