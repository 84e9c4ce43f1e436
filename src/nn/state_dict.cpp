// Module::state_dict and Module::load_state_dict (PyTorch's nn.Module methods of those names).
#include <sstream>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/nn/module.h"

namespace locus::nn {
namespace {

void collect(const Module& m, const std::string& prefix, OrderedDict<std::string, Tensor>& out) {
  for (const auto& p : m.named_parameters(false))
    if (p.value().defined()) out.insert(prefix + p.key(), p.value().detach());
  for (const auto& b : m.named_buffers(false))
    if (b.value().defined()) out.insert(prefix + b.key(), b.value().detach());
  for (const auto& c : m.named_children()) collect(*c.value(), prefix + c.key() + ".", out);
}

std::string shape_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

std::string quoted_list(const std::vector<std::string>& keys) {
  std::string r;
  for (size_t i = 0; i < keys.size(); ++i) r += (i ? ", \"" : "\"") + keys[i] + "\"";
  return r;
}

}  // namespace

OrderedDict<std::string, Tensor> Module::state_dict() const {
  OrderedDict<std::string, Tensor> out("Key");
  collect(*this, "", out);
  return out;
}

void Module::load_state_dict(const OrderedDict<std::string, Tensor>& state_dict, bool strict) {
  OrderedDict<std::string, Tensor> own = this->state_dict();
  std::vector<std::string> missing, unexpected, mismatched;
  for (const auto& item : own)
    if (!state_dict.contains(item.key())) missing.push_back(item.key());
  for (const auto& item : state_dict) {
    const Tensor* mine = own.find(item.key());
    if (mine == nullptr) {
      unexpected.push_back(item.key());
    } else if (!item.value().defined()) {
      mismatched.push_back("size mismatch for " + item.key() + ": the checkpoint's tensor is undefined.");
    } else if (item.value().sizes() != mine->sizes()) {
      mismatched.push_back("size mismatch for " + item.key() + ": copying a param with shape " +
                           shape_str(item.value().sizes()) + " from checkpoint, the shape in current model is " +
                           shape_str(mine->sizes()) + ".");
    }
  }
  if (!strict) missing.clear(), unexpected.clear();
  if (!missing.empty() || !unexpected.empty() || !mismatched.empty()) {
    std::string msg = "[load_state_dict] Error(s) in loading state_dict for " + name() + ":";
    if (!missing.empty()) msg += "\n\tMissing key(s) in state_dict: " + quoted_list(missing) + ".";
    if (!unexpected.empty()) msg += "\n\tUnexpected key(s) in state_dict: " + quoted_list(unexpected) + ".";
    for (const std::string& m : mismatched) msg += "\n\t" + m;
    if (!missing.empty() || !unexpected.empty()) msg += "\nPass strict=false to load only the matching keys.";
    throw CheckpointError(msg);
  }
  NoGradGuard no_grad;
  for (auto& item : own) {
    const Tensor* src = state_dict.find(item.key());
    if (src != nullptr) item.value().copy_(*src);  // the detached view shares the module's storage
  }
}

}  // namespace locus::nn
