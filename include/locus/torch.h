#pragma once
// Migration header: a libtorch program builds against locus after changing its one include line,
//   #include <torch/torch.h>   ->   #include <locus/torch.h>
// torch:: is locus:: (a namespace alias), TORCH_MODULE / TORCH_MODULE_IMPL / TORCH_ARG are
// locus's macros, TORCH_CHECK, TORCH_INTERNAL_ASSERT, AT_ASSERT and TORCH_WARN are defined,
// torch::optional is std::optional, and the c10:: and at:: names common programs spell (c10::Device,
// c10::DeviceGuard, c10::cuda::CUDAGuard, at::Tensor, at::kFloat, at::Reduction::Mean, ...) name
// locus's, and `std::cout << tensor` prints in libtorch's format (below). What still differs from
// libtorch is listed in docs/migrating-from-libtorch.md.
//
// Do not include this header together with libtorch's own: both define torch::, at:: and c10::.
#include <cassert>  // libtorch's torch.h brings assert()
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "locus/locus.h"

namespace torch = locus;

// A libtorch program prints tensors as libtorch does (locus/printing.h): including this header
// selects that style for the process, before main. Define LOCUS_TORCH_KEEP_PRINT_STYLE before
// including it to keep locus's default, PyTorch's Python repr.
#ifndef LOCUS_TORCH_KEEP_PRINT_STYLE
namespace locus::detail {
inline const bool torch_h_prints_as_libtorch = (::locus::set_print_style(::locus::PrintStyle::kLibtorch), true);
}  // namespace locus::detail
#endif

#define TORCH_MODULE(Name) LOCUS_MODULE(Name)
#define TORCH_MODULE_IMPL(Name, ImplType) LOCUS_MODULE_IMPL(Name, ImplType)
#define TORCH_ARG(T, name) LOCUS_ARG(T, name)

