// The backward engine.
//
// A pass starts from root edges (the outputs' grad_fns) with their gradients. It first finds the
// nodes that matter (all reachable ones for backward(); for grad(), only those on a path to a
// requested input), counts for each how many gradients it will receive, then runs nodes whose
// count reached zero, latest-created first (a max-heap on sequence_nr), summing gradients that
// meet at one input. Leaves are reached through AccumulateGrad nodes, which add into .grad on the
// leaf's own device. One thread, the caller's; device work is enqueued by the ops themselves.
#include <algorithm>
#include <atomic>
#include <queue>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "autograd/record.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "ops/autocast.h"
#include "ops/checks.h"

namespace locus {

namespace autograd::detail {
thread_local constinit bool grad_enabled = true;
}

bool GradMode::is_enabled() { return autograd::detail::grad_enabled; }
void GradMode::set_enabled(bool enabled) { autograd::detail::grad_enabled = enabled; }
AutoGradMode::AutoGradMode(bool enabled) : previous_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
AutoGradMode::~AutoGradMode() { GradMode::set_enabled(previous_); }

namespace autograd {

namespace {
std::atomic<bool> g_anomaly_enabled{false}, g_anomaly_check_nan{true};
}  // namespace
bool AnomalyMode::is_enabled() { return g_anomaly_enabled.load(std::memory_order_relaxed); }
bool AnomalyMode::should_check_nan() { return g_anomaly_check_nan.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled, bool check_nan) {
  g_anomaly_enabled.store(enabled, std::memory_order_relaxed);
  g_anomaly_check_nan.store(check_nan, std::memory_order_relaxed);
}
DetectAnomalyGuard::DetectAnomalyGuard(bool check_nan)
    : previous_enabled_(AnomalyMode::is_enabled()), previous_check_nan_(AnomalyMode::should_check_nan()) {
  AnomalyMode::set_enabled(true, check_nan);
}
DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(previous_enabled_, previous_check_nan_); }

namespace {

// Anomaly detection: the first floating gradient a node returned that holds a NaN, as PyTorch's.
void check_no_nan(const Node& n, const variable_list& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    const Tensor& g = out[i];
    if (!g.defined() || !is_floating_point(g.scalar_type())) continue;
    NoGradGuard no_grad;
    if (g.isnan().any().item<bool>())
      throw Error("Function '" + n.name() + "' returned nan values in its " + std::to_string(i) +
                  "th output. (anomaly detection is on: that node's forward op made the NaN's first gradient; "
                  "check its inputs, e.g. a division by zero or the sqrt/log of 0 or of a negative number)");
  }
}

std::atomic<uint64_t> next_sequence_nr{0};

std::string device_mismatch(const char* op, Device expected, Device got, const char* what) {
  std::ostringstream os;
  os << "[" << op << "] Expected all tensors to be on the same device, but found at least two devices, " << expected
     << " and " << got << "! Argument '" << what << "' is on " << got << "; move it with .to(" << expected << ").";
  return os.str();
}

const char* kSecondBackward =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd::grad(). "
    "Specify retain_graph=true if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward.";

// Saved outputs (saved_output): the aliases made since the last record() on this thread, which
// the next record() hands to its node.
thread_local std::vector<std::weak_ptr<TensorImpl>> pending_saved_outputs;

// The node an op records: a closure over what its backward formula needs.
struct FunctionNode : Node, std::enable_shared_from_this<FunctionNode> {
  const char* name_;
  BackwardFn fn_;
  std::vector<Device> input_devices_;
  // Aliases of this node's output that fn_ uses (exp's, sigmoid's result): detached, so the
  // output and its grad_fn form no cycle. While fn_ builds a graph (create_graph), each is
  // linked back to this node as its output, as PyTorch's SavedVariable restores a saved output's
  // grad_fn, so the derivative through the saved result is part of the second derivative.
  std::vector<std::weak_ptr<TensorImpl>> saved_outputs_;
  // The storage versions of what fn_ reads (its saved outputs; its inputs unless the formula reads
  // none of their values), as recorded: a later in-place write makes the backward throw.
  struct SavedVersion {
    std::weak_ptr<Storage> storage;
    uint32_t version;
    int input;  // -1: a saved output
  };
  std::vector<SavedVersion> versions_;
  void set_edges(std::vector<Edge> e) { next_edges_ = std::move(e); }
  std::string name() const override { return name_; }
  void check_versions() const {
    for (const SavedVersion& v : versions_) {
      std::shared_ptr<Storage> st = v.storage.lock();
      if (!st) continue;
      uint32_t now = st->version.load(std::memory_order_relaxed);
      if (now == v.version) continue;
      std::string what = v.input < 0 ? "the result of " + std::string(name_) + ", which its backward saved,"
                                     : "input " + std::to_string(v.input) + " of " + std::string(name_) +
                                           ", which its backward reads,";
      throw Error("[backward] one of the variables needed for gradient computation has been modified by an "
                  "in-place operation: " + what + " is at version " + std::to_string(now) + "; expected version " +
                  std::to_string(v.version) + ". Use the out-of-place form of the later in-place op (or clone() "
                  "the tensor before modifying it).");
    }
  }
  variable_list apply(variable_list&& grads) override {
    if (!fn_) throw Error(std::string(name_) + ": " + kSecondBackward);
    if (!versions_.empty()) check_versions();
    std::vector<std::shared_ptr<TensorImpl>> linked;
    if (detail::grad_enabled && !saved_outputs_.empty()) {
      std::shared_ptr<Node> self = shared_from_this();
      for (const auto& w : saved_outputs_)
        if (std::shared_ptr<TensorImpl> impl = w.lock(); impl && !impl->autograd) {
          auto meta = std::make_shared<AutogradMeta>();
          meta->requires_grad = true;
          meta->grad_fn = self;
          impl->autograd = std::move(meta);
          linked.push_back(std::move(impl));
        }
    }
    struct Unlink {  // the aliases go back to plain (no graph, no reference to this node)
      std::vector<std::shared_ptr<TensorImpl>>& impls;
      ~Unlink() {
        for (auto& i : impls) i->autograd = nullptr;
      }
    } unlink{linked};
    variable_list out = fn_(grads.at(0));
    if (out.size() != next_edges_.size())
      throw Error(std::string(name_) + ": the backward function returned " + std::to_string(out.size()) +
                  " gradients for " + std::to_string(next_edges_.size()) + " inputs.");
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].defined() && next_edges_[i].is_valid() && out[i].device() != input_devices_[i])
        throw DeviceMismatchError(device_mismatch(name_, input_devices_[i], out[i].device(), "grad"));
    return out;
  }
  // PyTorch frees what a node saved; a node that saved no tensor (its formula needs only shapes,
  // dtypes, scalars) has nothing to free and runs again in a second backward, as there.
  void release_variables() override {
    if (!saves_no_tensors_) fn_ = nullptr;
  }
  bool saves_no_tensors_ = false;
};

