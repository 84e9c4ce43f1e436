#pragma once
// Errors: every failure locus reports is a locus::Error (or a subclass) whose message reads
//   "[op] what is wrong: the values involved. What to do."
// `op` is the call as the user wrote it ("[cat]", "[Event::elapsed_time]", "[cuda::memory_allocated]"),
// or the backend ("[opencl]") for what a driver reports. A constructor whose arguments are the
// problem names them instead: "Device(-1): a device index must be in 0..127".
#include <stdexcept>
#include <string>

namespace locus {

/// Base of every error locus throws.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

/// Operands of one operation live on different devices.
class DeviceMismatchError : public Error {
 public:
  using Error::Error;
};

/// A device's memory (or its configured limit) is exhausted, after one retry with the cache released.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

/// A device type or index that this build or this machine does not provide.
class NotAvailableError : public Error {
 public:
  using Error::Error;
};

/// A checkpoint file that cannot be read or written.
class CheckpointError : public Error {
 public:
  using Error::Error;
};

/// A driver or runtime call failed (OpenCL, CUDA, NVRTC, BLAS).
class BackendError : public Error {
 public:
  using Error::Error;
};

/// A collective failed or timed out, or ranks disagree (locus::distributed).
class DistributedError : public Error {
 public:
  using Error::Error;
};

namespace detail {
[[noreturn]] void throw_error(const std::string& msg);
}  // namespace detail

}  // namespace locus

/// LOCUS_CHECK(cond, msg-expression): throws locus::Error(msg) when cond is false.
#define LOCUS_CHECK(cond, ...)                                   \
  do {                                                           \
    if (!(cond)) ::locus::detail::throw_error(std::string(__VA_ARGS__)); \
  } while (0)
