#pragma once
// Scalar: a number of any of our dtypes' categories (bool, integer, floating).
#include <cstdint>
#include <ostream>
#include <type_traits>

#include "locus/dtype.h"

namespace locus {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Double };
  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Double), d_(static_cast<double>(v)) {}
  Scalar(Half v) : kind_(Kind::Double), d_(static_cast<float>(v)) {}
  Scalar(BFloat16 v) : kind_(Kind::Double), d_(static_cast<float>(v)) {}

  Kind kind() const { return kind_; }
  bool isFloatingPoint() const { return kind_ == Kind::Double; }
  bool isIntegral(bool include_bool) const { return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool); }
  bool isBoolean() const { return kind_ == Kind::Bool; }
  double toDouble() const { return kind_ == Kind::Double ? d_ : static_cast<double>(i_); }
  float toFloat() const { return static_cast<float>(toDouble()); }
  int64_t toLong() const { return kind_ == Kind::Double ? static_cast<int64_t>(d_) : i_; }
  int toInt() const { return static_cast<int>(toLong()); }
  bool toBool() const { return kind_ == Kind::Double ? d_ != 0 : i_ != 0; }
  template <typename T> T to() const;
  /// The dtype PyTorch gives a tensor made from this number: float (default dtype), int64, bool.
  ScalarType type() const;

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

template <> inline double Scalar::to<double>() const { return toDouble(); }
template <> inline float Scalar::to<float>() const { return toFloat(); }
template <> inline int64_t Scalar::to<int64_t>() const { return toLong(); }
template <> inline int32_t Scalar::to<int32_t>() const { return toInt(); }
template <> inline bool Scalar::to<bool>() const { return toBool(); }
template <> inline uint8_t Scalar::to<uint8_t>() const { return static_cast<uint8_t>(toLong()); }
template <> inline int8_t Scalar::to<int8_t>() const { return static_cast<int8_t>(toLong()); }
template <> inline int16_t Scalar::to<int16_t>() const { return static_cast<int16_t>(toLong()); }
template <> inline Half Scalar::to<Half>() const { return Half(toFloat()); }
template <> inline BFloat16 Scalar::to<BFloat16>() const { return BFloat16(toFloat()); }

/// As libtorch prints a Scalar: a floating-point value as a double (the stream's format), a bool
/// as true / false, an integer as an int64.
std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace locus