// Adds incoming gradients into a leaf's .grad.
struct AccumulateGrad : Node {
  Tensor variable;
  std::string name() const override { return "AccumulateGrad"; }
  variable_list apply(variable_list&& grads) override {
    Tensor g = std::move(grads.at(0));
    if (!g.defined()) return {};
    if (auto* m = variable.impl()->autograd.get(); m != nullptr && !m->grad_hooks.empty()) {
      auto hooks = m->grad_hooks;  // a hook may register or remove hooks
      for (auto& h : hooks)
        if (Tensor r = h.second(g); r.defined()) g = std::move(r);
    }
    if (g.device() != variable.device())
      throw DeviceMismatchError(device_mismatch("AccumulateGrad", variable.device(), g.device(), "grad"));
    if (g.sizes() != variable.sizes())
      throw Error("[AccumulateGrad] the gradient has shape " + ops::shape_str(g.sizes()) + " but the tensor has shape " +
                  ops::shape_str(variable.sizes()) + ".");
    if (g.scalar_type() != variable.scalar_type()) g = g.to(variable.scalar_type());
    Tensor& acc = variable.mutable_grad();
    if (!acc.defined()) {
      bool unique = g.use_count() == 1 && g.impl()->storage.use_count() == 1 && g.is_contiguous();
      if (GradMode::is_enabled()) acc = g;           // create_graph: keep the graph of the gradient
      else acc = unique ? g.detach() : g.clone();    // never alias a buffer someone else holds
    } else {
      if (acc.device() != variable.device())
        throw DeviceMismatchError(device_mismatch("AccumulateGrad", variable.device(), acc.device(), "grad"));
      if (GradMode::is_enabled()) acc = acc + g;
      else acc.add_(g);
    }
    auto* meta = variable.impl()->autograd.get();
    if (meta != nullptr && !meta->post_acc_hooks.empty()) {
      auto hooks = meta->post_acc_hooks;  // a hook may register or remove hooks
      for (auto& h : hooks) h.second(variable);
    }
    return {};
  }
};

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  auto* meta = t.impl()->autograd.get();
  std::shared_ptr<Node> acc = meta->grad_accumulator.lock();
  if (acc) return acc;
  auto a = std::make_shared<AccumulateGrad>();
  a->variable = t;
  meta->grad_accumulator = a;
  return a;
}

