#include "locus/dtype.h"

#include <atomic>
#include <ostream>

#include "locus/error.h"

namespace locus {

size_t element_size(ScalarType t) {
  switch (t) {
    case kByte: case kChar: case kBool: return 1;
    case kShort: case kHalf: case kBFloat16: return 2;
    case kInt: case kFloat: return 4;
    case kLong: case kDouble: return 8;
    default: throw Error("[element_size] undefined dtype.");
  }
}

const char* dtype_name(ScalarType t) {
  switch (t) {
    case kByte: return "uint8";
    case kChar: return "int8";
    case kShort: return "int16";
    case kInt: return "int32";
    case kLong: return "int64";
    case kHalf: return "float16";
    case kFloat: return "float32";
    case kDouble: return "float64";
    case kBool: return "bool";
    case kBFloat16: return "bfloat16";
    default: return "undefined";
  }
}

const char* toString(ScalarType t) {
  switch (t) {
    case kByte: return "Byte";
    case kChar: return "Char";
    case kShort: return "Short";
    case kInt: return "Int";
    case kLong: return "Long";
    case kHalf: return "Half";
    case kFloat: return "Float";
    case kDouble: return "Double";
    case kBool: return "Bool";
    case kBFloat16: return "BFloat16";
    default: return "Undefined";
  }
}

const char* TypeMeta::name() const noexcept {
  switch (t_) {  // libtorch's (the demangled C++ type names GCC gives)
    case kByte: return "unsigned char";
    case kChar: return "signed char";
    case kShort: return "short int";
    case kInt: return "int";
    case kLong: return "long int";
    case kHalf: return "c10::Half";
    case kFloat: return "float";
    case kDouble: return "double";
    case kBool: return "bool";
    case kBFloat16: return "c10::BFloat16";
    default: return "nullptr (uninitialized)";
  }
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined || b == ScalarType::Undefined)
    throw Error("[promote_types] undefined dtype.");
  // PyTorch's table (torch.promote_types) restricted to our types, in enum order; int8 with uint8
  // is int16, the smallest type holding both ranges. tests/core/dtype_test.cpp checks every pair
  // against torch.promote_types itself.
  constexpr ScalarType u8 = kByte, i8 = kChar, i16 = kShort, i32 = kInt, i64 = kLong, f16 = kHalf, f32 = kFloat,
                       f64 = kDouble, b1 = kBool, bf = kBFloat16;
  static constexpr ScalarType table[kNumScalarTypes][kNumScalarTypes] = {
      /*         u8   i32  i64  f16  f32  f64  b1   bf   i8   i16 */
      /* u8  */ {u8, i32, i64, f16, f32, f64, u8, bf, i16, i16},
      /* i32 */ {i32, i32, i64, f16, f32, f64, i32, bf, i32, i32},
      /* i64 */ {i64, i64, i64, f16, f32, f64, i64, bf, i64, i64},
      /* f16 */ {f16, f16, f16, f16, f32, f64, f16, f32, f16, f16},
      /* f32 */ {f32, f32, f32, f32, f32, f64, f32, f32, f32, f32},
      /* f64 */ {f64, f64, f64, f64, f64, f64, f64, f64, f64, f64},
      /* b1  */ {u8, i32, i64, f16, f32, f64, b1, bf, i8, i16},
      /* bf  */ {bf, bf, bf, f32, f32, f64, bf, bf, bf, bf},
      /* i8  */ {i16, i32, i64, f16, f32, f64, i8, bf, i8, i16},
      /* i16 */ {i16, i32, i64, f16, f32, f64, i16, bf, i16, i16},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

namespace {
std::atomic<ScalarType> g_default_dtype{kFloat};
}
ScalarType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(ScalarType t) {
  if (!is_floating_point(t))
    throw Error(std::string("[set_default_dtype] the default dtype must be a floating type, got ") +
                dtype_name(t) + ".");
  g_default_dtype = t;
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << toString(t); }

}  // namespace locus
