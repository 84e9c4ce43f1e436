#include <locus/locus.h>
#include <locus/version.h>

#include <iostream>

static_assert(LOCUS_VERSION_MAJOR >= 0 && LOCUS_VERSION_MINOR >= 0 && LOCUS_VERSION_PATCH >= 0);

int main() {
  locus::Tensor x = locus::arange(6, locus::dtype(locus::kFloat)).view({2, 3});
  locus::Tensor s = x.sum();
  std::cout << "sum=" << s.item<float>() << " device=" << x.device() << " locus " << LOCUS_VERSION
            << " C++ " << __cplusplus << "\n";
  return s.item<float>() == 15.0f ? 0 : 1;
}
