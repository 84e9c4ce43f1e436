// torch::einsum: the equation parsed into labels, each operand's repeated labels taken as
// diagonals (as_strided), labels no one else needs summed early, then the operands contracted
// pairwise, left to right, as batched matrix products (bmm) over [batch, kept-left, summed] x
// [batch, summed, kept-right]. Everything is made of differentiable ops that run on every device,
// so einsum is too. Labels follow PyTorch: [a-zA-Z], one "..." per operand (broadcast, right
// aligned), an implicit output of "..." then the labels used once, uppercase before lowercase.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/checks.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/tensor.h"

namespace locus {
namespace {

constexpr int kLetters = 52;  // label ids: 'A'-'Z' 0-25, 'a'-'z' 26-51; ellipsis dims from kLetters on

[[noreturn]] void fail(const std::string& what) { throw Error("[einsum] " + what); }

int letter_id(char c, size_t pos) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  fail("invalid subscript '" + std::string(1, c) + "' at index " + std::to_string(pos) +
       " of the equation: subscripts must be letters [a-zA-Z], with one optional \"...\" per operand.");
}

std::string label_name(int id) {
  if (id < 26) return std::string(1, static_cast<char>('A' + id));
  if (id < kLetters) return std::string(1, static_cast<char>('a' + id - 26));
  return "... dimension " + std::to_string(id - kLetters);
}

// One term of the equation: its labels in order, and where "..." stood (-1: none).
struct Term {
  std::vector<int> labels;
  int ellipsis_at = -1;
};

Term parse_term(std::string_view eq, size_t begin, size_t end) {
  Term t;
  for (size_t i = begin; i < end; ++i) {
    if (eq[i] == ' ') continue;
    if (eq[i] == '.') {
      if (i + 3 > end || eq.substr(i, 3) != "...")
        fail("a '.' that is not part of \"...\" at index " + std::to_string(i) + " of the equation.");
      if (t.ellipsis_at >= 0) fail("more than one \"...\" in one operand's subscripts (at index " + std::to_string(i) + ").");
      t.ellipsis_at = static_cast<int>(t.labels.size());
      i += 2;
      continue;
    }
    t.labels.push_back(letter_id(eq[i], i));
  }
  return t;
}

// The operand viewed with its dims labelled: ids (ellipsis dims as kLetters + k, right aligned
// over `ell` dims), repeated labels merged into their diagonal.
Tensor label_operand(const Tensor& x, const Term& t, int64_t ell, size_t index, std::vector<int>& ids) {
  const int64_t have = x.dim(), named = static_cast<int64_t>(t.labels.size());
  if (t.ellipsis_at < 0 && have != named)
    fail("operand " + std::to_string(index) + " has " + std::to_string(have) + " dimensions but its subscripts name " +
         std::to_string(named) + "; give one subscript per dimension, or \"...\" for the rest.");
  if (t.ellipsis_at >= 0 && have < named)
    fail("operand " + std::to_string(index) + " has " + std::to_string(have) + " dimensions, fewer than the " +
         std::to_string(named) + " its subscripts name.");
  const int64_t mine = have - named;  // this operand's ellipsis dims (the last `mine` of `ell`)
  ids.clear();
  for (int64_t k = 0; k < named + mine; ++k) {
    if (t.ellipsis_at >= 0 && k >= t.ellipsis_at && k < t.ellipsis_at + mine)
      ids.push_back(kLetters + static_cast<int>(ell - mine + (k - t.ellipsis_at)));
    else
      ids.push_back(t.labels[static_cast<size_t>(k < t.ellipsis_at || t.ellipsis_at < 0 ? k : k - mine)]);
  }
  // repeated labels: the diagonal (strides added, one dim dropped)
  Tensor v = x;
  for (size_t a = 0; a < ids.size(); ++a) {
    for (size_t b = a + 1; b < ids.size();) {
      if (ids[b] != ids[a]) {
        ++b;
        continue;
      }
      if (v.size(static_cast<int64_t>(a)) != v.size(static_cast<int64_t>(b)))
        fail("subscript " + label_name(ids[a]) + " is repeated in operand " + std::to_string(index) +
             " over dimensions of sizes " + std::to_string(v.size(static_cast<int64_t>(a))) + " and " +
             std::to_string(v.size(static_cast<int64_t>(b))) + "; a repeated subscript takes a diagonal of equal sizes.");
      std::vector<int64_t> sizes(v.sizes().begin(), v.sizes().end()), strides(v.strides().begin(), v.strides().end());
      strides[a] += strides[b];
      sizes.erase(sizes.begin() + static_cast<int64_t>(b));
      strides.erase(strides.begin() + static_cast<int64_t>(b));
      ids.erase(ids.begin() + static_cast<int64_t>(b));
      v = v.as_strided(sizes, strides, v.storage_offset());
    }
  }
  return v;
}

// An operand in the middle of the contraction: a tensor and the label of each of its dims.
struct Labelled {
  Tensor t;
  std::vector<int> ids;
};

// Sums the dims of `x` whose labels are not in `keep`.
void sum_unneeded(Labelled& x, const std::vector<bool>& keep) {
  std::vector<int64_t> dims;
  std::vector<int> left;
  for (size_t d = 0; d < x.ids.size(); ++d) {
    if (keep[static_cast<size_t>(x.ids[d])]) left.push_back(x.ids[d]);
    else dims.push_back(static_cast<int64_t>(d));
  }
  if (dims.empty()) return;
  x.t = x.t.sum(dims);
  x.ids = left;
}

int64_t size_of(const Labelled& x, int id) {
  for (size_t d = 0; d < x.ids.size(); ++d)
    if (x.ids[d] == id) return x.t.size(static_cast<int64_t>(d));
  return 1;
}

// a and b contracted over their shared labels not in `keep`; the result's labels: batch (shared,
// kept), then a's own, then b's own.
Labelled contract(const Labelled& a, const Labelled& b, const std::vector<bool>& keep) {
  auto in = [](const Labelled& x, int id) { return std::find(x.ids.begin(), x.ids.end(), id) != x.ids.end(); };
  std::vector<int> batch, left, right, summed;
  for (int id : a.ids) {
    if (in(b, id)) (keep[static_cast<size_t>(id)] ? batch : summed).push_back(id);
    else left.push_back(id);
  }
  for (int id : b.ids)
    if (!in(a, id)) right.push_back(id);
  auto arrange = [&](const Labelled& x, const std::vector<std::vector<int>*>& groups) {
    std::vector<int64_t> perm;
    for (auto* g : groups)
      for (int id : *g) {
        auto it = std::find(x.ids.begin(), x.ids.end(), id);
        if (it != x.ids.end()) perm.push_back(it - x.ids.begin());
      }
    // every label of the groups is x's; a shared one of size 1 broadcasts to the other's size
    std::vector<int64_t> shape;
    for (auto* g : groups)
      for (int id : *g) shape.push_back(std::max(size_of(a, id), size_of(b, id)));
    return x.t.permute(perm).expand(shape);
  };
  auto prod = [&](const std::vector<int>& ids) {
    int64_t p = 1;
    for (int id : ids) p *= std::max(size_of(a, id), size_of(b, id));
    return p;
  };
  const int64_t nb = prod(batch), nl = prod(left), nr = prod(right), ns = prod(summed);
  Tensor ta = arrange(a, {&batch, &left, &summed}).reshape({nb, nl, ns});
  Tensor tb = arrange(b, {&batch, &summed, &right}).reshape({nb, ns, nr});
  std::vector<int64_t> out_shape;
  Labelled r;
  for (const auto* g : {&batch, &left, &right})
    for (int id : *g) {
      out_shape.push_back(std::max(size_of(a, id), size_of(b, id)));
      r.ids.push_back(id);
    }
  r.t = ta.bmm(tb).reshape(out_shape);
  return r;
}

}  // namespace