// queue_callback's list for the backward pass running on this thread (null outside one).
thread_local std::vector<std::function<void()>>* current_callbacks = nullptr;
std::atomic<uint64_t> next_hook_handle{1};

struct Capture {
  Node* fn;
  uint32_t input_nr;
  size_t slot;
};

// Runs one backward pass. With `captures`, gradients arriving at those edges are returned instead
// of flowing on, and only nodes that lead to them run.
variable_list run(const std::vector<Edge>& roots, variable_list root_grads, bool keep_graph, bool create_graph,
                  const std::vector<Edge>& targets, bool allow_unused) {
  AutoGradMode mode(create_graph);
  ops::autocast::ExcludeGuard no_autocast;  // backward ops run in the dtypes the forward chose
  bool grad_mode = !targets.empty();
  std::vector<std::function<void()>> callbacks;
  struct CallbackScope {
    std::vector<std::function<void()>>* saved;
    explicit CallbackScope(std::vector<std::function<void()>>* mine) : saved(current_callbacks) {
      current_callbacks = mine;
    }
    ~CallbackScope() { current_callbacks = saved; }
  } callback_scope(&callbacks);
  // 1. nodes that matter, in an iterative DFS (graphs can be deep)
  std::unordered_map<Node*, bool> needed;  // node -> on a path to a target (grad mode) / reachable
  std::unordered_set<Node*> target_nodes;
  for (const Edge& e : targets) target_nodes.insert(e.function.get());
  {
    struct Frame { Node* n; size_t next; };
    std::vector<Frame> stack;
    for (const Edge& r : roots) {
      if (!r.is_valid() || needed.count(r.function.get())) continue;
      needed[r.function.get()] = false;
      stack.push_back({r.function.get(), 0});
      while (!stack.empty()) {
        Frame& f = stack.back();
        const auto& edges = f.n->next_edges();
        if (f.next < edges.size()) {
          Node* c = edges[f.next++].function.get();
          if (c != nullptr && !needed.count(c)) {
            needed[c] = false;
            stack.push_back({c, 0});
          }
          continue;
        }
        bool need = !grad_mode || target_nodes.count(f.n) > 0;
        for (const Edge& e : edges)
          if (e.function && needed[e.function.get()]) need = true;
        needed[f.n] = need;
        stack.pop_back();
      }
    }
  }
  // 2. dependency counts over needed nodes
  std::unordered_map<Node*, int> deps;
  for (auto& [n, need] : needed) {
    if (!need) continue;
    for (const Edge& e : n->next_edges())
      if (e.function && needed[e.function.get()]) deps[e.function.get()]++;
  }
  // 3. run
  std::unordered_map<Node*, variable_list> buffers;
  auto add_to = [&](Node* n, uint32_t nr, Tensor g) {
    variable_list& b = buffers[n];
    if (b.size() <= nr) b.resize(nr + 1);
    if (!b[nr].defined()) b[nr] = std::move(g);
    else b[nr] = b[nr] + g;
  };
  auto cmp = [](Node* a, Node* b) { return a->sequence_nr() < b->sequence_nr(); };
  std::priority_queue<Node*, std::vector<Node*>, decltype(cmp)> ready(cmp);
  std::vector<std::shared_ptr<Node>> keep_alive;
  for (size_t i = 0; i < roots.size(); ++i) {
    if (!roots[i].is_valid()) continue;
    add_to(roots[i].function.get(), roots[i].input_nr, root_grads[i]);
  }
  std::unordered_set<Node*> queued;
  for (const Edge& r : roots) {
    Node* n = r.function.get();
    if (n && needed[n] && deps[n] == 0 && queued.insert(n).second) ready.push(n);
  }
  variable_list captured(targets.size());
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    variable_list in = std::move(buffers[n]);
    buffers.erase(n);
    if (!n->tensor_hooks().empty()) {  // register_hook / retain_grad on the node's outputs
      auto hooks = n->tensor_hooks();
      for (auto& h : hooks)
        if (h.output_nr < in.size() && in[h.output_nr].defined())
          if (Tensor r = h.fn(in[h.output_nr]); r.defined()) in[h.output_nr] = std::move(r);
    }
    if (grad_mode && target_nodes.count(n)) {
      for (size_t k = 0; k < targets.size(); ++k)
        if (targets[k].function.get() == n && targets[k].input_nr < in.size()) captured[k] = in[targets[k].input_nr];
    }
    bool run_it = true;
    if (grad_mode) {
      run_it = false;
      for (const Edge& e : n->next_edges())
        if (e.function && needed[e.function.get()]) run_it = true;
    }
    bool any = false;
    for (const Tensor& t : in) any = any || t.defined();
    variable_list out;
    if (run_it && any) {
      if (in.empty()) in.resize(1);
      out = n->apply(std::move(in));
      if (!keep_graph) n->release_variables();
      if (AnomalyMode::is_enabled() && AnomalyMode::should_check_nan()) check_no_nan(*n, out);
    }
    const auto& edges = n->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      Node* c = edges[i].function.get();
      if (c == nullptr || !needed[c]) continue;
      if (i < out.size() && out[i].defined()) add_to(c, edges[i].input_nr, std::move(out[i]));
      if (--deps[c] == 0 && queued.insert(c).second) ready.push(c);
    }
  }
  // final callbacks (queue_callback), in order; one may queue another
  for (size_t i = 0; i < callbacks.size(); ++i) {
    auto fn = std::move(callbacks[i]);
    fn();
  }
  if (grad_mode && !allow_unused) {
    for (size_t k = 0; k < targets.size(); ++k)
      if (!captured[k].defined() && !needed[targets[k].function.get()])
        throw Error("[grad] One of the differentiated Tensors appears to not have been used in the graph. Set "
                    "allow_unused=true if this is the desired behavior.");
  }
  return captured;
}

