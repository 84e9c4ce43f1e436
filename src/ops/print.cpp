// Printing like PyTorch: tensor([[1., 2.]], device='opencl:0', dtype=float16); or, in the
// libtorch style (locus/printing.h), as libtorch's operator<< and at::print.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/tensor_impl.h"
#include "locus/printing.h"
#include "locus/tensor.h"

namespace locus {
namespace {

struct Formatter {
  bool floating = false, int_mode = false, sci = false;
  int width = 1;
  int precision = 4;

  std::string fmt(double v) const {
    char buf[64];
    if (!floating) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    } else if (std::isnan(v)) {
      std::snprintf(buf, sizeof buf, "nan");
    } else if (std::isinf(v)) {
      std::snprintf(buf, sizeof buf, v > 0 ? "inf" : "-inf");
    } else if (sci) {
      std::snprintf(buf, sizeof buf, "%.*e", precision, v);
    } else if (int_mode) {
      std::snprintf(buf, sizeof buf, "%.0f.", v);
    } else {
      std::snprintf(buf, sizeof buf, "%.*f", precision, v);
    }
    return buf;
  }
};

// PyTorch's _Formatter: integer-valued floats print as "1.", large ranges in scientific form.
Formatter make_formatter(const std::vector<double>& vals, ScalarType t) {
  Formatter f;
  f.floating = is_floating_point(t);
  if (f.floating) {
    std::vector<double> finite;
    for (double v : vals)
      if (std::isfinite(v)) finite.push_back(v);
    f.int_mode = true;
    for (double v : finite)
      if (v != std::ceil(v)) { f.int_mode = false; break; }
    if (!finite.empty()) {
      double mx = 0, mn = INFINITY;
      for (double v : finite) {
        mx = std::max(mx, std::fabs(v));
        if (v != 0) mn = std::min(mn, std::fabs(v));
      }
      if (mn == INFINITY) mn = 0;
      if (f.int_mode) {
        if (mx > 1e8) f.sci = true;
      } else if (mx / std::max(mn, 1e-300) > 1000.0 || mx > 1e8 || (mn != 0 && mn < 1e-4)) {
        f.sci = true;
      }
    }
  }
  for (double v : vals)
    f.width = std::max<int>(f.width, t == kBool ? (v != 0 ? 4 : 5) : static_cast<int>(f.fmt(v).size()));
  return f;
}

// PyTorch's line width (torch.set_printoptions(linewidth=80)).
constexpr int kLineWidth = 80;

void print_rec(std::ostream& os, const std::vector<double>& vals, IntArrayRef sizes, size_t dim, size_t& pos,
               const Formatter& f, int indent, bool summarize, ScalarType t) {
  auto item = [&](double v) {
    std::string s = t == kBool ? (v != 0 ? "True" : "False") : f.fmt(v);
    return std::string(static_cast<size_t>(std::max<int>(0, f.width - static_cast<int>(s.size()))), ' ') + s;
  };
  int64_t n = sizes[dim];
  bool cut = summarize && n > 6;
  if (dim + 1 == sizes.size()) {
    // a row: as many elements per line as fit in the line width after the indent (" ..." counts
    // as one), continued lines indented under the first element, as PyTorch's _vector_str
    std::vector<std::string> data;
    for (int64_t i = 0; i < n; ++i) {
      if (cut && i == 3) {
        data.push_back(" ...");
        i = n - 3;
      }
      data.push_back(item(vals[pos++]));
    }
    const size_t per_line = static_cast<size_t>(std::max(1, (kLineWidth - indent) / (f.width + 2)));
    os << "[";
    for (size_t i = 0; i < data.size(); ++i) {
      if (i > 0) os << (i % per_line == 0 ? ",\n" + std::string(static_cast<size_t>(indent + 1), ' ') : ", ");
      os << data[i];
    }
    os << "]";
    return;
  }
  os << "[";
  for (int64_t i = 0; i < n; ++i) {
    if (cut && i == 3) {
      os << "...,\n" + std::string(static_cast<size_t>(indent + 1), ' ');
      i = n - 3;
    }
    print_rec(os, vals, sizes, dim + 1, pos, f, indent + 1, summarize, t);
    if (i + 1 < n) os << "," << std::string(sizes.size() - dim - 1, '\n') << std::string(static_cast<size_t>(indent + 1), ' ');
  }
  os << "]";
}

void collect_fast(const Tensor& c, std::vector<double>& out) {
  Tensor d = c.to(kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  out.assign(p, p + d.numel());
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (print_style() == PrintStyle::kLibtorch) return print(os, t, 80);
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  Tensor c = t.device().is_cpu() ? t : t.cpu();
  bool summarize = c.numel() > 1000;
  std::vector<double> vals;
  if (summarize) {
    // gather row-by-row through select (dims collapse as we go)
    std::function<void(const Tensor&)> rec = [&](const Tensor& x) {
      if (x.dim() == 0) { vals.push_back(x.to(kDouble).item().toDouble()); return; }
      int64_t n = x.size(0);
      for (int64_t i = 0; i < n; ++i) {
        if (n > 6 && i == 3) i = n - 3;
        rec(x.select(0, i));
      }
    };
    rec(c);
  } else {
    collect_fast(c, vals);
  }
  Formatter f = make_formatter(vals, t.scalar_type());
  std::ostringstream body;
  body << "tensor(";
  if (t.dim() == 0) {
    body << (t.scalar_type() == kBool ? (vals[0] != 0 ? "True" : "False") : f.fmt(vals[0]));
  } else if (t.numel() == 0) {
    body << "[]";
  } else {
    size_t pos = 0;
    print_rec(body, vals, t.sizes(), 0, pos, f, 7, summarize, t.scalar_type());
  }
  // suffixes in PyTorch's order (device, size, dtype, requires_grad), each moved to a line of its
  // own when it would take the last line past the line width (PyTorch's _add_suffixes)
  std::vector<std::string> suffix;
  if (!t.device().is_cpu()) suffix.push_back("device='" + t.device().str() + "'");
  if (t.numel() == 0 && t.dim() != 1) {
    std::string s = "size=(";
    for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
    suffix.push_back(s + (t.dim() == 1 ? ",)" : ")"));
  }
  ScalarType dt = t.scalar_type();
  bool implied = dt == default_dtype() || dt == kLong || dt == kBool;
  if (!implied || (t.numel() == 0 && dt != default_dtype())) suffix.push_back(std::string("dtype=") + dtype_name(dt));
  if (t.requires_grad()) suffix.push_back("requires_grad=True");
  std::string out = body.str();
  const size_t nl = out.rfind('\n');
  int64_t last_line = static_cast<int64_t>(nl == std::string::npos ? out.size() + 2 : out.size() - nl + 1);
  constexpr int kIndent = 7;  // "tensor("
  for (const auto& s : suffix) {
    const int64_t len = static_cast<int64_t>(s.size());
    if (last_line + len + 2 > kLineWidth) {
      out += ",\n" + std::string(kIndent, ' ') + s;
      last_line = kIndent + len;
    } else {
      out += ", " + s;
      last_line += len + 2;
    }
  }
  return os << out << ")";
}

}  // namespace locus

namespace locus {
void Tensor::print() const {
  if (defined()) std::cerr << "[" << toString() << " " << sizes() << "]" << std::endl;
  else std::cerr << "[UndefinedTensor]" << std::endl;
}

std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}
}  // namespace locus

