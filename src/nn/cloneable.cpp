// Module::clone for modules that are not Cloneable: the error libtorch gives, in locus's style.
#include "locus/nn/cloneable.h"

namespace locus::nn {

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  throw Error("[clone] clone() has not been implemented for " + name() +
              ": derive its class from nn::Cloneable<the class> instead of nn::Module, and register its parameters, "
              "buffers and submodules in reset() (locus/nn/cloneable.h).");
}

void Module::clone_(Module& other, const std::optional<Device>& device) {
  throw Error("[clone] " + path() + " (" + name() + ") cannot take the state of a clone of " + other.name() +
              ": derive its class from nn::Cloneable<the class> instead of nn::Module (locus/nn/cloneable.h).");
}

}  // namespace locus::nn
