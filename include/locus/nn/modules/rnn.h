#pragma once
// Recurrent layers: LSTM, GRU and RNN (tanh or relu), as libtorch's torch::nn::LSTM / GRU / RNN:
// the same options, parameter names (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, and
// "_reverse" for the second direction), initialisation (uniform in +-1/sqrt(hidden_size)),
// gate order (LSTM: input, forget, cell, output; GRU: reset, update, new) and return values;
// LSTM's proj_size as PyTorch's (weight_hr_l0 after the biases).
// Each layer and direction projects the whole sequence's inputs in one GEMM, then steps through
// time with one [N, hidden] x [hidden, gates] product per step, on the parameters' device;
// differentiable through every step. Packed sequences (forward_with_packed_input) run padded, each
// sequence's state held still past its length, so the final states are those at its own last step.
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "locus/enum.h"  // RNNNonlinearity, kTanh, kReLU
#include "locus/nn/cloneable.h"
#include "locus/nn/module.h"
#include "locus/nn/modules/linear.h"  // LOCUS_PLACEMENT_ARGS
#include "locus/nn/utils/rnn.h"

namespace locus::nn {

namespace detail {
enum class RecurrentKind { LSTM, GRU, RNNTanh, RNNRelu };
}  // namespace detail

/// The options every recurrent layer shares (libtorch's RNNOptionsBase).
#define LOCUS_RECURRENT_OPTIONS(Name)                                                                     \
  Name(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {} \
  LOCUS_ARG(int64_t, input_size);                                                                       \
  LOCUS_ARG(int64_t, hidden_size);                                                                      \
  LOCUS_ARG(int64_t, num_layers) = 1;                                                                   \
  LOCUS_ARG(bool, bias) = true;                                                                         \
  LOCUS_ARG(bool, batch_first) = false;                                                                 \
  LOCUS_ARG(double, dropout) = 0.0;                                                                     \
  LOCUS_ARG(bool, bidirectional) = false;                                                               \
  LOCUS_PLACEMENT_ARGS

struct LSTMOptions {
  LOCUS_RECURRENT_OPTIONS(LSTMOptions);
  /// Above 0 (and below hidden_size): each step's h is projected to proj_size by weight_hr_l{k}
  /// [proj_size, hidden_size]; h_0/h_n and the output hold proj_size features (c keeps hidden_size).
  LOCUS_ARG(int64_t, proj_size) = 0;
};
struct GRUOptions {
  LOCUS_RECURRENT_OPTIONS(GRUOptions);
};
struct RNNOptions {
  LOCUS_RECURRENT_OPTIONS(RNNOptions);
  LOCUS_ARG(RNNNonlinearity, nonlinearity) = RNNNonlinearity::Tanh;
};
#undef LOCUS_RECURRENT_OPTIONS

namespace detail {
/// The parts LSTM, GRU and RNN share: parameters, checks and the loop over layers and directions.
class RecurrentBase : public Module {
 public:
  /// Every weight and bias, layer by layer and direction by direction, as PyTorch's all_weights.
  std::vector<Tensor> all_weights() const;
  /// A no-op, as on libtorch's CPU (its cuDNN weights are flattened; these never need it).
  void flatten_parameters() {}

  struct Shape {
    RecurrentKind kind;
    int64_t input_size, hidden_size, num_layers;
    bool bias, batch_first, bidirectional;
    double dropout;
    std::optional<Device> device;
    std::optional<ScalarType> dtype;
    int64_t proj_size = 0;  // LSTM only; 0: none
  };

 protected:
  void reset_base(const Shape& shape);
  /// Runs the layers over input ([L, N, in], [N, L, in] batch first, or unbatched [L, in]) from
  /// the states h0 (and c0 for LSTM; undefined: zeros). Returns the output and the final h (and c).
  /// Under autocast the input, the states and the weights run in the autocast dtype (PyTorch 2.x).
  /// lengths (cpu int64, one per sequence): input is [L, N, in] whatever batch_first, and sequence
  /// b's states stop changing after lengths[b] steps.
  std::tuple<Tensor, Tensor, Tensor> run(const Tensor& input, const Tensor& h0, const Tensor& c0, const char* name,
                                         const Tensor& lengths = {});
  /// run() over a packed input; h0 and c0 [layers * directions, N, *] in the batch's original order.
  std::tuple<utils::rnn::PackedSequence, Tensor, Tensor> run_packed(const utils::rnn::PackedSequence& input,
                                                                    const Tensor& h0, const Tensor& c0,
                                                                    const char* name);
  void print(std::ostream& stream, const char* name) const;

  Shape shape_{};
  std::vector<std::vector<Tensor>> layers_;  // [layer * directions + direction] = {w_ih, w_hh, b_ih, b_hh, w_hr}

 private:
  std::tuple<Tensor, Tensor, Tensor> run_layers(const std::vector<std::vector<Tensor>>& layers, const Tensor& input,
                                                const Tensor& h0, const Tensor& c0, const char* name,
                                                const Tensor& lengths);
};
}  // namespace detail

/// Long short-term memory. forward returns (output, (h_n, c_n)).
class LSTMImpl : public Cloneable<LSTMImpl, detail::RecurrentBase> {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size) : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(const Tensor& input,
                                                         std::optional<std::tuple<Tensor, Tensor>> hx = std::nullopt);
  /// The packed sequences through the layers (batch_first does not apply); returns the packed output
  /// and (h_n, c_n), each sequence's states at its own last step.
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx = std::nullopt);
  LSTMOptions options;
};
LOCUS_MODULE(LSTM);

/// Gated recurrent unit. forward returns (output, h_n).
class GRUImpl : public Cloneable<GRUImpl, detail::RecurrentBase> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  /// As LSTM's: returns the packed output and h_n.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});
  GRUOptions options;
};
LOCUS_MODULE(GRU);

/// Elman RNN (tanh, or relu). forward returns (output, h_n).
class RNNImpl : public Cloneable<RNNImpl, detail::RecurrentBase> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  /// As LSTM's: returns the packed output and h_n.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});
  RNNOptions options;
};
LOCUS_MODULE(RNN);

}  // namespace locus::nn
