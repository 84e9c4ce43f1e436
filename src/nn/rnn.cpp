// LSTM, GRU and RNN (include/locus/nn/modules/rnn.h), composed from differentiable ops: per layer
// and direction one GEMM projects every time step's input, then each step adds the hidden state's
// product and applies the cell's gates. A packed input runs padded, in the packed (longest first)
// order; a 0/1 mask per step holds each sequence's states still past its length, so the reverse
// direction starts at the sequence's own last step and the final states are taken there.
#include "locus/nn/modules/rnn.h"

#include <cmath>
#include <ostream>
#include <string>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/nn/functional.h"
#include "locus/nn/init.h"
#include "ops/autocast.h"
#include "ops/checks.h"

namespace locus::nn {
namespace detail {

// A layer's parameter placement (src/nn/modules.cpp).
TensorOptions placement(const std::optional<Device>& device, const std::optional<ScalarType>& dtype);

namespace {
int64_t gates_of(RecurrentKind k) {
  switch (k) {
    case RecurrentKind::LSTM: return 4;
    case RecurrentKind::GRU: return 3;
    default: return 1;
  }
}
}  // namespace

void RecurrentBase::reset_base(const Shape& s) {
  const char* name = s.kind == RecurrentKind::LSTM ? "LSTM" : s.kind == RecurrentKind::GRU ? "GRU" : "RNN";
  if (s.input_size < 1 || s.hidden_size < 1 || s.num_layers < 1)
    throw Error(std::string(name) + ": input_size, hidden_size and num_layers must be positive, got " +
                std::to_string(s.input_size) + ", " + std::to_string(s.hidden_size) + " and " +
                std::to_string(s.num_layers) + ".");
  if (!(s.dropout >= 0 && s.dropout <= 1))
    throw Error(std::string(name) + ": dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed, got " + std::to_string(s.dropout) + ".");
  if (s.proj_size < 0)
    throw Error("[" + std::string(name) + "] proj_size must be non-negative (0: no projection): got " +
                std::to_string(s.proj_size) + ".");
  if (s.proj_size >= s.hidden_size && s.proj_size > 0)
    throw Error("[" + std::string(name) + "] proj_size must be smaller than hidden_size: got proj_size " +
                std::to_string(s.proj_size) + " and hidden_size " + std::to_string(s.hidden_size) +
                ". Pass a proj_size below hidden_size, or 0 for no projection.");
  shape_ = s;
  layers_.clear();
  const int64_t dirs = s.bidirectional ? 2 : 1, rows = gates_of(s.kind) * s.hidden_size;
  const int64_t out = s.proj_size > 0 ? s.proj_size : s.hidden_size;  // h's size
  const TensorOptions o = placement(s.device, s.dtype);
  const double bound = 1.0 / std::sqrt(static_cast<double>(s.hidden_size));
  for (int64_t layer = 0; layer < s.num_layers; ++layer)
    for (int64_t dir = 0; dir < dirs; ++dir) {
      const std::string suffix = std::to_string(layer) + (dir == 1 ? "_reverse" : "");
      const int64_t in = layer == 0 ? s.input_size : out * dirs;
      std::vector<Tensor> p(5);  // w_ih, w_hh, b_ih, b_hh, w_hr; registered in PyTorch's order
      p[0] = register_parameter("weight_ih_l" + suffix, empty({rows, in}, o));
      p[1] = register_parameter("weight_hh_l" + suffix, empty({rows, out}, o));
      if (s.bias) {
        p[2] = register_parameter("bias_ih_l" + suffix, empty({rows}, o));
        p[3] = register_parameter("bias_hh_l" + suffix, empty({rows}, o));
      }
      if (s.proj_size > 0) p[4] = register_parameter("weight_hr_l" + suffix, empty({s.proj_size, s.hidden_size}, o));
      for (Tensor& t : p)
        if (t.defined()) init::uniform_(t, -bound, bound);
      layers_.push_back(std::move(p));
    }
}

std::vector<Tensor> RecurrentBase::all_weights() const {
  std::vector<Tensor> out;
  for (const auto& p : layers_)
    for (const Tensor& t : p)
      if (t.defined()) out.push_back(t);
  return out;
}

std::tuple<Tensor, Tensor, Tensor> RecurrentBase::run(const Tensor& input, const Tensor& h0, const Tensor& c0,
                                                      const char* name, const Tensor& lengths) {
  namespace ac = ops::autocast;
  // Under autocast, as PyTorch 2.x (its LSTM and RNN return the autocast dtype from float32
  // inputs and accept inputs already in it): everything in the autocast dtype. The weights' casts
  // are differentiable and cached per region, so their gradients arrive in float32.
  if (auto c = ac::policy(ac::Op::Rnn, input.device()); c != ac::Cast::None) {
    ac::ExcludeGuard x;
    std::vector<std::vector<Tensor>> cast(layers_.size());
    for (size_t i = 0; i < layers_.size(); ++i)
      for (const Tensor& t : layers_[i]) cast[i].push_back(ac::cast(t, c));
    return run_layers(cast, ac::cast(input, c), ac::cast(h0, c), ac::cast(c0, c), name, lengths);
  }
  return run_layers(layers_, input, h0, c0, name, lengths);
}

std::tuple<Tensor, Tensor, Tensor> RecurrentBase::run_layers(const std::vector<std::vector<Tensor>>& layers,
                                                             const Tensor& input, const Tensor& h0_in,
                                                             const Tensor& c0_in, const char* name,
                                                             const Tensor& lengths) {
  const Shape& s = shape_;
  const std::string who = name;
  if (input.dim() != 2 && input.dim() != 3)
    throw Error(who + ": Expected input to be 2D (unbatched) or 3D, got " + std::to_string(input.dim()) +
                "D instead (" + ops::shape_str(input.sizes()) + ").");
  const Tensor& w0 = layers[0][0];
  check_input_device(input, "weight_ih_l0", w0);
  if (input.scalar_type() != w0.scalar_type())
    throw Error(who + ": input must have the type " + std::string(dtype_name(w0.scalar_type())) + ", got type " +
                dtype_name(input.scalar_type()) + "; convert it with .to() or the module with ->to().");
  const bool batched = input.dim() == 3;
  // [L, N, in]
  const bool packed = lengths.defined();
  const Tensor x = batched ? (s.batch_first && !packed ? input.transpose(0, 1) : input) : input.unsqueeze(1);
  if (x.size(2) != s.input_size)
    throw Error(who + ": input.size(-1) must be equal to input_size. Expected " + std::to_string(s.input_size) +
                ", got " + std::to_string(x.size(2)) + ".");
  const int64_t dirs = s.bidirectional ? 2 : 1, len = x.size(0), n = x.size(1);
  auto initial = [&](const Tensor& t, const char* which, int64_t hs) -> Tensor {
    std::vector<int64_t> want = {s.num_layers * dirs, n, hs};
    if (!batched) want.erase(want.begin() + 1);
    if (!t.defined()) return zeros({s.num_layers * dirs, n, hs}, x.options());
    check_input_device(t, "weight_ih_l0", w0);
    if (t.sizes() != IntArrayRef(want))
      throw Error(who + ": Expected " + which + " size " + ops::shape_str(want) + ", got " + ops::shape_str(t.sizes()) +
                  ".");
    return batched ? t : t.unsqueeze(1);
  };
  const bool lstm = s.kind == RecurrentKind::LSTM;
  const int64_t h_size = s.proj_size > 0 ? s.proj_size : s.hidden_size;
  const Tensor h0 = initial(h0_in, lstm ? "hidden[0]" : "hidden", h_size),
               c0 = lstm ? initial(c0_in, "hidden[1]", s.hidden_size) : Tensor();
  // packed: [L, N, 1], 1 while step t is within sequence b's length, else 0 (its states held still)
  Tensor running;
  if (packed) running = (arange(len).unsqueeze(1) < lengths.unsqueeze(0)).unsqueeze(2).to(x.device(), x.scalar_type());
  std::vector<Tensor> hn, cn;
  Tensor layer_in = x;
  for (int64_t layer = 0; layer < s.num_layers; ++layer) {
    std::vector<Tensor> outs;
    for (int64_t dir = 0; dir < dirs; ++dir) {
      const std::vector<Tensor>& p = layers[static_cast<size_t>(layer * dirs + dir)];
      Tensor xw = layer_in.matmul(p[0].t());  // every step's input projection: [L, N, gates * hidden]
      if (p[2].defined()) xw = xw + p[2];
      const Tensor w_hh = p[1].t();
      Tensor h = h0.select(0, layer * dirs + dir), c = lstm ? c0.select(0, layer * dirs + dir) : Tensor();
      std::vector<Tensor> steps(static_cast<size_t>(len));
      for (int64_t k = 0; k < len; ++k) {
        const int64_t t = dir == 0 ? k : len - 1 - k;
        const Tensor h_prev = h, c_prev = c;
        Tensor hw = h.matmul(w_hh);
        if (p[3].defined()) hw = hw + p[3];
        const Tensor xt = xw.select(0, t);
        switch (s.kind) {
          case RecurrentKind::LSTM: {  // gates i, f, g, o
            const std::vector<Tensor> g = (xt + hw).chunk(4, 1);
            c = g[1].sigmoid() * c + g[0].sigmoid() * g[2].tanh();
            h = g[3].sigmoid() * c.tanh();
            if (p[4].defined()) h = h.matmul(p[4].t());  // proj_size
            break;
          }
          case RecurrentKind::GRU: {  // gates r, z, n; the reset gate scales the hidden part of n
            const std::vector<Tensor> gx = xt.chunk(3, 1), gh = hw.chunk(3, 1);
            const Tensor r = (gx[0] + gh[0]).sigmoid(), z = (gx[1] + gh[1]).sigmoid();
            const Tensor cand = (gx[2] + r * gh[2]).tanh();
            h = (1 - z) * cand + z * h;
            break;
          }
          case RecurrentKind::RNNTanh: h = (xt + hw).tanh(); break;
          case RecurrentKind::RNNRelu: h = (xt + hw).relu(); break;
        }
        if (packed) {
          const Tensor m = running.select(0, t);
          h = h_prev + m * (h - h_prev);
          if (lstm) c = c_prev + m * (c - c_prev);
        }
        steps[static_cast<size_t>(t)] = h;
      }
      outs.push_back(stack(steps, 0));
      hn.push_back(h);
      if (lstm) cn.push_back(c);
    }
    layer_in = dirs == 2 ? cat(outs, 2) : outs[0];
    if (s.dropout > 0 && is_training() && layer + 1 < s.num_layers)  // between layers, not after the last
      layer_in = functional::dropout(layer_in, functional::DropoutFuncOptions().p(s.dropout).training(true));
  }
  Tensor out = layer_in, h_n = stack(hn, 0), c_n = lstm ? stack(cn, 0) : Tensor();
  if (!batched) {
    out = out.squeeze(1);
    h_n = h_n.squeeze(1);
    if (lstm) c_n = c_n.squeeze(1);
  } else if (s.batch_first && !packed) {
    out = out.transpose(0, 1);
  }
  return {out, h_n, c_n};
}

std::tuple<utils::rnn::PackedSequence, Tensor, Tensor> RecurrentBase::run_packed(
    const utils::rnn::PackedSequence& input, const Tensor& h0, const Tensor& c0, const char* name) {
  namespace rnn = utils::rnn;
  if (!input.defined())
    throw Error("[" + std::string(name) + "] the packed input is empty (default-constructed). Pass a PackedSequence "
                "from pack_padded_sequence or pack_sequence.");
  if (input.data().dim() != 2)
    throw Error("[" + std::string(name) + "] the packed input's data must be 2-D (sum of the lengths, input_size): got "
                "shape " + ops::shape_str(input.data().sizes()) + ".");
  // padded [L, N, in] in the packed (longest first) order, and the lengths in that order
  auto [padded, lengths] = rnn::pad_packed_sequence(rnn::PackedSequence(input.data(), input.batch_sizes()));
  auto reorder = [](const Tensor& states, const Tensor& index) {
    return states.defined() && index.defined() && states.dim() == 3 ? states.index_select(1, index.to(states.device()))
                                                                    : states;
  };
  auto [out, h, c] = run(padded, reorder(h0, input.sorted_indices()), reorder(c0, input.sorted_indices()), name,
                         lengths);
  const rnn::PackedSequence packed = rnn::pack_padded_sequence(out, lengths);
  return {rnn::PackedSequence(packed.data(), packed.batch_sizes(), input.sorted_indices(), input.unsorted_indices()),
          reorder(h, input.unsorted_indices()), reorder(c, input.unsorted_indices())};
}

void RecurrentBase::print(std::ostream& stream, const char* name) const {
  stream << std::boolalpha << "locus::nn::" << name << "(input_size=" << shape_.input_size
         << ", hidden_size=" << shape_.hidden_size << ", num_layers=" << shape_.num_layers << ", bias=" << shape_.bias
         << ", batch_first=" << shape_.batch_first << ", dropout=" << shape_.dropout
         << ", bidirectional=" << shape_.bidirectional;
}

}  // namespace detail

namespace {
template <class O>
detail::RecurrentBase::Shape shape_of(detail::RecurrentKind kind, const O& o) {
  detail::RecurrentBase::Shape s{kind, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(), o.batch_first(),
                                 o.bidirectional(), o.dropout(), o.device(), o.dtype(), 0};
  if constexpr (requires { o.proj_size(); }) s.proj_size = o.proj_size();
  return s;
}
}  // namespace

LSTMImpl::LSTMImpl(const LSTMOptions& options_) : options(options_) { reset(); }
void LSTMImpl::reset() { reset_base(shape_of(detail::RecurrentKind::LSTM, options)); }
void LSTMImpl::pretty_print(std::ostream& stream) const {
  print(stream, "LSTM");
  if (options.proj_size() > 0) stream << ", proj_size=" << options.proj_size();
  stream << ")";
}
std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(const Tensor& input,
                                                                 std::optional<std::tuple<Tensor, Tensor>> hx) {
  auto [out, h, c] = run(input, hx ? std::get<0>(*hx) : Tensor(), hx ? std::get<1>(*hx) : Tensor(), "LSTM");
  return {out, {h, c}};
}

std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> LSTMImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx) {
  auto [out, h, c] =
      run_packed(packed_input, hx ? std::get<0>(*hx) : Tensor(), hx ? std::get<1>(*hx) : Tensor(), "LSTM");
  return {out, {h, c}};
}