// Root edges and gradients for outputs, with PyTorch's checks.
void prepare_roots(const char* op, const variable_list& outputs, const variable_list& grads, std::vector<Edge>& roots,
                   variable_list& root_grads) {
  if (!grads.empty() && grads.size() != outputs.size())
    throw Error("[" + std::string(op) + "] got " + std::to_string(grads.size()) + " gradients for " +
                std::to_string(outputs.size()) + " tensors; pass one per tensor.");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    if (!t.defined()) throw Error("[" + std::string(op) + "] tensor " + std::to_string(i) + " is undefined.");
    if (!t.requires_grad())
      throw Error("[" + std::string(op) + "] element " + std::to_string(i) +
                  " of tensors does not require grad and does not have a grad_fn. Set requires_grad_(true) on the "
                  "leaves, or compute it outside NoGradGuard.");
    Tensor g = grads.empty() ? Tensor() : grads[i];
    if (!g.defined()) {
      if (t.numel() != 1)
        throw Error("[" + std::string(op) + "] grad can be implicitly created only for scalar outputs, but tensor " +
                    std::to_string(i) + " has shape " + ops::shape_str(t.sizes()) + "; pass a gradient of that shape.");
      g = ones(t.sizes(), TensorOptions().dtype(t.scalar_type()).device(t.device()));
    } else {
      if (g.device() != t.device())
        throw DeviceMismatchError(device_mismatch(op, t.device(), g.device(), "gradient"));
      if (g.sizes() != t.sizes())
        throw Error("[" + std::string(op) + "] Mismatch in shape: grad_output[" + std::to_string(i) + "] has a shape of " +
                    ops::shape_str(g.sizes()) + " and output[" + std::to_string(i) + "] has a shape of " +
                    ops::shape_str(t.sizes()) + ".");
    }
    roots.push_back(gradient_edge(t));
    root_grads.push_back(std::move(g));
  }
}

}  // namespace

