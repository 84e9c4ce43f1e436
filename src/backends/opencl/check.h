#pragma once
// Every OpenCL call goes through LOCUS_CL, which turns a failure into a locus::BackendError that
// names the call, the device, what it was working on and the status's symbolic name:
//   clEnqueueNDRangeKernel failed on opencl:0 (kernel binary_f32): CL_OUT_OF_RESOURCES
// Calls that return a status are checked directly; calls that return an object take
// `locus_err` as their errcode_ret argument:
//   LOCUS_CL(clFinish(q), dev, "");
//   cl_mem m = LOCUS_CL(clCreateBuffer(ctx, flags, n, nullptr, locus_err), dev, "");
#include <CL/cl.h>  // CL_TARGET_OPENCL_VERSION comes from CMake

#include <string>
#include <string_view>
#include <type_traits>

#include "backends/gpu/check.h"
#include "core/fault.h"

namespace locus::opencl {

/// "CL_OUT_OF_RESOURCES", or "status -9999" for codes OpenCL does not define.
std::string cl_status_name(cl_int status);

/// Throws BackendError: "<call> failed on opencl:<device> (<what>): <status name>". A negative
/// device leaves out "on opencl:N"; an empty `what` leaves out the parenthesis. `call_text` is
/// the call as written; only the function name before '(' is kept.
[[noreturn]] void cl_fail(const char* call_text, cl_int status, int device, std::string_view what);

inline void cl_check(cl_int status, const char* call_text, int device, std::string_view what) {
  if (status != CL_SUCCESS) cl_fail(call_text, status, device, what);
}

// `what` is LOCUS_GPU_WHAT's callable, run only on failure.
template <typename W, typename F>
auto cl_call(const char* call_text, int device, W&& what, F&& f) {
  cl_int err = CL_SUCCESS;
  if constexpr (std::is_same_v<decltype(f(&err)), cl_int>) {
    err = f(&err);
    if (err != CL_SUCCESS) cl_fail(call_text, err, device, what());
  } else {
    auto r = f(&err);
    if (err != CL_SUCCESS) cl_fail(call_text, err, device, what());
    return r;
  }
}

}  // namespace locus::opencl

#define LOCUS_CL(call, device, what)                              \
  ::locus::opencl::cl_call(#call, (device), LOCUS_GPU_WHAT(what), \
                           [&]([[maybe_unused]] cl_int* locus_err) { return call; })

// LOCUS_CL for a call that fault injection (core/fault.h) may fail: a kernel launch
// (fault::kLaunch) or a copy (fault::kCopy). When the switch fires, the call is not made and
// returns `status`, the driver's code for that failure: the same BackendError follows.
#define LOCUS_CL_FAULT(site, status, call, device, what)                                      \
  ::locus::opencl::cl_call(#call, (device), LOCUS_GPU_WHAT(what),                              \
                           [&](cl_int*) -> cl_int { return ::locus::fault::hit(site) ? (status) : (call); })
