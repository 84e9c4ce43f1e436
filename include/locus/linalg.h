#pragma once
// torch::linalg: inverse, determinants, solve and norms of (batches of) matrices, as libtorch's
// torch/linalg.h, plus the top-level spellings torch::linalg_inv, torch::linalg_det, ...
//
// inv, det, slogdet and solve factor each matrix by LU with partial pivoting, in float64 on a host
// copy (a device tensor is copied to the host and the result back to its device), and are
// differentiable: d inv = -inv^T g inv^T, d det = g det inv^T, d logabsdet = g inv^T, and solve's
// gA = -solve(A^T, g) X^T, gB = solve(A^T, g). float32 and float64 only. A singular matrix makes
// inv and solve throw (naming the batch element); det gives 0 and slogdet (0, -inf), and det's
// gradient there is the cofactor matrix (from the minors, for n <= 32; PyTorch 1.13 gives zeros;
// it is not differentiable twice). The norms are
// made of differentiable reductions and run on the tensor's device. Matrix norms of ord 2, -2 and
// "nuc" need a singular value decomposition, which locus does not have: they throw.
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "locus/tensor.h"

namespace locus {
namespace linalg {

/// The inverse of each square matrix [..., n, n].
Tensor inv(const Tensor& A);
/// The determinant of each square matrix: [..., n, n] -> [...].
Tensor det(const Tensor& A);
/// (sign, log|det|) of each square matrix; sign 0 and -inf for a singular one.
std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
/// X with A X = B: A [..., n, n], B [..., n, k] or, when B is 1-D or A's shape without the last
/// dim, the vector case [..., n]; batch dims broadcast. left = false solves X A = B (B [..., k, n]).
Tensor solve(const Tensor& A, const Tensor& B, bool left = true);
/// The ord-norm of the vectors along `dim` (all elements when absent): ord inf, -inf, 0 (the
/// count of non-zeros) or any other p ((sum |x|^p)^(1/p)). Floating-point input.
Tensor vector_norm(const Tensor& self, const Scalar& ord = 2, std::optional<IntArrayRef> dim = std::nullopt,
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
/// The norm of the matrices over the two dims `dim`: "fro", 1, -1 (max / min column sum of |a|),
/// inf, -inf (max / min row sum).
Tensor matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
Tensor matrix_norm(const Tensor& self, std::string_view ord = "fro", IntArrayRef dim = {-2, -1},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor matrix_norm(const Tensor& self, const char* ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
/// vector_norm for one dim (or a 1-D input), matrix_norm for two dims (or a 2-D input when ord is
/// given); without ord and dim, the 2-norm of all elements.
Tensor norm(const Tensor& self, const std::optional<Scalar>& ord = std::nullopt,
            std::optional<IntArrayRef> dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor norm(const Tensor& self, std::string_view ord, std::optional<IntArrayRef> dim = std::nullopt,
            bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor norm(const Tensor& self, const char* ord, std::optional<IntArrayRef> dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);

// ---- ops batch (stop 46) ----
/// The chained matrix product of 2-D tensors (the first and last may be 1-D), in the cheapest order.
Tensor multi_dot(const std::vector<Tensor>& tensors);
// ---- end ops batch (stop 46) ----
}  // namespace linalg

Tensor linalg_inv(const Tensor& A);
Tensor linalg_det(const Tensor& A);
std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A);
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true);
Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord = 2, std::optional<IntArrayRef> dim = std::nullopt,
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                          std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_matrix_norm(const Tensor& self, std::string_view ord = "fro", IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_matrix_norm(const Tensor& self, const char* ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                          std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_norm(const Tensor& self, const std::optional<Scalar>& ord = std::nullopt,
                   std::optional<IntArrayRef> dim = std::nullopt, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_norm(const Tensor& self, std::string_view ord, std::optional<IntArrayRef> dim = std::nullopt,
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_norm(const Tensor& self, const char* ord, std::optional<IntArrayRef> dim = std::nullopt,
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);

}  // namespace locus
