#pragma once
// How `std::cout << tensor` writes a tensor, and libtorch's at::print.
//
// Two styles: PyTorch's Python repr, `tensor([[1., 2.]], device='opencl:0', dtype=float16)`, the
// default; and libtorch's C++ format, the values in columns followed by `[ CPUFloatType{1,2} ]`,
// which <locus/torch.h> selects when a program includes it, so that a libtorch program ported by
// changing its include line prints what it printed before.
#include <cstdint>
#include <ostream>

#include "locus/tensor.h"

namespace locus {

enum class PrintStyle {
  kPython,    ///< tensor([[1.0000, 2.5000]], device='opencl:0'): PyTorch's repr (the default)
  kLibtorch,  ///< " 1.0000  2.5000\n[ CPUFloatType{1,2} ]": libtorch's operator<< and at::print
};

/// The style `operator<<(std::ostream&, const Tensor&)` uses, for the whole process.
void set_print_style(PrintStyle style);
PrintStyle print_style();

/// libtorch's at::print: writes `t` to `stream` in libtorch's format whatever the print style:
/// values converted to double, one per line for 1-D tensors, a matrix per 2-D slice (slices of
/// higher dimensions headed "(i,j,.,.) = ", the first index varying fastest as libtorch's), a
/// common "scale *" line or scientific notation when the magnitudes call for it, columns wrapped
/// at `linesize` characters ("Columns 1 to 8"), then "[ CPUFloatType{2,3} ]".
std::ostream& print(std::ostream& stream, const Tensor& t, int64_t linesize);
/// at::print(t, linesize): the same to std::cout.
void print(const Tensor& t, int64_t linesize = 80);

}  // namespace locus
