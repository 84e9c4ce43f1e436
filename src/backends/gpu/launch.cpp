// Launch plumbing shared by every GPU runtime: scalars as the kernels take them, the argument
// pack, 1-D geometry, and the tiled GEMM fallback (gemm.cl).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include "backends/gpu/gpu_backend.h"
#include "locus/error.h"

namespace locus::gpu {

Scalar make_scalar(double v, ScalarType dtype) {
  Scalar s;
  std::memcpy(&s.dbits, &v, 8);
  if (dtype == kBool) s.l = v != 0;
  else if (std::isnan(v)) s.l = 0;
  else if (v >= 9.2233720368547758e18) s.l = INT64_MAX;
  else if (v <= -9.2233720368547758e18) s.l = INT64_MIN;
  else s.l = static_cast<int64_t>(v);
  s.f = static_cast<float>(v);
  return s;
}

void Args::push(const void* v, size_t size, size_t align) {
  size_t at = (used_ + align - 1) / align * align;
  if (at + size > sizeof storage_ || n_ == static_cast<int>(std::size(ptrs_)))
    throw BackendError("[gpu] too many kernel arguments (at most 32, 2048 bytes).");
  std::memcpy(storage_ + at, v, size);
  ptrs_[n_] = storage_ + at;
  sizes_[n_++] = static_cast<uint32_t>(size);
  used_ = at + size;
}

Args& Args::buf(Buffer b) {
  static_assert(sizeof(void*) == 8, "kernels take 64-bit buffer handles");
  int64_t off = static_cast<int64_t>(b.offset);
  push(&b.base, sizeof b.base, alignof(void*));
  push(&off, sizeof off, alignof(int64_t));
  return *this;
}

namespace {
std::atomic<uint64_t> g_kernels{0}, g_gemms{0};
}  // namespace

LaunchCounts launch_counts() noexcept {
  return {g_kernels.load(std::memory_order_relaxed), g_gemms.load(std::memory_order_relaxed)};
}

void GpuBackend::gemm(int index, StreamHandle s, const Gemm& g) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return;
  if (blas_gemm(index, s, g)) g_gemms.fetch_add(1, std::memory_order_relaxed);
  else gemm_tiled(index, s, g);
}

void Launch::run(const Grid& g) {
  g_kernels.fetch_add(1, std::memory_order_relaxed);
  b_.launch(index_, s_, k_, g, args_);
}

void Launch::run1d(int64_t n) {
  if (n <= 0) return;
  Grid g;
  g.local[0] = b_.caps(index_).local;
  // One item per element up to 2^30 items, grid-stride beyond: CPU drivers (PoCL) run a
  // work-group's items in order, so consecutive items must touch consecutive elements.
  int64_t items = std::min<int64_t>(n, int64_t{1} << 30);
  g.groups[0] = (static_cast<uint64_t>(items) + g.local[0] - 1) / g.local[0];
  run(g);
}

void Launch::run_groups(int64_t groups, uint32_t local) {
  if (groups <= 0) return;
  Grid g;
  g.groups[0] = static_cast<uint64_t>(groups);
  g.local[0] = local;
  run(g);
}

std::string GpuBackend::prefix() const { return std::string("[") + device_type_name(type()) + "]"; }

namespace {
struct GemmArgs {  // gemm.cl
  int64_t m, n, k, lda, ldb, ldc, sa, sb, sc;
  int32_t ta, tb;
};
}  // namespace

void GpuBackend::gemm_tiled(int index, StreamHandle s, const Gemm& g) {
  constexpr int64_t tile = 16;
  const int64_t rows = (g.m + tile - 1) / tile, limit = caps(index).max_grid_yz;
  if (limit > 0 && rows > limit)
    throw BackendError(prefix() + " gemm: " + std::to_string(g.m) + " rows of " + dtype_name(g.dtype) +
                       " exceed the tiled kernel's grid (at most " + std::to_string(limit * tile) +
                       "). Split the product or use a floating dtype (cuBLAS).");
  GemmArgs a{g.m, g.n, g.k, g.lda, g.ldb, g.ldc, g.stride_a, g.stride_b, g.stride_c, g.trans_a, g.trans_b};
  const size_t es = element_size(g.dtype);
  const int64_t chunk = limit > 0 ? limit : g.batch;  // the grid's z extent may be limited
  for (int64_t b0 = 0; b0 < g.batch; b0 += chunk) {
    auto at = [&](Buffer buf, int64_t stride) {
      return Buffer{buf.base, buf.offset + static_cast<size_t>(b0 * stride) * es};
    };
    Grid grid;
    grid.dims = 3;
    grid.groups[0] = static_cast<uint64_t>((g.n + tile - 1) / tile);
    grid.groups[1] = static_cast<uint64_t>(rows);
    grid.groups[2] = static_cast<uint64_t>(std::min(chunk, g.batch - b0));
    grid.local[0] = grid.local[1] = tile;
    Launch(*this, index, s, kernel(index, "gemm.cl", g.dtype, "gemm_tiled", ""))
        .buf(at(g.a, g.stride_a))
        .buf(at(g.b, g.stride_b))
        .buf(at(g.c, g.stride_c))
        .arg(a)
        .arg(make_scalar(g.alpha, g.dtype))
        .arg(make_scalar(g.beta, g.dtype))
        .arg(int32_t{g.beta == 0})
        .run(grid);
  }
}

void GpuBackend::check_elapsed(bool both_timing, bool both_recorded) {
  if (!both_timing)
    throw BackendError("[elapsed_time] both events must be created with timing enabled. Create them with "
                       "Event(/*enable_timing=*/true).");
  if (!both_recorded)
    throw BackendError("[elapsed_time] both events must be recorded first. Call record() on each.");
}

bool GpuBackend::blas_layout(const Gemm& g, int64_t max_dim) {
  const auto es = static_cast<int64_t>(element_size(g.dtype));
  if (g.a.offset % es || g.b.offset % es || g.c.offset % es) return false;
  int64_t arow = g.trans_a ? g.m : g.k, brow = g.trans_b ? g.k : g.n;
  if (g.lda < std::max<int64_t>(1, arow) || g.ldb < std::max<int64_t>(1, brow) || g.ldc < std::max<int64_t>(1, g.n))
    return false;
  for (int64_t v : {g.m, g.n, g.k, g.lda, g.ldb, g.ldc, g.batch})
    if (v > max_dim) return false;
  return g.batch == 1 || (g.stride_a >= 0 && g.stride_b >= 0 && g.stride_c > 0);
}

std::string GpuBackend::gemm_label(const Gemm& g) {
  return std::string(dtype_name(g.dtype)) + ", m=" + std::to_string(g.m) + " n=" + std::to_string(g.n) +
         " k=" + std::to_string(g.k) + ", batch " + std::to_string(g.batch);
}

}  // namespace locus::gpu
