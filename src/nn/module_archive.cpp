// Module::save / Module::load over libtorch's archives (locus/archive.h), and archive << module.
#include "locus/archive.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/nn/module.h"
#include "core/checks.h"

namespace locus::nn {
namespace {

bool holds_tensors(const Module& m) { return !m.named_parameters().is_empty() || !m.named_buffers().is_empty(); }

/// The archive's tensor under `key` copied into `target` (kept on its device and dtype).
void read_into(const serialize::InputArchive& archive, const std::string& key, Tensor& target, bool is_buffer,
               const std::string& module_name) {
  Tensor loaded;
  archive.read(key, loaded, is_buffer);
  if (!target.defined()) {  // an optional buffer registered undefined: take the loaded one
    target = loaded;
    return;
  }
  if (loaded.sizes() != target.sizes())
    throw CheckpointError("[Module::load] '" + key + "' of " + module_name + " has shape " +
                          shape_str(target.sizes()) + " but the archive holds " + shape_str(loaded.sizes()) +
                          "; build the module with the options it was saved with.");
  NoGradGuard no_grad;
  target.copy_(loaded);
}

}  // namespace

void Module::save(serialize::OutputArchive& archive) const {
  for (const auto& p : parameters_)
    if (p.value().defined()) archive.write(p.key(), p.value());
  for (const auto& b : buffers_)
    if (b.value().defined()) archive.write(b.key(), b.value(), /*is_buffer=*/true);
  for (const auto& child : children_) {
    if (!child.value()->is_serializable()) continue;
    serialize::OutputArchive nested;
    child.value()->save(nested);
    archive.write(child.key(), nested);
  }
}

void Module::load(serialize::InputArchive& archive) {
  for (auto& p : parameters_)
    if (p.value().defined()) read_into(archive, p.key(), p.value(), false, type_name());
  for (auto& b : buffers_) read_into(archive, b.key(), b.value(), true, type_name());
  for (const auto& child : children_) {
    // A child without tensors (ReLU, Dropout) leaves no key behind: nothing to read.
    if (!child.value()->is_serializable() || !holds_tensors(*child.value())) continue;
    serialize::InputArchive nested;
    archive.read(child.key(), nested);  // CheckpointError naming "key." when the archive lacks it
    child.value()->load(nested);
  }
}

serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const std::shared_ptr<Module>& module) {
  if (!module) throw Error("[OutputArchive << module] the module is empty (nullptr).");
  module->save(archive);
  return archive;
}

serialize::InputArchive& operator>>(serialize::InputArchive& archive, const std::shared_ptr<Module>& module) {
  if (!module) throw Error("[InputArchive >> module] the module is empty (nullptr).");
  module->load(archive);
  return archive;
}

}  // namespace locus::nn
