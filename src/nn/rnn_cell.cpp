// LSTMCell, GRUCell and RNNCell: one step each, from linear, sigmoid and tanh, so they run and
// train on every device (include/locus/nn/modules/rnn_cell.h).
#include "locus/nn/modules/rnn_cell.h"

#include <cmath>
#include <ostream>
#include <string>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/nn/functional.h"
#include "locus/nn/init.h"
#include "ops/checks.h"

namespace locus::nn {
namespace detail {
TensorOptions placement(const std::optional<Device>& device, const std::optional<ScalarType>& dtype);

void CellBase::reset_cell(const char* kind, int64_t gates, int64_t input_size, int64_t hidden_size, bool bias,
                          const std::optional<Device>& device, const std::optional<ScalarType>& dtype) {
  if (input_size <= 0 || hidden_size <= 0)
    throw Error("[" + std::string(kind) + "] input_size and hidden_size must be positive, got " +
                std::to_string(input_size) + " and " + std::to_string(hidden_size) + ".");
  input_size_ = input_size, hidden_size_ = hidden_size;
  const TensorOptions o = placement(device, dtype);
  weight_ih = register_parameter("weight_ih", empty({gates * hidden_size, input_size}, o));
  weight_hh = register_parameter("weight_hh", empty({gates * hidden_size, hidden_size}, o));
  bias_ih = register_parameter("bias_ih", bias ? empty({gates * hidden_size}, o) : Tensor(), bias);
  bias_hh = register_parameter("bias_hh", bias ? empty({gates * hidden_size}, o) : Tensor(), bias);
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  for (Tensor* t : {&weight_ih, &weight_hh, &bias_ih, &bias_hh})
    if (t->defined()) init::uniform_(*t, -bound, bound);
}

Tensor CellBase::batch_input(const char* name, const Tensor& input, bool& batched) const {
  check_input_device(input, "weight_ih", weight_ih);
  if (input.dim() != 1 && input.dim() != 2)
    throw Error("[" + std::string(name) + "] Expected input to be 1-D or 2-D but received " +
                std::to_string(input.dim()) + "-D tensor of shape " + ops::shape_str(input.sizes()) + ".");
  if (input.size(-1) != input_size_)
    throw Error("[" + std::string(name) + "] input has inconsistent input_size: got " + std::to_string(input.size(-1)) +
                " expected " + std::to_string(input_size_) + ".");
  batched = input.dim() == 2;
  return batched ? input : input.unsqueeze(0);
}

Tensor CellBase::batch_state(const char* name, const char* which, const Tensor& state, const Tensor& input,
                             bool batched) const {
  if (!state.defined()) return zeros({input.size(0), hidden_size_}, input.options());
  check_input_device(state, "weight_hh", weight_hh);
  if (state.dim() != (batched ? 2 : 1))
    throw Error("[" + std::string(name) + "] Expected " + which + " to be " + (batched ? "2-D" : "1-D") + " for a " +
                (batched ? "2-D" : "1-D") + " input, got shape " + ops::shape_str(state.sizes()) + ".");
  Tensor s = batched ? state : state.unsqueeze(0);
  if (s.size(0) != input.size(0))
    throw Error("[" + std::string(name) + "] Input batch size " + std::to_string(input.size(0)) + " doesn't match " +
                which + " batch size " + std::to_string(s.size(0)) + ".");
  if (s.size(1) != hidden_size_)
    throw Error("[" + std::string(name) + "] " + which + " has inconsistent hidden_size: got " +
                std::to_string(s.size(1)) + ", expected " + std::to_string(hidden_size_) + ".");
  return s;
}

void CellBase::print(std::ostream& stream, const char* name, bool bias) const {
  stream << "locus::nn::" << name << "(" << input_size_ << ", " << hidden_size_;
  if (!bias) stream << ", bias=false";
}
}  // namespace detail

namespace {
Tensor unbatch(const Tensor& t, bool batched) { return batched ? t : t.squeeze(0); }
}  // namespace

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options_) : options(options_) { reset(); }
void LSTMCellImpl::reset() {
  reset_cell("LSTMCell", 4, options.input_size(), options.hidden_size(), options.bias(), options.device(),
             options.dtype());
}
void LSTMCellImpl::pretty_print(std::ostream& stream) const {
  print(stream, "LSTMCell", options.bias());
  stream << ")";
}
std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx) {
  bool batched = false;
  const Tensor x = batch_input("LSTMCell", input, batched);
  const Tensor h = batch_state("LSTMCell", "hx[0]", hx ? std::get<0>(*hx) : Tensor(), x, batched);
  const Tensor c = batch_state("LSTMCell", "hx[1]", hx ? std::get<1>(*hx) : Tensor(), x, batched);
  const Tensor gates = functional::linear(x, weight_ih, bias_ih) + functional::linear(h, weight_hh, bias_hh);
  const int64_t n = hidden_size_;
  const Tensor i = gates.narrow(1, 0, n).sigmoid(), f = gates.narrow(1, n, n).sigmoid();
  const Tensor g = gates.narrow(1, 2 * n, n).tanh(), o = gates.narrow(1, 3 * n, n).sigmoid();
  const Tensor c1 = f * c + i * g;
  return {unbatch(o * c1.tanh(), batched), unbatch(c1, batched)};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options_) : options(options_) { reset(); }
void GRUCellImpl::reset() {
  reset_cell("GRUCell", 3, options.input_size(), options.hidden_size(), options.bias(), options.device(),
             options.dtype());
}
void GRUCellImpl::pretty_print(std::ostream& stream) const {
  print(stream, "GRUCell", options.bias());
  stream << ")";
}
Tensor GRUCellImpl::forward(const Tensor& input, const Tensor& hx) {
  bool batched = false;
  const Tensor x = batch_input("GRUCell", input, batched);
  const Tensor h = batch_state("GRUCell", "hx", hx, x, batched);
  const Tensor gi = functional::linear(x, weight_ih, bias_ih), gh = functional::linear(h, weight_hh, bias_hh);
  const int64_t n = hidden_size_;
  const Tensor r = (gi.narrow(1, 0, n) + gh.narrow(1, 0, n)).sigmoid();
  const Tensor z = (gi.narrow(1, n, n) + gh.narrow(1, n, n)).sigmoid();
  const Tensor nw = (gi.narrow(1, 2 * n, n) + r * gh.narrow(1, 2 * n, n)).tanh();
  return unbatch((1 - z) * nw + z * h, batched);
}

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options_) : options(options_) { reset(); }
void RNNCellImpl::reset() {
  reset_cell("RNNCell", 1, options.input_size(), options.hidden_size(), options.bias(), options.device(),
             options.dtype());
}
void RNNCellImpl::pretty_print(std::ostream& stream) const {
  print(stream, "RNNCell", options.bias());
  if (options.nonlinearity() == RNNNonlinearity::ReLU) stream << ", nonlinearity=kReLU";  // libtorch's enum name
  stream << ")";
}
Tensor RNNCellImpl::forward(const Tensor& input, const Tensor& hx) {
  bool batched = false;
  const Tensor x = batch_input("RNNCell", input, batched);
  const Tensor h = batch_state("RNNCell", "hx", hx, x, batched);
  const Tensor pre = functional::linear(x, weight_ih, bias_ih) + functional::linear(h, weight_hh, bias_hh);
  return unbatch(options.nonlinearity() == RNNNonlinearity::Tanh ? pre.tanh() : pre.relu(), batched);
}

}  // namespace locus::nn