Node::Node() : sequence_nr_(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

Edge gradient_edge(const Tensor& t) {
  TensorImpl* ti = t.unsafeGetTensorImpl();
  auto* meta = ti->autograd.get();
  if (meta == nullptr || !meta->requires_grad) {
    if (!follows_base_graph(ti)) return {};
    refresh_view(t);  // made before its base joined the graph
    return {ti->autograd->grad_fn, ti->autograd->output_nr};
  }
  if (meta->grad_fn) {
    // A view whose storage was written since its grad_fn was set: its values are its base's
    // now, so is its history (PyTorch regenerates a view's grad_fn the same way).
    if (ti->view_base && ti->storage && meta->view_version != ti->storage->version.load(std::memory_order_relaxed))
      refresh_view(t);
    return {meta->grad_fn, meta->output_nr};
  }
  return {grad_accumulator(t), 0};
}

namespace {
// Whether `name` is in `names`. Names are string literals: the caller's per-thread cache keyed by
// the pointer spares hashing the text.
bool listed(const char* name, const std::unordered_set<std::string_view>& names,
            std::unordered_map<const char*, bool>& seen) {
  auto it = seen.find(name);
  if (it == seen.end()) it = seen.emplace(name, names.count(name) != 0).first;
  return it->second;
}

// Formulas that read no input's values (only shapes, dtypes and devices, or their saved result):
// an in-place write to such an input after the op does not change its gradient, so the node keeps
// no version of its inputs.
bool reads_no_input_values(const char* name) {
  static const std::unordered_set<std::string_view> names = {
      "AddBackward0",    "AddBackward1",       "SubBackward0",       "SubBackward1",    "RsubBackward1",
      "MulBackward1",    "DivBackward1",       "NegBackward0",       "ExpBackward0",    "SqrtBackward0",
      "RsqrtBackward0",  "ReluBackward0",      "SigmoidBackward0",   "TanhBackward0",   "Expm1Backward0",
      "Exp2Backward0",   "SignBackward0",      "TruncBackward0",     "FmodBackward0",   "SumBackward1",    "SumBackward0",   "MeanBackward0",
      "MeanBackward1",   "LogSoftmaxBackward0", "SoftmaxBackward0",  "CloneBackward0",  "ToCopyBackward0",
      "IndexSelectBackward0", "GatherBackward0", "CatBackward0",     "CopyBackwards",
      // views (a stale view gets a new grad_fn instead: gradient_edge) and in-place overwrites
      "ViewBackward0",   "TransposeBackward0", "PermuteBackward0",   "ExpandBackward0", "SliceBackward0",
      "AsStridedBackward0", "torch::autograd::CopySlices",      "FillBackward2"};
  thread_local std::unordered_map<const char*, bool> seen;
  return listed(name, names, seen);
}

// Formulas whose closures hold no tensor (shapes, dtypes, devices, scalars, dims only) and whose
// PyTorch nodes save none: a backward leaves them as they were, and a second one through them
// works without retain_graph, as in PyTorch (x.clone() backwarded twice).
bool saves_no_tensors(const char* name) {
  static const std::unordered_set<std::string_view> names = {
      "AddBackward0",    "AddBackward1",       "SubBackward0",     "SubBackward1",     "RsubBackward1",
      "MulBackward1",    "DivBackward1",       "NegBackward0",     "SignBackward0",    "TruncBackward0",
      "SumBackward0",    "SumBackward1",       "MeanBackward0",    "MeanBackward1",    "CloneBackward0",
      "ToCopyBackward0", "CatBackward0",       "ViewBackward0",    "TransposeBackward0", "PermuteBackward0",
      "ExpandBackward0", "SliceBackward0",     "FillBackward2"};
  thread_local std::unordered_map<const char*, bool> seen;
  return listed(name, names, seen);
}

template <class List>
void record_impl(const char* name, Tensor& result, const List& inputs, BackwardFn&& fn) {
  std::vector<std::weak_ptr<TensorImpl>> saved = std::move(pending_saved_outputs);
  pending_saved_outputs.clear();
  if (!detail::grad_enabled || !result.defined() || !result.is_floating_point()) return;
  bool any = false;
  for (const Tensor* t : inputs) {
    if (t->defined() && t->is_same(result)) return;
    any = any || requires_grad_fast(*t);
  }
  if (!any) return;
  auto node = std::make_shared<FunctionNode>();
  node->name_ = name;
  node->fn_ = std::move(fn);
  node->saves_no_tensors_ = saved.empty() && saves_no_tensors(name);
  TensorImpl* impl = result.unsafeGetTensorImpl();
  for (const auto& w : saved)
    if (std::shared_ptr<TensorImpl> s = w.lock(); s && s->storage)
      node->versions_.push_back({s->storage, s->storage->version.load(std::memory_order_relaxed), -1});
  node->saved_outputs_ = std::move(saved);
  const bool reads_inputs = !reads_no_input_values(name);
  bool is_view = false;
  std::vector<Edge> edges;
  edges.reserve(inputs.size());
  node->input_devices_.reserve(inputs.size());
  int k = 0;
  for (const Tensor* t : inputs) {
    edges.push_back(t->defined() ? gradient_edge(*t) : Edge{});
    node->input_devices_.push_back(t->defined() ? t->device() : Device(kCPU));
    if (const TensorImpl* in = t->unsafeGetTensorImpl(); in != nullptr && in->storage) {
      is_view = is_view || in->storage == impl->storage;
      if (reads_inputs) node->versions_.push_back({in->storage, in->storage->version.load(std::memory_order_relaxed), k});
    }
    ++k;
  }
  node->set_edges(std::move(edges));
  if (!impl->autograd) impl->autograd = std::make_shared<AutogradMeta>();
  impl->autograd->requires_grad = true;
  impl->autograd->grad_fn = std::move(node);
  impl->autograd->output_nr = 0;
  impl->autograd->is_view = is_view;
  if (impl->storage) impl->autograd->view_version = impl->storage->version.load(std::memory_order_relaxed);
}
}  // namespace

Tensor saved_output(const Tensor& out) {
  Tensor o = out.detach();
  pending_saved_outputs.push_back(o.impl());
  return o;
}

void record(const char* name, Tensor& result, std::initializer_list<const Tensor*> inputs, BackwardFn fn) {
  record_impl(name, result, inputs, std::move(fn));
}
void record(const char* name, Tensor& result, const std::vector<const Tensor*>& inputs, BackwardFn fn) {
  record_impl(name, result, inputs, std::move(fn));
}

void check_inplace_graph(const char* op, const Tensor& self) {
  if (!detail::grad_enabled) return;
  if (TensorImpl* b = view_base_of(self)) {
    const AutogradMeta* bm = b->autograd.get();
    const bool base_in_graph = bm != nullptr && bm->requires_grad;
    if (base_in_graph && !bm->grad_fn)
      throw Error("[" + std::string(op) + "] a view of a leaf Variable that requires grad is being used in an in-place "
                  "operation. Wrap the update in locus::NoGradGuard, or modify a clone() of the view.");
    if (base_in_graph && self.impl()->view_no_grad)
      throw Error("[" + std::string(op) + "] the tensor is a view made while grad mode was off (under NoGradGuard) of "
                  "a tensor in the autograd graph, and is being modified in place with grad mode on: the op cannot be "
                  "recorded. Make the view and modify it both with grad mode on, or both under NoGradGuard.");
    if (!b->contiguous)
      throw Error("[" + std::string(op) + "] the tensor is a view of a non-contiguous tensor, and locus records in-place "
                  "operations only on views of contiguous tensors; make the base contiguous() first, or use the "
                  "out-of-place form.");
    const AutogradMeta* sm = self.impl()->autograd.get();
    const bool self_in_graph = sm != nullptr && sm->requires_grad;
    if (self_in_graph && !sm->grad_fn)
      throw Error("[" + std::string(op) + "] a leaf Variable that requires grad is being used in an in-place operation. "
                  "Wrap the update in locus::NoGradGuard, or use the out-of-place form.");
    if (base_in_graph && !self_in_graph) refresh_view(self);
    return;
  }
  if (!requires_grad_fast(self)) return;
  const AutogradMeta& m = *self.impl()->autograd;
  if (!m.grad_fn)
    throw Error("[" + std::string(op) + "] a leaf Variable that requires grad is being used in an in-place operation. "
                "Wrap the update in locus::NoGradGuard, or use the out-of-place form.");
  if (m.is_view)
    throw Error("[" + std::string(op) + "] the tensor shares its storage with its input (" + m.grad_fn->name() +
                "), and locus does not record in-place operations on such results; use the out-of-place form, or "
                "modify a clone().");
}

namespace {
// Makes `self` the output of `r`'s grad_fn.
void take_history(const Tensor& self, const Tensor& r) {
  const TensorImpl* ri = r.unsafeGetTensorImpl();
  TensorImpl* impl = self.unsafeGetTensorImpl();
  if (!impl->autograd) impl->autograd = std::make_shared<AutogradMeta>();
  impl->autograd->requires_grad = true;
  impl->autograd->grad_fn = ri->autograd->grad_fn;
  impl->autograd->output_nr = ri->autograd->output_nr;
  impl->autograd->is_view = false;
  impl->autograd->view_version = impl->storage ? impl->storage->version.load(std::memory_order_relaxed) : 0;
}
}  // namespace

void rebase_history(const Tensor& self, const Tensor& r) {
  if (view_base_of(self) != nullptr) {
    rebase_view(self, r);
    return;
  }
  const TensorImpl* ri = r.unsafeGetTensorImpl();
  if (ri == nullptr || !ri->autograd || !ri->autograd->grad_fn) return;
  take_history(self, r);
}

void refresh_view(const Tensor& view) {
  TensorImpl* vi = view.unsafeGetTensorImpl();
  if (view_base_of(view) == nullptr) return;
  Tensor base(vi->view_base);
  if (!requires_grad_fast(base)) return;
  AutoGradMode on(true);
  Tensor nv = locus::detail::make_view(base, view.sizes(), view.strides(), view.storage_offset());
  on_view_of_base(nv, base);
  take_history(view, nv);
  vi->autograd->is_view = true;
}

void rebase_constant(const Tensor& self) {
  if (!detail::grad_enabled) return;
  if (TensorImpl* b = view_base_of(self)) {
    if (b->autograd == nullptr || !b->autograd->requires_grad) return;
    rebase_view(self, self.detach());  // the written part gets no gradient
    return;
  }
  if (!requires_grad_fast(self)) return;
  Tensor out = self.detach();
  record("FillBackward2", out, {&self}, [](const Tensor& g) -> variable_list { return {zeros_like(g)}; });
  take_history(self, out);
}

Tensor inplace_source(const char* op, const Tensor& self) {
  if (!should_record(self) && !view_of_graph(self)) return self;
  check_inplace_graph(op, self);
  return self.clone();
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  std::vector<Edge> roots;
  variable_list root_grads;
  prepare_roots("grad", outputs, grad_outputs, roots, root_grads);
  if (inputs.empty()) throw Error("[grad] expected a non-empty list of inputs to differentiate with respect to.");
  std::vector<Edge> targets;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad())
      throw Error("[grad] One of the differentiated Tensors (input " + std::to_string(i) +
                  ") does not require grad; call requires_grad_(true) on it first.");
    targets.push_back(gradient_edge(inputs[i]));
  }
  return run(roots, std::move(root_grads), retain_graph.value_or(create_graph), create_graph, targets, allow_unused);
}