// ---- libtorch's format (at::print) ----
namespace locus {
namespace {

std::atomic<PrintStyle> g_print_style{PrintStyle::kPython};

// Restores the stream's formatting (flags, precision, width, fill) on exit.
struct StreamFormat {
  explicit StreamFormat(std::ostream& os) : os(os), saved(nullptr) { saved.copyfmt(os); }
  ~StreamFormat() { os.copyfmt(saved); }
  std::ostream& os;
  std::ios saved;
};

std::ios_base& default_float(std::ios_base& s) {
  s.unsetf(std::ios_base::floatfield);
  return s;
}

struct LtFormat {
  double scale = 1;
  int64_t width = 0;
};

// libtorch's choice of notation for a block of values, which also sets the stream's float format:
// integers (all finite values whole) in the default notation, or scientific from ten digits;
// otherwise scientific when the magnitudes span more than four decades, else fixed with four
// decimals, divided by a common power of ten ("0.001 *") when the largest is below 0.1 or has more
// than five digits. (As libtorch, the largest magnitude is only taken from values whose signed
// value exceeds the running one, so a large negative value alone does not set it.)
LtFormat lt_format(std::ostream& os, const double* v, int64_t n) {
  LtFormat f;
  if (n == 0) return f;
  bool whole = true;
  for (int64_t i = 0; i < n; ++i)
    if (std::isfinite(v[i]) && v[i] != std::ceil(v[i])) {
      whole = false;
      break;
    }
  int64_t first = 0;
  while (first < n && !std::isfinite(v[first])) ++first;
  double lo = 1, hi = 1;
  if (first < n) {
    lo = hi = std::fabs(v[first]);
    for (int64_t i = first; i < n; ++i) {
      const double z = std::fabs(v[i]);
      if (!std::isfinite(z)) continue;
      if (z < lo) lo = z;
      if (v[i] > hi) hi = z;
    }
    lo = lo != 0 ? std::floor(std::log10(lo)) + 1 : 1;
    hi = hi != 0 ? std::floor(std::log10(hi)) + 1 : 1;
  }
  if (whole) {
    if (hi > 9) {
      f.width = 11;
      os << std::scientific << std::setprecision(4);
    } else {
      f.width = static_cast<int64_t>(hi) + 1;
      os << default_float;
    }
  } else if (hi - lo > 4) {
    f.width = std::fabs(hi) > 99 || std::fabs(lo) > 99 ? 12 : 11;
    os << std::scientific << std::setprecision(4);
  } else {
    if (hi > 5 || hi < 0) {
      f.width = 7;
      f.scale = std::pow(10, hi - 1);
    } else {
      f.width = hi == 0 ? 7 : static_cast<int64_t>(hi) + 6;
    }
    os << std::fixed << std::setprecision(4);
  }
  return f;
}

void lt_scale(std::ostream& os, double scale) {
  StreamFormat keep(os);
  os << default_float << scale << " *" << std::endl;
}

void lt_indent(std::ostream& os, int64_t n) {
  for (int64_t i = 0; i < n; ++i) os << ' ';
}

// One matrix (rows x cols doubles, row-major): column blocks that fit in `linesize` after
// `indent`, each headed "Columns a to b" when the matrix does not fit whole.
void lt_matrix(std::ostream& os, const double* v, int64_t rows, int64_t cols, int64_t linesize, int64_t indent) {
  const LtFormat f = lt_format(os, v, rows * cols);
  lt_indent(os, indent);
  const int64_t per_line = std::max<int64_t>(1, (linesize - indent) / (f.width + 1));
  for (int64_t first = 0; first < cols;) {
    const int64_t last = std::min(cols, first + per_line) - 1;
    if (per_line < cols) {
      if (first != 0) os << std::endl;
      os << "Columns " << first + 1 << " to " << last + 1;
      lt_indent(os, indent);
    }
    if (f.scale != 1) {
      lt_scale(os, f.scale);
      lt_indent(os, indent);
    }
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = first; c <= last; ++c) {
        os << std::setw(static_cast<int>(f.width)) << v[r * cols + c] / f.scale;
        if (c != last) {
          os << ' ';
          continue;
        }
        os << std::endl;
        if (r + 1 != rows) lt_indent(os, f.scale != 1 ? indent + 1 : indent);
      }
    first = last + 1;
  }
}

}  // namespace