GRUImpl::GRUImpl(const GRUOptions& options_) : options(options_) { reset(); }
void GRUImpl::reset() { reset_base(shape_of(detail::RecurrentKind::GRU, options)); }
void GRUImpl::pretty_print(std::ostream& stream) const {
  print(stream, "GRU");
  stream << ")";
}
std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  auto [out, h, c] = run(input, hx, Tensor(), "GRU");
  return {out, h};
}
std::tuple<utils::rnn::PackedSequence, Tensor> GRUImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  auto [out, h, c] = run_packed(packed_input, hx, Tensor(), "GRU");
  return {out, h};
}

RNNImpl::RNNImpl(const RNNOptions& options_) : options(options_) { reset(); }
void RNNImpl::reset() {
  reset_base(shape_of(options.nonlinearity() == RNNNonlinearity::Tanh ? detail::RecurrentKind::RNNTanh
                                                                      : detail::RecurrentKind::RNNRelu,
                      options));
}
void RNNImpl::pretty_print(std::ostream& stream) const {
  // as libtorch's: the nonlinearity is not printed
  print(stream, "RNN");
  stream << ")";
}
std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  auto [out, h, c] = run(input, hx, Tensor(), "RNN");
  return {out, h};
}
std::tuple<utils::rnn::PackedSequence, Tensor> RNNImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  auto [out, h, c] = run_packed(packed_input, hx, Tensor(), "RNN");
  return {out, h};
}

}  // namespace locus::nn