Tensor einsum(std::string_view equation, const std::vector<Tensor>& tensors) {
  if (tensors.empty()) fail("no operands; pass at least one tensor.");
  const size_t arrow = equation.find("->");
  const std::string_view lhs = equation.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t begin = 0;;) {
    const size_t comma = lhs.find(',', begin);
    terms.push_back(parse_term(equation, begin, comma == std::string_view::npos ? lhs.size() : comma));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  if (terms.size() != tensors.size())
    fail("the equation has subscripts for " + std::to_string(terms.size()) + " operand(s) but " +
         std::to_string(tensors.size()) + " tensor(s) were given; pass one tensor per comma-separated term.");
  check_same_device("einsum", tensors, "operands");
  // ellipsis dims: as many as the most any operand has
  int64_t ell = 0;
  for (size_t i = 0; i < terms.size(); ++i)
    if (terms[i].ellipsis_at >= 0)
      ell = std::max(ell, tensors[i].dim() - static_cast<int64_t>(terms[i].labels.size()));
  std::vector<Labelled> ops(tensors.size());
  std::vector<int> count(static_cast<size_t>(kLetters + ell), 0);  // uses in the terms ("ii" is two)
  std::vector<int64_t> seen_size(count.size(), -1);
  for (size_t i = 0; i < tensors.size(); ++i) {
    ops[i].t = label_operand(tensors[i], terms[i], ell, i, ops[i].ids);
    for (int id : terms[i].labels) ++count[static_cast<size_t>(id)];
    for (int id : ops[i].ids)
      if (id >= kLetters) ++count[static_cast<size_t>(id)];
    for (size_t d = 0; d < ops[i].ids.size(); ++d) {
      const int id = ops[i].ids[d];
      const int64_t n = ops[i].t.size(static_cast<int64_t>(d));
      int64_t& s = seen_size[static_cast<size_t>(id)];
      if (s != -1 && s != n && s != 1 && n != 1)
        fail("subscript " + label_name(id) + " has size " + std::to_string(n) + " in operand " + std::to_string(i) +
             " but size " + std::to_string(s) + " in an earlier one; sizes of one subscript must match (or be 1).");
      if (s == -1 || s == 1) s = n;
    }
  }
  // the output's labels
  std::vector<int> out;
  if (arrow == std::string_view::npos) {
    for (int64_t k = 0; k < ell; ++k)
      if (count[static_cast<size_t>(kLetters + k)] > 0) out.push_back(static_cast<int>(kLetters + k));
    for (int id = 0; id < kLetters; ++id)
      if (count[static_cast<size_t>(id)] == 1) out.push_back(id);
  } else {
    const Term t = parse_term(equation, arrow + 2, equation.size());
    for (size_t k = 0; k < t.labels.size() + 1; ++k) {
      if (static_cast<int>(k) == t.ellipsis_at)
        for (int64_t e = 0; e < ell; ++e) out.push_back(static_cast<int>(kLetters + e));
      if (k < t.labels.size()) {
        const int id = t.labels[k];
        if (std::find(out.begin(), out.end(), id) != out.end())
          fail("output subscript " + label_name(id) + " appears more than once in the output.");
        if (count[static_cast<size_t>(id)] == 0)
          fail("output subscript " + label_name(id) + " does not appear in any operand's subscripts.");
        out.push_back(id);
      }
    }
  }
  // contract left to right; a label is kept while the output or a later operand needs it
  std::vector<bool> in_out(count.size(), false);
  for (int id : out) in_out[static_cast<size_t>(id)] = true;
  auto needed_after = [&](size_t i) {  // labels the output or operands after i use
    std::vector<bool> keep = in_out;
    for (size_t j = i + 1; j < ops.size(); ++j)
      for (int id : ops[j].ids) keep[static_cast<size_t>(id)] = true;
    return keep;
  };
  Labelled acc = ops[0];
  {
    std::vector<bool> keep = needed_after(0);
    sum_unneeded(acc, keep);
  }
  for (size_t i = 1; i < ops.size(); ++i) {
    std::vector<bool> keep = needed_after(i);
    // labels only operand i has and nothing after needs: summed before the product
    std::vector<bool> keep_i = keep;
    for (int id : acc.ids) keep_i[static_cast<size_t>(id)] = true;
    sum_unneeded(ops[i], keep_i);
    acc = contract(acc, ops[i], keep);
  }
  // acc now holds exactly the output's labels: put them in the output's order
  std::vector<int64_t> perm;
  for (int id : out) perm.push_back(std::find(acc.ids.begin(), acc.ids.end(), id) - acc.ids.begin());
  return acc.t.permute(perm);
}

}  // namespace locus
