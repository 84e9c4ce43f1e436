#pragma once
// Element types, spelled as libtorch's ScalarType, and PyTorch's type-promotion rules.
#include <cstddef>
#include <cstdint>
#include <iosfwd>

#include "locus/half.h"

namespace locus {

enum class ScalarType : int8_t {
  Byte = 0,      // uint8
  Int = 1,       // int32
  Long = 2,      // int64
  Half = 3,      // float16
  Float = 4,     // float32
  Double = 5,    // float64
  Bool = 6,
  BFloat16 = 7,
  Char = 8,      // int8
  Short = 9,     // int16
  Undefined = 10,
};
constexpr int kNumScalarTypes = 10;
using Dtype = ScalarType;

constexpr ScalarType kByte = ScalarType::Byte, kUInt8 = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char, kInt8 = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short, kInt16 = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int, kInt32 = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long, kInt64 = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half, kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float, kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double, kFloat64 = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
// libtorch's short spellings (torch/types.h)
constexpr ScalarType kU8 = kByte, kI8 = kChar, kI16 = kShort, kI32 = kInt, kI64 = kLong;
constexpr ScalarType kF16 = kHalf, kF32 = kFloat, kF64 = kDouble;

/// Bytes per element.
size_t element_size(ScalarType t);
inline size_t elementSize(ScalarType t) { return element_size(t); }
/// PyTorch's names: "float32", "int64", "bool", ...
const char* dtype_name(ScalarType t);
/// libtorch's names: "Float", "Long", ...
const char* toString(ScalarType t);

constexpr bool is_floating_point(ScalarType t) {
  return t == kFloat || t == kDouble || t == kHalf || t == kBFloat16;
}
constexpr bool is_integral(ScalarType t, bool include_bool = false) {
  return t == kByte || t == kChar || t == kShort || t == kInt || t == kLong || (include_bool && t == kBool);
}
inline bool isFloatingType(ScalarType t) { return is_floating_point(t); }
inline bool isIntegralType(ScalarType t, bool include_bool) { return is_integral(t, include_bool); }

/// torch.promote_types: the smallest type both operands convert to without losing category.
ScalarType promote_types(ScalarType a, ScalarType b);
inline ScalarType promoteTypes(ScalarType a, ScalarType b) { return promote_types(a, b); }

/// The dtype factories use for floating results when none is named (float32, settable).
ScalarType default_dtype();
void set_default_dtype(ScalarType t);
/// libtorch's torch::get_default_dtype_as_scalartype() (get_default_dtype(), the TypeMeta, is below).
inline ScalarType get_default_dtype_as_scalartype() { return default_dtype(); }

std::ostream& operator<<(std::ostream& os, ScalarType t);

/// What Tensor::dtype() returns: a ScalarType (it converts implicitly, so t.dtype() == kFloat,
/// switch (t.dtype()) and passing it as a ScalarType work) with the members of libtorch's
/// caffe2::TypeMeta that programs use.
class TypeMeta {
 public:
  constexpr TypeMeta(ScalarType t = ScalarType::Float) noexcept : t_(t) {}
  constexpr operator ScalarType() const noexcept { return t_; }
  constexpr ScalarType toScalarType() const noexcept { return t_; }
  /// The C++ element type's name as libtorch gives it: "float", "long int", "c10::Half", ...
  const char* name() const noexcept;
  size_t itemsize() const { return element_size(t_); }
  /// The TypeMeta of C++ type T (caffe2::TypeMeta::Make<float>()).
  template <typename T>
  static constexpr TypeMeta Make() noexcept;

 private:
  ScalarType t_;
};

/// Prints a dtype as libtorch prints a TypeMeta, its C++ type name ("float", "long int"), in the
/// libtorch print style (locus/printing.h, chosen by <locus/torch.h>); as its ScalarType ("Float")
/// in locus's default style.
std::ostream& operator<<(std::ostream& os, TypeMeta t);
/// libtorch's conversions between the two (c10::typeMetaToScalarType, scalarTypeToTypeMeta).
constexpr ScalarType typeMetaToScalarType(TypeMeta t) noexcept { return t.toScalarType(); }
constexpr TypeMeta scalarTypeToTypeMeta(ScalarType t) noexcept { return TypeMeta(t); }

/// Maps a C++ type to its ScalarType: CppTypeToScalarType<float>::value == kFloat.
template <typename T> struct CppTypeToScalarType;
template <> struct CppTypeToScalarType<uint8_t> { static constexpr ScalarType value = kByte; };
template <> struct CppTypeToScalarType<int8_t> { static constexpr ScalarType value = kChar; };
template <> struct CppTypeToScalarType<int16_t> { static constexpr ScalarType value = kShort; };
template <> struct CppTypeToScalarType<int32_t> { static constexpr ScalarType value = kInt; };
template <> struct CppTypeToScalarType<int64_t> { static constexpr ScalarType value = kLong; };
template <> struct CppTypeToScalarType<Half> { static constexpr ScalarType value = kHalf; };
template <> struct CppTypeToScalarType<float> { static constexpr ScalarType value = kFloat; };
template <> struct CppTypeToScalarType<double> { static constexpr ScalarType value = kDouble; };
template <> struct CppTypeToScalarType<bool> { static constexpr ScalarType value = kBool; };
template <> struct CppTypeToScalarType<BFloat16> { static constexpr ScalarType value = kBFloat16; };

template <typename T>
constexpr TypeMeta TypeMeta::Make() noexcept {
  return TypeMeta(CppTypeToScalarType<T>::value);
}
/// libtorch's torch::get_default_dtype(): the default dtype as a TypeMeta (prints "float").
inline TypeMeta get_default_dtype() { return TypeMeta(default_dtype()); }

}  // namespace locus
