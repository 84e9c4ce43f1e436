#pragma once
// IValue: the value a custom autograd Function keeps in ctx->saved_data (libtorch's c10::IValue,
// the subset such code uses): none, bool, int, double, string, tensor, list of ints, list of
// tensors. The to*() accessors throw locus::Error naming the held and the asked-for kind.
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "locus/scalar.h"
#include "locus/tensor.h"

namespace locus {

class IValue {
 public:
  IValue() = default;  // None
  IValue(bool v) : v_(v) {}
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  IValue(I v) : v_(static_cast<int64_t>(v)) {}
  IValue(double v) : v_(v) {}
  IValue(float v) : v_(static_cast<double>(v)) {}
  IValue(const Scalar& s) {
    if (s.isFloatingPoint()) v_ = s.toDouble();
    else if (s.isBoolean()) v_ = s.toBool();
    else v_ = s.toLong();
  }
  IValue(std::string v) : v_(std::move(v)) {}
  IValue(const char* v) : v_(std::string(v)) {}
  IValue(Tensor v) : v_(std::move(v)) {}
  IValue(std::vector<int64_t> v) : v_(std::move(v)) {}
  IValue(IntArrayRef v) : v_(std::vector<int64_t>(v.begin(), v.end())) {}
  IValue(std::vector<Tensor> v) : v_(std::move(v)) {}

  bool isNone() const { return v_.index() == 0; }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(v_); }
  bool isTensorList() const { return std::holds_alternative<std::vector<Tensor>>(v_); }

  bool toBool() const { return get<bool>("Bool"); }
  int64_t toInt() const { return get<int64_t>("Int"); }
  double toDouble() const { return get<double>("Double"); }
  Scalar toScalar() const {
    if (isDouble()) return Scalar(std::get<double>(v_));
    if (isBool()) return Scalar(std::get<bool>(v_));
    return Scalar(get<int64_t>("Scalar"));
  }
  const std::string& toStringRef() const { return get<std::string>("String"); }
  std::string toString() const { return toStringRef(); }
  Tensor toTensor() const { return get<Tensor>("Tensor"); }
  std::vector<int64_t> toIntVector() const { return get<std::vector<int64_t>>("IntList"); }
  std::vector<Tensor> toTensorVector() const { return get<std::vector<Tensor>>("TensorList"); }
  /// "None", "Bool", "Int", "Double", "String", "Tensor", "IntList" or "TensorList".
  const char* tagKind() const;

 private:
  template <class T>
  const T& get(const char* want) const {
    if (const T* p = std::get_if<T>(&v_)) return *p;
    throw_wrong_kind(want);
  }
  [[noreturn]] void throw_wrong_kind(const char* want) const;

  std::variant<std::monostate, bool, int64_t, double, std::string, Tensor, std::vector<int64_t>, std::vector<Tensor>> v_;
};

}  // namespace locus
