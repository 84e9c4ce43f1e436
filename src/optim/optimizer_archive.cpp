// Optimizer::save / Optimizer::load over libtorch's archives (locus/archive.h), and
// archive << optimizer / archive >> optimizer.
#include "io/load_internal.h"
#include "locus/archive.h"
#include "locus/optim/optimizer.h"

namespace locus::optim {

void Optimizer::save(serialize::OutputArchive& archive) const {
  for (const auto& item : state_dict()) archive.write(item.key(), item.value());
}

void Optimizer::load(serialize::InputArchive& archive) {
  OrderedDict<std::string, Tensor> tensors("Archive key");
  for (const std::string& key : archive.keys()) {
    Tensor t;
    archive.read(key, t);
    tensors.insert(key, t);
  }
  const std::string where = "[Optimizer::load] " + (archive.path().empty() ? std::string("the archive") : archive.path());
  io::load_optimizer_state(*this, tensors, archive.metadata(), where, /*among_others=*/true);
}

serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Optimizer& optimizer) {
  optimizer.save(archive);
  return archive;
}

serialize::InputArchive& operator>>(serialize::InputArchive& archive, Optimizer& optimizer) {
  optimizer.load(archive);
  return archive;
}

}  // namespace locus::optim
