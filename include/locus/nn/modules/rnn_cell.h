#pragma once
// One time step of a recurrent layer: LSTMCell, GRUCell and RNNCell, as libtorch's torch::nn ones
// (parameters weight_ih [gates * hidden, input], weight_hh [gates * hidden, hidden], bias_ih,
// bias_hh, uniform in +-1/sqrt(hidden_size); LSTM's gates input, forget, cell, output; GRU's
// reset, update, new). Inputs [N, input_size] or unbatched [input_size]; states default to zeros.
#include <optional>
#include <tuple>

#include "locus/nn/cloneable.h"
#include "locus/nn/module.h"
#include "locus/nn/modules/rnn.h"  // RNNNonlinearity, LOCUS_PLACEMENT_ARGS

namespace locus::nn {

#define LOCUS_CELL_OPTIONS(Name)                                                                          \
  Name(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {} \
  LOCUS_ARG(int64_t, input_size);                                                                       \
  LOCUS_ARG(int64_t, hidden_size);                                                                      \
  LOCUS_ARG(bool, bias) = true;                                                                         \
  LOCUS_PLACEMENT_ARGS

struct LSTMCellOptions {
  LOCUS_CELL_OPTIONS(LSTMCellOptions);
};
struct GRUCellOptions {
  LOCUS_CELL_OPTIONS(GRUCellOptions);
};
struct RNNCellOptions {
  LOCUS_CELL_OPTIONS(RNNCellOptions);
  LOCUS_ARG(RNNNonlinearity, nonlinearity) = RNNNonlinearity::Tanh;
};
#undef LOCUS_CELL_OPTIONS

namespace detail {
/// The parameters and checks the three cells share.
class CellBase : public Module {
 public:
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;

 protected:
  void reset_cell(const char* kind, int64_t gates, int64_t input_size, int64_t hidden_size, bool bias,
                  const std::optional<Device>& device, const std::optional<ScalarType>& dtype);
  /// input as [N, input_size] (batched tells whether it came so) and a state as [N, hidden_size]
  /// (zeros when undefined), checked by shape and device.
  Tensor batch_input(const char* name, const Tensor& input, bool& batched) const;
  Tensor batch_state(const char* name, const char* which, const Tensor& state, const Tensor& input, bool batched) const;
  void print(std::ostream& stream, const char* name, bool bias) const;
  int64_t input_size_ = 0, hidden_size_ = 0;
};
}  // namespace detail

/// forward returns (h', c').
class LSTMCellImpl : public Cloneable<LSTMCellImpl, detail::CellBase> {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size) : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  std::tuple<Tensor, Tensor> forward(const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx = std::nullopt);
  LSTMCellOptions options;
};
LOCUS_MODULE(LSTMCell);

/// forward returns h'.
class GRUCellImpl : public Cloneable<GRUCellImpl, detail::CellBase> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size) : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& hx = {});
  GRUCellOptions options;
};
LOCUS_MODULE(GRUCell);

/// forward returns h' = tanh (or relu) of x W_ih^T + b_ih + h W_hh^T + b_hh.
class RNNCellImpl : public Cloneable<RNNCellImpl, detail::CellBase> {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size) : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& hx = {});
  RNNCellOptions options;
};
LOCUS_MODULE(RNNCell);

}  // namespace locus::nn
