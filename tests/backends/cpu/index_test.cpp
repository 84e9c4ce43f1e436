// CPU backend: index_select, gather and scatter_add.
#include "cpu_testing.h"

namespace cpu_test {
namespace {
namespace index_test {

using backend::IndexOp;

TEST(CpuIndex, IndexSelect) {
  HostTensor x = make(kFloat, {3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  HostTensor idx = make(kLong, {4}, {2, 0, 2, 1});
  HostTensor rows = make(kFloat, {4, 4});
  be().index(0, nullptr, IndexOp::IndexSelect, rows, x, idx, 0);
  EXPECT_EQ(rows.values(), (std::vector<double>{20, 21, 22, 23, 0, 1, 2, 3, 20, 21, 22, 23, 10, 11, 12, 13}));
  HostTensor cols = make(kFloat, {3, 4});
  be().index(0, nullptr, IndexOp::IndexSelect, cols, x, idx, 1);
  EXPECT_EQ(cols.values(), (std::vector<double>{2, 0, 2, 1, 12, 10, 12, 11, 22, 20, 22, 21}));
  // strided input (the transpose) and a strided index
  HostTensor t = make(kFloat, {2, 3});
  HostTensor idx2 = make(kLong, {4}, {3, 9, 1, 9});
  TensorRef every_other = make_ref(idx2.ref.buf.base, kLong, {2}, {2});  // {3, 1}
  be().index(0, nullptr, IndexOp::IndexSelect, t, transposed(x), every_other, 0);
  EXPECT_EQ(t.values(), (std::vector<double>{3, 13, 23, 1, 11, 21}));
  // embedding-sized rows, in parallel
  const int64_t V = 1000, D = 64, L = 5000;
  HostTensor emb = make(kHalf, {V, D}), ids = make(kLong, {L}), out = make(kHalf, {L, D});
  std::vector<double> ev(static_cast<size_t>(V * D)), iv(static_cast<size_t>(L));
  for (int64_t i = 0; i < V * D; ++i) ev[static_cast<size_t>(i)] = static_cast<double>(i / D);
  for (int64_t i = 0; i < L; ++i) iv[static_cast<size_t>(i)] = static_cast<double>((i * 37) % V);
  set_vals(emb.ref, ev);
  set_vals(ids.ref, iv);
  be().index(0, nullptr, IndexOp::IndexSelect, out, emb, ids, 0);
  std::vector<double> got = out.values();
  for (int64_t i = 0; i < L * D; ++i) ASSERT_EQ(got[static_cast<size_t>(i)], static_cast<double>(((i / D) * 37) % V)) << i;
}

TEST(CpuIndex, Gather) {
  HostTensor x = make(kLong, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor i1 = make(kLong, {2, 2}, {2, 0, 1, 1}), o1 = make(kLong, {2, 2});
  be().index(0, nullptr, IndexOp::Gather, o1, x, i1, 1);  // out[i][j] = x[i][idx[i][j]]
  EXPECT_EQ(o1.values(), (std::vector<double>{3, 1, 5, 5}));
  HostTensor i0 = make(kLong, {1, 3}, {1, 0, 1}), o0 = make(kLong, {1, 3});
  be().index(0, nullptr, IndexOp::Gather, o0, x, i0, 0);  // out[i][j] = x[idx[i][j]][j]
  EXPECT_EQ(o0.values(), (std::vector<double>{4, 2, 6}));
  // the cross-entropy pattern: one class per row from a [N, C] matrix of doubles
  HostTensor logits = make(kDouble, {3, 4}, {0.1, 0.2, 0.3, 0.4, 1.1, 1.2, 1.3, 1.4, 2.1, 2.2, 2.3, 2.4});
  HostTensor tgt = make(kLong, {3, 1}, {3, 0, 2}), picked = make(kDouble, {3, 1});
  be().index(0, nullptr, IndexOp::Gather, picked, logits, tgt, 1);
  EXPECT_EQ(picked.values(), (std::vector<double>{0.4, 1.1, 2.3}));
  // 0-dim
  HostTensor s = make(kFloat, {}, {5}), si = make(kLong, {}, {0}), so = make(kFloat, {});
  be().index(0, nullptr, IndexOp::Gather, so, s, si, 0);
  EXPECT_EQ(so.values(), (std::vector<double>{5}));
}

TEST(CpuIndex, ScatterAddAccumulatesDuplicates) {
  HostTensor out = make(kFloat, {2, 3}, {1});
  HostTensor src = make(kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor idx = make(kLong, {2, 3}, {0, 1, 0, 1, 1, 1});
  be().index(0, nullptr, IndexOp::ScatterAdd, out, src, idx, 0);  // out[idx[i][j]][j] += src[i][j]
  EXPECT_EQ(out.values(), (std::vector<double>{2, 1, 4, 5, 8, 7}));
  HostTensor o2 = make(kLong, {2, 4}, {0}), s2 = make(kLong, {2, 3}, {1, 1, 1, 1, 1, 1}), i2 = make(kLong, {2, 3}, {3, 3, 0, 1, 1, 1});
  be().index(0, nullptr, IndexOp::ScatterAdd, o2, s2, i2, 1);  // counts per bucket (bincount)
  EXPECT_EQ(o2.values(), (std::vector<double>{1, 0, 0, 2, 0, 3, 0, 0}));
  // many duplicates into few targets
  const int64_t n = 100000;
  HostTensor ih = make(kLong, {n});
  std::vector<double> iv(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) iv[static_cast<size_t>(i)] = static_cast<double>(i % 4);
  set_vals(ih.ref, iv);
  HostTensor ol = make(kLong, {4}, {0}), sl = make(kLong, {n}, {1});
  be().index(0, nullptr, IndexOp::ScatterAdd, ol, sl, ih, 0);
  EXPECT_EQ(ol.values(), (std::vector<double>{25000, 25000, 25000, 25000}));
}

}  // namespace index_test
}  // namespace
}  // namespace cpu_test