uint64_t register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook hook) {
  if (!leaf.defined() || !leaf.requires_grad() || !leaf.is_leaf())
    throw Error("[register_post_accumulate_grad_hook] post accumulate grad hooks cannot be registered on non-leaf "
                "tensors or tensors that do not require grad; call it on a parameter (a leaf with requires_grad).");
  if (!hook) throw Error("[register_post_accumulate_grad_hook] the hook is empty.");
  uint64_t h = next_hook_handle.fetch_add(1);
  leaf.impl()->autograd->post_acc_hooks.emplace_back(h, std::move(hook));
  return h;
}

void remove_post_accumulate_grad_hook(const Tensor& leaf, uint64_t handle) {
  if (!leaf.defined() || !leaf.impl()->autograd) return;
  auto& hooks = leaf.impl()->autograd->post_acc_hooks;
  std::erase_if(hooks, [&](const auto& h) { return h.first == handle; });
}

void queue_callback(std::function<void()> fn) {
  if (current_callbacks == nullptr)
    throw Error("[queue_callback] Final callbacks can only be installed during backward pass; call it from a hook "
                "that runs in backward.");
  current_callbacks->push_back(std::move(fn));
}

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph) {
  std::vector<Edge> roots;
  variable_list root_grads;
  prepare_roots("backward", tensors, grad_tensors, roots, root_grads);
  run(roots, std::move(root_grads), retain_graph.value_or(create_graph), create_graph, {}, false);
}

}  // namespace autograd

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

