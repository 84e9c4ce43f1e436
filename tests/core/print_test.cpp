// Printing in libtorch's style (locus/printing.h): every tensor of libtorch_print_cases.h printed
// by locus equals what libtorch 1.13 printed for it (libtorch_print_expected.h, made by
// libtorch_print_reference.cpp): integer and fixed notation, common scale lines, scientific
// notation, NaN and infinities, 0-d to 5-d, empty tensors, every dtype's type name, column
// blocks of wide matrices, and libtorch's order of the slices of higher dimensions. Also: the
// style switch, at::print's line size, the stream's own format kept, device tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>

#define LOCUS_TORCH_KEEP_PRINT_STYLE  // this binary's other tests check the default style
#include "locus/torch.h"
#include "testing.h"

#include "libtorch_print_expected.h"

namespace {

// The expected text of each case, split at its "=== name" lines.
std::map<std::string, std::string> expected_cases() {
  std::map<std::string, std::string> out;
  std::istringstream in(kLibtorchPrinted);
  std::string line, name, body;
  while (std::getline(in, line)) {
    if (line.rfind("=== ", 0) == 0) {
      if (!name.empty()) out[name] = body;
      name = line.substr(4);
      body.clear();
    } else if (!name.empty()) {
      body += line + "\n";
    }
  }
  if (!name.empty()) out[name] = body;
  return out;
}

struct StyleScope {
  explicit StyleScope(locus::PrintStyle s) : saved(locus::print_style()) { locus::set_print_style(s); }
  ~StyleScope() { locus::set_print_style(saved); }
  locus::PrintStyle saved;
};

TEST(LibtorchPrint, EveryCaseAsLibtorchPrintsIt) {
  const auto want = expected_cases();
  ASSERT_GE(want.size(), 50u);
  StyleScope style(locus::PrintStyle::kLibtorch);
  int checked = 0;
#define CASE(name, expr)                                                     \
  {                                                                          \
    std::ostringstream got;                                                  \
    got << (expr) << "\n";                                                   \
    ASSERT_TRUE(want.count(#name)) << #name;                                 \
    EXPECT_EQ(got.str(), want.at(#name)) << "case " #name ": " #expr;        \
    ++checked;                                                               \
  }
#include "libtorch_print_cases.h"
#undef CASE
  std::ostringstream undefined;
  undefined << torch::Tensor() << "\n";
  EXPECT_EQ(undefined.str(), want.at("undefined"));
  EXPECT_EQ(checked + 1, static_cast<int>(want.size()));
}

// at::print writes libtorch's format whatever the style, with its line size; the default style
// stays Python's repr; the stream's float format, precision and width are as before afterwards
// (the expected strings are libtorch 1.13's for the same calls).
TEST(LibtorchPrint, PrintFunctionLineSizeAndStreamState) {
  ASSERT_EQ(locus::print_style(), locus::PrintStyle::kPython);
  const torch::Tensor t = torch::arange(6).reshape({2, 3}).to(torch::kFloat) + 0.5;
  std::ostringstream narrow;
  torch::print(narrow, t, 20);  // two columns of width 6 + 1 fit in 20
  EXPECT_EQ(narrow.str(),
            "Columns 1 to 2 0.5000  1.5000\n 3.5000  4.5000\n\nColumns 3 to 3 2.5000\n 5.5000\n[ CPUFloatType{2,3} ]");
  std::ostringstream python;
  python << t;
  EXPECT_EQ(python.str(), "tensor([[0.5000, 1.5000, 2.5000],\n        [3.5000, 4.5000, 5.5000]])");
  std::ostringstream state;
  state << std::setprecision(3) << std::fixed;
  torch::print(state, torch::tensor({1e-5, 1.0, 1000.0}), 80);
  state << " " << 3.14159;
  EXPECT_EQ(state.str(), " 1.0000e-05\n 1.0000e+00\n 1.0000e+03\n[ CPUFloatType{3} ] 3.142");
  // a 0-d tensor takes the stream's precision, as libtorch's
  std::ostringstream scalar;
  scalar << std::setprecision(3);
  torch::print(scalar, torch::tensor(3.14159), 80);
  EXPECT_EQ(scalar.str(), "3.14\n[ CPUFloatType{} ]");
}

// Tensors on other devices print their values from the host and their device's type name;
// a tensor that requires grad prints as any other (libtorch shows no grad_fn).
class LibtorchPrintDevices : public ::testing::TestWithParam<locus::Device> {};

TEST_P(LibtorchPrintDevices, ValuesFromTheHostAndTheDevicesTypeName) {
  const locus::Device d = GetParam();
  const torch::Tensor t = torch::tensor({{1.5, -2.0}, {0.25, 8.0}}).to(d).set_requires_grad(true) * 2;
  StyleScope style(locus::PrintStyle::kLibtorch);
  std::ostringstream got;
  got << t;
  std::string type = t.toString();
  EXPECT_EQ(got.str(), "  3.0000  -4.0000\n  0.5000  16.0000\n[ " + type + "{2,2} ]");  // as libtorch 1.13
  EXPECT_EQ(type.substr(type.size() - 9), "FloatType");
  if (d.is_cpu()) EXPECT_EQ(type, "CPUFloatType");
}
LOCUS_INSTANTIATE_DEVICES(LibtorchPrintDevices);

}  // namespace

namespace {

// Modules print with libtorch's names in the libtorch style (torch::nn::Linear, as libtorch 1.13
// printed this Sequential), with locus's in the default one.
TEST(LibtorchPrint, ModulesPrintTorchNnNamesInTheLibtorchStyle) {
  torch::nn::Sequential seq(torch::nn::Linear(4, 5), torch::nn::ReLU());
  std::ostringstream lt, py;
  {
    StyleScope style(locus::PrintStyle::kLibtorch);
    lt << seq;
  }
  py << seq;
  EXPECT_EQ(lt.str(), "torch::nn::Sequential(\n  (0): torch::nn::Linear(in_features=4, out_features=5, bias=true)\n"
                      "  (1): torch::nn::ReLU()\n)");
  EXPECT_EQ(py.str(), "locus::nn::Sequential(\n  (0): locus::nn::Linear(in_features=4, out_features=5, bias=true)\n"
                      "  (1): locus::nn::ReLU()\n)");
}

}  // namespace

namespace {

// The other things libtorch programs print, as libtorch 1.13 printed them (d6 of the stop-46
// differential run): a dtype as its C++ type name, a Scalar, the layout, a tensor's options.
TEST(LibtorchPrint, DtypesScalarsLayoutAndOptions) {
  const torch::Tensor t = torch::ones({2, 3});
  auto text = [](auto&&... parts) {
    std::ostringstream s;
    ((s << parts << "|"), ...);
    return s.str();
  };
  // locus's default style: dtypes by their ScalarType names
  EXPECT_EQ(text(t.dtype(), t.to(torch::kLong).dtype()), "Float|Long|");
  StyleScope style(locus::PrintStyle::kLibtorch);
  EXPECT_EQ(text(t.dtype(), t.scalar_type(), t.device(), t.sizes(), t.strides()), "float|Float|cpu|[2, 3]|[3, 1]|");
  EXPECT_EQ(text(t.to(torch::kInt).dtype(), t.to(torch::kDouble).dtype(), t.to(torch::kLong).dtype(),
                 t.to(torch::kHalf).dtype(), t.to(torch::kBFloat16).dtype(), t.to(torch::kByte).dtype(),
                 t.to(torch::kChar).dtype(), t.to(torch::kShort).dtype(), t.to(torch::kBool).dtype()),
            "int|double|long int|c10::Half|c10::BFloat16|unsigned char|signed char|short int|bool|");
  EXPECT_EQ(text(t.sum().item(), torch::tensor(3).item(), torch::tensor(true).item(), torch::tensor(2.5).item()),
            "6|3|true|2.5|");
  EXPECT_EQ(text(t.layout(), t.dtype().name(), t.dtype().itemsize(), torch::typeMetaToScalarType(t.dtype())),
            "Strided|float|4|Float|");
  EXPECT_EQ(text(t.options()),
            "TensorOptions(dtype=float, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))|");
  std::ostringstream after;
  after << torch::TensorOptions() << " " << true;  // libtorch leaves std::boolalpha set
  EXPECT_EQ(after.str().substr(after.str().size() - 5), " true");
  EXPECT_EQ(text(torch::TensorOptions()),
            "TensorOptions(dtype=float (default), device=cpu (default), layout=Strided (default), requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))|");
}

}  // namespace