void set_print_style(PrintStyle style) { g_print_style.store(style, std::memory_order_relaxed); }

// (here rather than in dtype.cpp, which the checkpoint parsers' fuzz build links without printing)
std::ostream& operator<<(std::ostream& os, TypeMeta t) {
  if (print_style() == PrintStyle::kLibtorch) return os << t.name();
  return os << t.toScalarType();
}
PrintStyle print_style() { return g_print_style.load(std::memory_order_relaxed); }

std::ostream& print(std::ostream& os, const Tensor& t, int64_t linesize) {
  StreamFormat keep(os);
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  const Tensor d = t.detach().to(Device(kCPU)).to(kDouble).contiguous();
  const double* v = d.data_ptr<double>();
  const IntArrayRef sizes = d.sizes();
  const int64_t dim = d.dim();
  if (dim == 0) {
    os << default_float << v[0] << std::endl;
  } else if (dim == 1) {
    if (d.numel() > 0) {
      const LtFormat f = lt_format(os, v, d.numel());
      if (f.scale != 1) lt_scale(os, f.scale);
      for (int64_t i = 0; i < d.numel(); ++i) os << std::setw(static_cast<int>(f.width)) << v[i] / f.scale << std::endl;
    }
  } else if (dim == 2) {
    if (d.numel() > 0) lt_matrix(os, v, sizes[0], sizes[1], linesize, 0);
  } else if (d.numel() > 0) {
    // every matrix of the last two dimensions, the leading indices counted with the first one
    // varying fastest (libtorch's order), each headed "(i,j,.,.) = "
    const int64_t rows = sizes[dim - 2], cols = sizes[dim - 1], lead = dim - 2;
    std::vector<int64_t> idx(static_cast<size_t>(lead), 0);
    const int64_t count = d.numel() / (rows * cols);
    for (int64_t s = 0; s < count; ++s) {
      if (s > 0) {
        os << std::endl;
        for (int64_t i = 0; i < lead; ++i) {
          if (++idx[static_cast<size_t>(i)] < sizes[i]) break;
          idx[static_cast<size_t>(i)] = 0;
        }
      }
      int64_t offset = 0;
      os << "(";
      for (int64_t i = 0; i < lead; ++i) {
        offset = offset * sizes[i] + idx[static_cast<size_t>(i)];
        os << idx[static_cast<size_t>(i)] + 1 << ",";
      }
      os << ".,.) = " << std::endl;
      lt_matrix(os, v + offset * rows * cols, rows, cols, linesize, 1);
    }
  }
  os << "[ " << t.toString() << "{";
  for (int64_t i = 0; i < dim; ++i) os << (i ? "," : "") << sizes[i];
  return os << "} ]";
}

void print(const Tensor& t, int64_t linesize) { print(std::cout, t, linesize); }

}  // namespace locus