unsigned Tensor::register_grad_hook(std::function<Tensor(const Tensor&)> hook) const {
  if (!defined()) throw Error("[register_hook] the tensor is undefined.");
  if (!requires_grad())
    throw Error("[register_hook] cannot register a hook on a tensor that doesn't require gradient; call "
                "requires_grad_(true) on it (or on the leaves it is computed from) first.");
  auto* meta = impl_->autograd.get();
  const auto handle = static_cast<unsigned>(autograd::next_hook_handle.fetch_add(1));
  if (meta->grad_fn) {
    // before this tensor's retain_grad hook, if any: .grad holds the gradient every hook has seen (PyTorch's order)
    auto& hooks = meta->grad_fn->tensor_hooks();
    auto at = std::find_if(hooks.begin(), hooks.end(), [&](const auto& h) {
      return meta->retains_grad && h.handle == meta->retain_grad_handle;
    });
    hooks.insert(at, {meta->output_nr, handle, std::move(hook)});
  } else {
    meta->grad_hooks.emplace_back(handle, std::move(hook));
  }
  return handle;
}

void Tensor::remove_hook(unsigned handle) const {
  bool found = false;
  if (defined() && impl_->autograd) {
    auto* meta = impl_->autograd.get();
    found = std::erase_if(meta->grad_hooks, [&](const auto& h) { return h.first == handle; }) > 0;
    if (meta->grad_fn)
      found = std::erase_if(meta->grad_fn->tensor_hooks(), [&](const auto& h) {
                return h.output_nr == meta->output_nr && h.handle == handle && handle != meta->retain_grad_handle;
              }) > 0 || found;
  }
  if (!found)
    throw Error("[remove_hook] this tensor has no hook with handle " + std::to_string(handle) +
                " (removed already, or registered on another tensor).");
}

