// Custom autograd functions (include/locus/custom_function.h) and IValue (include/locus/ivalue.h).
#include "locus/custom_function.h"

#include <cxxabi.h>

#include <cstdlib>

#include "autograd/meta.h"
#include "autograd/record.h"
#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "core/checks.h"

namespace locus {

const char* IValue::tagKind() const {
  static const char* const kinds[] = {"None", "Bool", "Int", "Double", "String", "Tensor", "IntList", "TensorList"};
  return kinds[v_.index()];
}

void IValue::throw_wrong_kind(const char* want) const {
  throw Error(std::string("[IValue] Expected ") + want + " but got " + tagKind() + ".");
}

namespace autograd {

struct AutogradContext::Internal {
  static variable_list& saved(AutogradContext& c) { return c.saved_; }
  static bool& released(AutogradContext& c) { return c.released_; }
  static bool materialize(const AutogradContext& c) { return c.materialize_grads_; }
  static const std::vector<const void*>& dirty(const AutogradContext& c) { return c.dirty_; }
  static const std::vector<const void*>& non_differentiable(const AutogradContext& c) { return c.non_differentiable_; }
  static std::vector<bool>& needs(AutogradContext& c) { return c.needs_input_grad_; }
  static std::string& name(AutogradContext& c) { return c.name_; }
};
using In = AutogradContext::Internal;

void AutogradContext::save_for_backward(variable_list to_save) { saved_ = std::move(to_save); }

variable_list AutogradContext::get_saved_variables() const {
  if (released_)
    throw Error("[" + name_ + "] Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Specify retain_graph=true if you need to backward "
                "through the graph a second time.");
  return saved_;
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  for (const Tensor& t : inputs) dirty_.push_back(t.unsafeGetTensorImpl());
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.push_back(t.unsafeGetTensorImpl());
}

namespace detail {
namespace {

bool listed(const std::vector<const void*>& v, const Tensor& t) {
  for (const void* p : v)
    if (p == t.unsafeGetTensorImpl()) return true;
  return false;
}

// The node of one apply(): calls T::backward through `backward_` and checks what it returns.
struct CustomNode : Node, std::enable_shared_from_this<CustomNode> {
  std::string name_;
  std::shared_ptr<AutogradContext> ctx_;
  CustomBackward backward_ = nullptr;
  // Saved outputs (ctx->save_for_backward of a result): detached aliases (no cycle), linked back
  // to this node as output `second` while backward builds a graph (create_graph), as PyTorch's
  // SavedVariable restores a saved output's grad_fn: second derivatives through them are right.
  std::vector<std::pair<std::weak_ptr<TensorImpl>, uint32_t>> saved_outputs_;
  std::vector<bool> is_tensor_;  // per forward argument
  struct Shape {
    bool defined = false;
    std::vector<int64_t> sizes;
    ScalarType dtype = kFloat;
    Device device{kCPU};
  };
  std::vector<Shape> outputs_;  // to materialise missing gradients
  std::vector<Shape> inputs_;   // per tensor argument, to check the gradients

  void set_edges(std::vector<Edge> e) { next_edges_ = std::move(e); }
  std::string name() const override { return name_; }

  variable_list apply(variable_list&& grads) override {
    grads.resize(outputs_.size());
    for (size_t i = 0; i < grads.size(); ++i) {
      if (grads[i].defined() || !outputs_[i].defined || !In::materialize(*ctx_)) continue;
      grads[i] = zeros(outputs_[i].sizes, TensorOptions().dtype(outputs_[i].dtype).device(outputs_[i].device));
    }
    std::vector<std::shared_ptr<TensorImpl>> linked;
    if (GradMode::is_enabled()) {
      std::shared_ptr<Node> self = shared_from_this();
      for (const auto& [w, nr] : saved_outputs_)
        if (std::shared_ptr<TensorImpl> impl = w.lock(); impl && !impl->autograd) {
          auto meta = std::make_shared<AutogradMeta>();
          meta->requires_grad = true;
          meta->grad_fn = self;
          meta->output_nr = nr;
          impl->autograd = std::move(meta);
          linked.push_back(std::move(impl));
        }
    }
    struct Unlink {
      std::vector<std::shared_ptr<TensorImpl>>& impls;
      ~Unlink() {
        for (auto& i : impls) i->autograd = nullptr;
      }
    } unlink{linked};
    variable_list got = backward_(ctx_.get(), std::move(grads));
    const size_t args = is_tensor_.size();
    if (got.size() < args)
      throw Error("[" + name_ + "] backward returned " + std::to_string(got.size()) + " gradients; expected " +
                  std::to_string(args) + ", one per argument of forward (Tensor() for those that are not tensors).");
    for (size_t i = args; i < got.size(); ++i)
      if (got[i].defined())
        throw Error("[" + name_ + "] backward returned " + std::to_string(got.size()) + " gradients; expected " +
                    std::to_string(args) + ", one per argument of forward.");
    variable_list out;
    out.reserve(next_edges_.size());
    for (size_t i = 0; i < args; ++i) {
      if (!is_tensor_[i]) {
        if (got[i].defined())
          throw Error("[" + name_ + "] backward returned a gradient for argument " + std::to_string(i) +
                      " of forward, which is not a tensor; return Tensor() there.");
        continue;
      }
      const Shape& want = inputs_[out.size()];
      Tensor g = std::move(got[i]);
      if (g.defined() && want.defined && next_edges_[out.size()].is_valid()) {
        if (g.sizes() != IntArrayRef(want.sizes))
          throw Error("[" + name_ + "] backward returned a gradient of shape " + shape_str(g.sizes()) +
                      " for argument " + std::to_string(i) + " of forward, which has shape " +
                      shape_str(IntArrayRef(want.sizes)) + ".");
        if (g.device() != want.device)
          throw DeviceMismatchError("[" + name_ + "] backward returned a gradient on " + g.device().str() +
                                    " for argument " + std::to_string(i) + " of forward, which is on " +
                                    want.device.str() + "; return it on " + want.device.str() + ".");
        if (g.scalar_type() != want.dtype) g = g.to(want.dtype);
      }
      out.push_back(std::move(g));
    }
    return out;
  }

