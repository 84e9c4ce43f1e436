#include "backends/gpu/check.h"

#include "backends/gpu/device_table.h"
#include "locus/error.h"

#include <algorithm>
#include <cctype>

namespace locus::gpu {

std::string failure_message(const char* runtime, const char* call_text, const std::string& status, int device,
                            std::string_view what) {
  std::string call(call_text);  // "drv().cuMemAlloc(&p, n)", "cublasSgemm(h, ...)", "clFinish(q)"
  // drop the table a call goes through: "drv().", "nvrtc().", "nv.", "cublas()."
  size_t start = 0;
  for (;;) {
    size_t j = start;
    while (j < call.size() && (std::isalnum(static_cast<unsigned char>(call[j])) || call[j] == '_')) ++j;
    if (call.compare(j, 3, "().") == 0) start = j + 3;
    else if (j < call.size() && call[j] == '.') start = j + 1;
    else break;
  }
  call.erase(0, start);
  call.resize(std::min(call.size(), call.find('(')));
  while (!call.empty() && call.back() == ' ') call.pop_back();
  std::string msg = call + " failed";
  if (device >= 0) msg += " on " + std::string(runtime) + ":" + std::to_string(device);
  if (!what.empty()) msg += " (" + std::string(what) + ")";
  return msg + ": " + status;
}

void fail(const char* runtime, const char* call_text, const std::string& status, int device, std::string_view what) {
  throw BackendError(failure_message(runtime, call_text, status, device, what));
}

void compile_failed(const char* runtime, const std::string& label, const std::string& target, const std::string& why,
                    const char* log_name, std::string log) {
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  throw BackendError("[" + std::string(runtime) + "] compiling " + label + " for " + target + " failed (" + why + "). " +
                     log_name + ":\n" + (log.empty() ? "(empty)" : log));
}

void no_such_device(const char* type, const char* display, int index, int count, const std::string& reason) {
  throw NotAvailableError("[" + std::string(type) + "] device " + type + ":" + std::to_string(index) +
                          " does not exist: " +
                          (count == 0 ? "there are no " + std::string(display) + " devices (" + reason + ")"
                                      : "valid indices are 0.." + std::to_string(count - 1)) +
                          ". Use an index below locus::" + type + "::device_count().");
}

}  // namespace locus::gpu
