#pragma once
// nn::utils: gradient clipping, parameters as one vector; packed sequences in utils/rnn.h.
#include <vector>

#include "locus/nn/utils/rnn.h"  // packed sequences: nn::utils::rnn
#include "locus/tensor.h"

namespace locus::nn::utils {

/// Scales the gradients of `parameters` in place so that their total norm (of type norm_type;
/// infinity for the max norm) is at most max_norm. Returns the total norm before clipping.
/// Norms are computed on each gradient's own device.
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
/// Clamps every gradient element to [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);
/// The parameters flattened and concatenated into one 1-D tensor (they must share a device).
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
/// Copies consecutive slices of `vec` into the parameters (the inverse of parameters_to_vector).
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace locus::nn::utils