  void release_variables() override {
    In::saved(*ctx_).clear();
    In::released(*ctx_) = true;
  }
};

}  // namespace

std::string type_name(const char* mangled) {
  int status = -1;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string s = status == 0 && d != nullptr ? d : mangled;
  std::free(d);
  // the class's own name: after the last "::" outside template arguments ("ns::F<a::B>" -> "F<a::B>")
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == '<' || s[i] == '(') ++depth;
    else if (s[i] == '>' || s[i] == ')') --depth;
    else if (depth == 0 && s[i] == ':' && s[i + 1] == ':') start = i + 2;
  }
  return s.substr(start);
}

bool custom_prepare(AutogradContext& ctx, const std::string& name, const ArgTensors& args) {
  In::name(ctx) = name;
  bool any = false;
  std::vector<bool>& needs = In::needs(ctx);
  for (const Tensor& t : args.tensors) {
    const bool need = GradMode::is_enabled() && t.defined() && t.requires_grad();
    needs.push_back(need);
    any = any || need;
  }
  return any;
}

variable_list custom_finish(std::shared_ptr<AutogradContext> ctx, ArgTensors args, variable_list outputs, bool record,
                            CustomBackward backward) {
  AutogradContext& c = *ctx;
  // an output that is an input forward did not mark dirty: a new alias of it, so that the input
  // itself is not given a grad_fn (libtorch returns a view)
  for (Tensor& o : outputs) {
    if (!o.defined() || listed(In::dirty(c), o)) continue;
    for (const Tensor& t : args.tensors)
      if (t.defined() && t.is_same(o)) {
        o = o.detach();
        break;
      }
  }
  for (const Tensor& o : outputs)
    if (o.defined() && listed(In::dirty(c), o) && o.is_leaf() && o.requires_grad())
      throw Error("[" + In::name(c) + "] a leaf Variable that requires grad has been used in an in-place operation "
                  "(forward marked it dirty). Pass a clone of it, or wrap the call in locus::NoGradGuard.");
  // saved outputs: kept without their grad_fn (the node would hold its own output: a cycle),
  // linked back to the node only while its backward builds a graph
  std::vector<std::pair<std::weak_ptr<TensorImpl>, uint32_t>> saved_outputs;
  for (Tensor& s : In::saved(c))
    for (size_t i = 0; i < outputs.size(); ++i)
      if (s.defined() && outputs[i].defined() && s.is_same(outputs[i])) {
        s = s.detach();
        saved_outputs.emplace_back(s.impl(), static_cast<uint32_t>(i));
        break;
      }
  if (!record) return outputs;
  auto node = std::make_shared<CustomNode>();
  node->saved_outputs_ = std::move(saved_outputs);
  node->name_ = In::name(c) + "Backward";
  node->backward_ = backward;
  node->is_tensor_ = args.is_tensor;
  std::vector<Edge> edges;
  for (size_t i = 0; i < args.tensors.size(); ++i) {
    const Tensor& t = args.tensors[i];
    edges.push_back(t.defined() && In::needs(c)[i] ? gradient_edge(t) : Edge{});
    CustomNode::Shape sh;
    if (t.defined()) sh = {true, std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), t.scalar_type(), t.device()};
    node->inputs_.push_back(std::move(sh));
  }
  node->set_edges(std::move(edges));
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& o = outputs[i];
    CustomNode::Shape sh;
    if (o.defined()) sh = {true, std::vector<int64_t>(o.sizes().begin(), o.sizes().end()), o.scalar_type(), o.device()};
    node->outputs_.push_back(std::move(sh));
    if (!o.defined() || !o.is_floating_point() || listed(In::non_differentiable(c), o)) continue;
    TensorImpl* impl = o.unsafeGetTensorImpl();
    if (!impl->autograd) impl->autograd = std::make_shared<AutogradMeta>();
    impl->autograd->requires_grad = true;
    impl->autograd->grad_fn = node;
    impl->autograd->output_nr = static_cast<uint32_t>(i);
  }
  node->ctx_ = std::move(ctx);
  return outputs;
}

}  // namespace detail
}  // namespace autograd
}  // namespace locus
