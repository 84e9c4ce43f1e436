#pragma once
// The one shape of a driver failure, for every runtime's check macro (LOCUS_CL, LOCUS_CUDA):
//   clEnqueueNDRangeKernel failed on opencl:0 (kernel binary_f32): CL_OUT_OF_RESOURCES
#include <string>
#include <string_view>

namespace locus::gpu {

/// "<call> failed on <runtime>:<device> (<what>): <status>". A negative device leaves out
/// "on <runtime>:N", an empty `what` the parenthesis; of `call_text` only the function name is
/// kept ("drv().cuMemAlloc(&p, n)" -> "cuMemAlloc", "clFinish(q)" -> "clFinish").
std::string failure_message(const char* runtime, const char* call_text, const std::string& status, int device,
                            std::string_view what);
/// Throws BackendError: "[<runtime>] compiling <label> for <target> failed (<why>). <log_name>:\n<log>",
/// the compiler's log without its trailing NULs and newlines ("(empty)" when nothing is left).
[[noreturn]] void compile_failed(const char* runtime, const std::string& label, const std::string& target,
                                 const std::string& why, const char* log_name, std::string log);
/// Throws BackendError with failure_message's message.
[[noreturn]] void fail(const char* runtime, const char* call_text, const std::string& status, int device,
                       std::string_view what);

}  // namespace locus::gpu

// A check macro's `what` as a callable, run only on failure: a launch's "kernel <label>" is not
// built (a heap allocation) on every successful call.
#define LOCUS_GPU_WHAT(what) [&]() -> std::string { return std::string(what); }