/// TORCH_CHECK(cond, message parts...): throws locus::Error (c10::Error) with the parts streamed
/// together, or "Expected <cond> to be true, but got false." when there are none.
#define TORCH_CHECK(cond, ...)                                                                   \
  do {                                                                                           \
    if (!(cond)) throw ::locus::Error(::locus::detail::torch_check_message(#cond __VA_OPT__(, ) __VA_ARGS__)); \
  } while (0)

/// TORCH_INTERNAL_ASSERT(cond, message parts...) and AT_ASSERT(cond, ...): throws locus::Error
/// "<cond> INTERNAL ASSERT FAILED at <file>:<line>" followed by the parts, as libtorch's.
#define TORCH_INTERNAL_ASSERT(cond, ...)                                                         \
  do {                                                                                           \
    if (!(cond))                                                                                 \
      throw ::locus::Error(::locus::detail::torch_assert_message(#cond, __FILE__, __LINE__ __VA_OPT__(, ) __VA_ARGS__)); \
  } while (0)
#define AT_ASSERT(cond, ...) TORCH_INTERNAL_ASSERT(cond __VA_OPT__(, ) __VA_ARGS__)
/// TORCH_WARN(message parts...): writes "[W file:line] Warning: <parts> (function <func>)" to
/// stderr each time it runs; TORCH_WARN_ONCE only the first time that line runs.
#define TORCH_WARN(...) ::locus::detail::torch_warn(__FILE__, __LINE__, __func__, ::locus::detail::torch_check_message("" __VA_OPT__(, ) __VA_ARGS__))
#define TORCH_WARN_ONCE(...)                                                                     \
  do {                                                                                           \
    static const bool locus_warned_once_ = (TORCH_WARN(__VA_ARGS__), true);                      \
    (void)locus_warned_once_;                                                                    \
  } while (0)

/// ATen's dispatch macros: AT_DISPATCH_FLOATING_TYPES(t.scalar_type(), "name", [&] { f<scalar_t>(t); })
/// runs the lambda with `scalar_t` the C++ type of the dtype (float, double, locus::Half, ...) and
/// returns what it returns; a dtype outside the list throws locus::Error: "name" not implemented
/// for 'Long', as libtorch's.
#define LOCUS_DISPATCH_CASE_(enum_value, ...)                                  \
  case enum_value: {                                                           \
    using scalar_t [[maybe_unused]] = ::locus::detail::cpp_type_t<enum_value>; \
    return __VA_ARGS__();                                                      \
  }
#define LOCUS_DISPATCH_SWITCH_(TYPE, NAME, CASES, ...)                                          \
  [&] {                                                                                           \
    const ::locus::ScalarType locus_dispatch_type_ = (TYPE);                                      \
    switch (locus_dispatch_type_) {                                                               \
      CASES                                                                                       \
      default:                                                                                    \
        throw ::locus::Error(std::string("\"") + (NAME) + "\" not implemented for '" +            \
                             ::locus::toString(locus_dispatch_type_) + "'");                     \
    }                                                                                             \
  }()
#define LOCUS_FLOATING_CASES_(...)                            \
  LOCUS_DISPATCH_CASE_(::locus::ScalarType::Double, __VA_ARGS__) \
  LOCUS_DISPATCH_CASE_(::locus::ScalarType::Float, __VA_ARGS__)
#define LOCUS_INTEGRAL_CASES_(...)                            \
  LOCUS_DISPATCH_CASE_(::locus::ScalarType::Byte, __VA_ARGS__)  \
  LOCUS_DISPATCH_CASE_(::locus::ScalarType::Char, __VA_ARGS__)  \
  LOCUS_DISPATCH_CASE_(::locus::ScalarType::Int, __VA_ARGS__)   \
  LOCUS_DISPATCH_CASE_(::locus::ScalarType::Long, __VA_ARGS__)  \
  LOCUS_DISPATCH_CASE_(::locus::ScalarType::Short, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  LOCUS_DISPATCH_SWITCH_(TYPE, NAME, LOCUS_FLOATING_CASES_(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  LOCUS_DISPATCH_SWITCH_(TYPE, NAME,                         \
                         LOCUS_FLOATING_CASES_(__VA_ARGS__) LOCUS_DISPATCH_CASE_(::locus::ScalarType::Half, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND(T1, TYPE, NAME, ...) \
  LOCUS_DISPATCH_SWITCH_(TYPE, NAME, LOCUS_FLOATING_CASES_(__VA_ARGS__) LOCUS_DISPATCH_CASE_(T1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND2(T1, T2, TYPE, NAME, ...)                                         \
  LOCUS_DISPATCH_SWITCH_(TYPE, NAME,                                                                      \
                         LOCUS_FLOATING_CASES_(__VA_ARGS__) LOCUS_DISPATCH_CASE_(T1, __VA_ARGS__)         \
                             LOCUS_DISPATCH_CASE_(T2, __VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  LOCUS_DISPATCH_SWITCH_(TYPE, NAME, LOCUS_INTEGRAL_CASES_(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) \
  LOCUS_DISPATCH_SWITCH_(TYPE, NAME, LOCUS_FLOATING_CASES_(__VA_ARGS__) LOCUS_INTEGRAL_CASES_(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND(T1, TYPE, NAME, ...)                                                       \
  LOCUS_DISPATCH_SWITCH_(TYPE, NAME,                                                                          \
                         LOCUS_FLOATING_CASES_(__VA_ARGS__) LOCUS_INTEGRAL_CASES_(__VA_ARGS__)                \
                             LOCUS_DISPATCH_CASE_(T1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND2(T1, T2, TYPE, NAME, ...)                                                  \
  LOCUS_DISPATCH_SWITCH_(TYPE, NAME,                                                                          \
                         LOCUS_FLOATING_CASES_(__VA_ARGS__) LOCUS_INTEGRAL_CASES_(__VA_ARGS__)                \
                             LOCUS_DISPATCH_CASE_(T1, __VA_ARGS__) LOCUS_DISPATCH_CASE_(T2, __VA_ARGS__))

namespace locus::detail {
/// The C++ type of a dtype (ATen's ScalarTypeToCPPType), for the dispatch macros.
template <ScalarType T> struct CppType;
template <> struct CppType<ScalarType::Byte> { using type = uint8_t; };
template <> struct CppType<ScalarType::Char> { using type = int8_t; };
template <> struct CppType<ScalarType::Short> { using type = int16_t; };
template <> struct CppType<ScalarType::Int> { using type = int32_t; };
template <> struct CppType<ScalarType::Long> { using type = int64_t; };
template <> struct CppType<ScalarType::Half> { using type = ::locus::Half; };
template <> struct CppType<ScalarType::BFloat16> { using type = ::locus::BFloat16; };
template <> struct CppType<ScalarType::Float> { using type = float; };
template <> struct CppType<ScalarType::Double> { using type = double; };
template <> struct CppType<ScalarType::Bool> { using type = bool; };
template <ScalarType T>
using cpp_type_t = typename CppType<T>::type;
}  // namespace locus::detail

namespace locus {
/// torch::optional / torch::nullopt (libtorch's aliases of c10::optional, i.e. std::optional).
template <typename T>
using optional = std::optional<T>;
inline constexpr std::nullopt_t nullopt = std::nullopt;
/// torch::str (c10::str): its arguments written one after the other to a string, as operator<<
/// writes them: torch::str("sample-", 3, ".pt") is "sample-3.pt".
template <typename... Parts>
std::string str(const Parts&... parts) {
  std::ostringstream s;
  (s << ... << parts);
  return s.str();
}
}  // namespace locus

namespace locus::detail {
template <typename... Parts>
std::string torch_assert_message(const char* cond, const char* file, int line, const Parts&... parts) {
  std::ostringstream s;
  s << cond << " INTERNAL ASSERT FAILED at " << file << ":" << line;
  if constexpr (sizeof...(parts) > 0) {
    s << ": ";
    (s << ... << parts);
  }
  return s.str();
}
inline void torch_warn(const char* file, int line, const char* function, const std::string& message) {
  std::cerr << "[W " << file << ":" << line << "] Warning: " << message << " (function " << function << ")\n";
}
inline std::string torch_check_message(const char* cond) {
  return std::string("Expected ") + cond + " to be true, but got false.";
}
template <typename... Parts>
std::string torch_check_message(const char* /*cond*/, const Parts&... parts) {
  std::ostringstream s;
  (s << ... << parts);
  return s.str();
}
}  // namespace locus::detail

namespace caffe2 {
// caffe2::TypeMeta::Make<float>(), as torch::set_default_dtype takes it.
using ::locus::TypeMeta;
}  // namespace caffe2

namespace c10 {
// Every other c10:: name a program spells (c10::Device, c10::kCUDA, c10::ScalarType, c10::Half,
// c10::IntArrayRef, ...) is found in locus by this directive.
using namespace ::locus;

/// c10::DeviceTypeName: "CPU", "CUDA", "OPENCL" (or lower case, as locus::device_type_name).
inline std::string DeviceTypeName(::locus::DeviceType type, bool lower_case = false) {
  std::string name = ::locus::device_type_name(type);
  if (!lower_case)
    for (char& c : name) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return name;
}

/// c10::DeviceGuard: sets the current index of a device type for the scope (locus::DeviceGuard).
using DeviceGuard = ::locus::DeviceGuard;
template <typename T>
using optional = std::optional<T>;
inline constexpr std::nullopt_t nullopt = std::nullopt;

namespace cuda {
using namespace ::locus::cuda;  // c10::cuda::device_count(), ...

/// c10::cuda::CUDAGuard: makes a CUDA device current for the scope. Accepts an index or a cuda
/// Device; any other device type throws locus::Error, as libtorch's does.
class CUDAGuard {
 public:
  explicit CUDAGuard(::locus::DeviceIndex index) : guard_(::locus::Device(::locus::kCUDA, index)) {}
  explicit CUDAGuard(::locus::Device device) : guard_(checked(device)) {}
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;
  ::locus::Device original_device() const { return guard_.original_device(); }
  ::locus::Device current_device() const { return guard_.current_device(); }

 private:
  static ::locus::Device checked(::locus::Device d) {
    if (!d.is_cuda())
      throw ::locus::Error("CUDAGuard(" + d.str() + "): expected a cuda device; use locus::DeviceGuard for " +
                           ::locus::device_type_name(d.type()) + " devices.");
    return d;
  }
  ::locus::DeviceGuard guard_;
};

/// c10::cuda::CUDAStream (c10/cuda/CUDAStream.h): a locus::Stream on a cuda device. A stream of
/// any other device type throws locus::Error.
class CUDAStream {
 public:
  explicit CUDAStream(::locus::Stream stream) : stream_(checked(std::move(stream))) {}
  ::locus::Device device() const { return stream_.device(); }
  ::locus::DeviceIndex device_index() const { return stream_.device().index(); }
  /// Blocks until the work queued on the stream has completed.
  void synchronize() const { stream_.synchronize(); }
  ::locus::Stream unwrap() const { return stream_; }
  operator ::locus::Stream() const { return stream_; }
  bool operator==(const CUDAStream& other) const { return stream_ == other.stream_; }
  bool operator!=(const CUDAStream& other) const { return stream_ != other.stream_; }

 private:
  static ::locus::Stream checked(::locus::Stream s) {
    if (!s.device().is_cuda())
      throw ::locus::Error("CUDAStream: expected a stream on a cuda device, got one on " + s.device().str() +
                           "; use locus::Stream for " + ::locus::device_type_name(s.device().type()) + " devices.");
    return s;
  }
  ::locus::Stream stream_;
};

/// A new stream on cuda device `device` (-1: the current one). locus keeps no pool: each call
/// creates a stream, destroyed with its last copy; priorities are not supported (ignored).
inline CUDAStream getStreamFromPool(bool /*isHighPriority*/ = false, ::locus::DeviceIndex device = -1) {
  return CUDAStream(::locus::Stream::create(::locus::Device(::locus::kCUDA, device)));
}
/// The default stream of cuda device `device` (-1: the current one).
inline CUDAStream getDefaultCUDAStream(::locus::DeviceIndex device = -1) {
  return CUDAStream(::locus::Stream::default_stream(::locus::Device(::locus::kCUDA, device)));
}
/// The current stream of cuda device `device` on this thread (the default one outside a guard).
inline CUDAStream getCurrentCUDAStream(::locus::DeviceIndex device = -1) {
  return CUDAStream(::locus::Stream::current(getDefaultCUDAStream(device).device()));
}

/// c10::cuda::CUDAStreamGuard: makes `stream` current on its device for the scope.
class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(const CUDAStream& stream)
      : original_(getCurrentCUDAStream(stream.device_index())), current_(stream), guard_(stream.unwrap()) {}
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;
  CUDAStream original_stream() const { return original_; }
  CUDAStream current_stream() const { return current_; }

 private:
  CUDAStream original_, current_;
  ::locus::StreamGuard guard_;
};
}  // namespace cuda
}  // namespace c10

namespace locus {
/// libtorch's cuda generator type: make_generator<CUDAGeneratorImpl>(device_index) (locus/generator.h).
class CUDAGeneratorImpl : public GeneratorImpl {
 public:
  explicit CUDAGeneratorImpl(DeviceIndex device_index = -1, uint64_t seed = default_rng_seed_val)
      : GeneratorImpl(Device(kCUDA, device_index), seed) {}
  static DeviceType device_type() { return kCUDA; }
};
}  // namespace locus

namespace at {
// at::Tensor, at::kFloat, at::zeros, at::Reduction::Mean, ... are locus's.
using namespace ::locus;
namespace cuda {
// at::cuda::getCurrentCUDAStream(), at::cuda::CUDAStream, and locus::cuda's device_count(), ...
using namespace ::c10::cuda;
namespace detail {
/// at::cuda::detail's generators: the default one (the process stream) and new ones.
inline Generator getDefaultCUDAGenerator(DeviceIndex device_index = -1) {
  return ::locus::default_generator(Device(kCUDA, device_index));
}
inline Generator createCUDAGenerator(DeviceIndex device_index = -1) {
  return ::locus::make_generator<::locus::CUDAGeneratorImpl>(device_index);
}
}  // namespace detail
}  // namespace cuda
/// at::globalContext(): the one setting of it that locus has, setFlushDenormal
/// (locus::set_flush_denormal, locus/parallel.h).
struct Context {
  bool setFlushDenormal(bool on) { return ::locus::set_flush_denormal(on); }
  /// The default generator for a device (locus/generator.h): every device type's is the one
  /// process stream that manual_seed seeds.
  Generator defaultGenerator(Device device) { return ::locus::default_generator(device); }
};
inline Context& globalContext() {
  static Context context;
  return context;
}
}  // namespace at
