#include "locus/dtype.h"

#include <atomic>
#include <ostream>

#include "locus/error.h"

namespace locus {

size_t element_size(ScalarType t) {
  switch (t) {
    case kByte: case kBool: return 1;
    case kHalf: case kBFloat16: return 2;
    case kInt: case kFloat: return 4;
    case kLong: case kDouble: return 8;
    default: throw Error("element_size(): undefined dtype.");
  }
}

const char* dtype_name(ScalarType t) {
  switch (t) {
    case kByte: return "uint8";
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

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined || b == ScalarType::Undefined)
    throw Error("promote_types(): undefined dtype.");
  // PyTorch's table restricted to our types. Order: u1 i4 i8 f2 f4 f8 b1 bf
  constexpr ScalarType u1 = kByte, i4 = kInt, i8 = kLong, f2 = kHalf, f4 = kFloat, f8 = kDouble,
                       b1 = kBool, bf = kBFloat16;
  static constexpr ScalarType table[8][8] = {
      /*        u1  i4  i8  f2  f4  f8  b1  bf */
      /* u1 */ {u1, i4, i8, f2, f4, f8, u1, bf},
      /* i4 */ {i4, i4, i8, f2, f4, f8, i4, bf},
      /* i8 */ {i8, i8, i8, f2, f4, f8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f4, f8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8},
      /* b1 */ {u1, i4, i8, f2, f4, f8, b1, bf},
      /* bf */ {bf, bf, bf, f4, f4, f8, bf, bf},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

namespace {
std::atomic<ScalarType> g_default_dtype{kFloat};
}
ScalarType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(ScalarType t) {
  if (!is_floating_point(t))
    throw Error(std::string("set_default_dtype(): the default dtype must be a floating type, got ") +
                dtype_name(t) + ".");
  g_default_dtype = t;
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << toString(t); }

}  // namespace locus