void Tensor::retain_grad() const {
  if (!defined()) throw Error("[retain_grad] the tensor is undefined.");
  if (!requires_grad())
    throw Error("[retain_grad] can't retain_grad on Tensor that has requires_grad=False; call requires_grad_(true) "
                "on the leaves it is computed from first.");
  auto* meta = impl_->autograd.get();
  if (!meta->grad_fn || meta->retains_grad) return;  // a leaf keeps its gradient anyway
  std::weak_ptr<TensorImpl> weak = impl_;
  const uint64_t handle = autograd::next_hook_handle.fetch_add(1);
  meta->grad_fn->tensor_hooks().push_back({meta->output_nr, handle, [weak](const Tensor& g) {
                                             std::shared_ptr<TensorImpl> self = weak.lock();
                                             if (!self || !self->autograd) return Tensor();
                                             Tensor& acc = self->autograd->grad;
                                             if (!acc.defined()) acc = GradMode::is_enabled() ? g : g.detach().clone();
                                             else if (GradMode::is_enabled()) acc = acc + g;
                                             else acc.add_(g);
                                             return Tensor();
                                           }});
  meta->retains_grad = true;
  meta->retain_grad_handle = handle;
}

bool Tensor::retains_grad() const {
  return defined() && impl_->autograd && impl_->autograd->grad_fn && impl_->autograd->retains_grad;
}

void Tensor::set_data(const Tensor& new_data) const {
  if (!defined() || !new_data.defined()) throw Error("[set_data] both tensors must be defined.");
  TensorImpl* s = impl_.get();
  const TensorImpl* n = new_data.unsafeGetTensorImpl();
  if (s == n) return;
  s->storage = n->storage;
  s->sizes = n->sizes;
  s->strides = n->strides;
  s->offset = n->offset;
  s->numel = n->numel;
  s->dtype = n->dtype;
  s->device = n->device;
  s->contiguous = n->contiguous;
}

}  // namespace locus
