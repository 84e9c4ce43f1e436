// libFuzzer target: the device-string parser (Device(std::string), Device(const char*)). Any input
// either parses or throws locus::Error whose message names the call ("Device(...)"); a parsed
// device must print as a string that parses back to the same device, and the const char* form
// (which stops at the first NUL) must agree with the std::string form on that prefix.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "locus/device.h"
#include "locus/error.h"

namespace {

// Parses `s`; returns whether it parsed. Aborts on anything but a named locus::Error.
bool parse(const std::string& s, locus::Device* out) {
  try {
    *out = locus::Device(s);
  } catch (const locus::Error& e) {
    if (std::string(e.what()).rfind("Device(", 0) != 0) std::abort();  // unnamed error
    return false;
  }
  locus::Device again("cpu");
  try {
    again = locus::Device(out->str());
  } catch (const locus::Error&) {
    std::abort();  // str() printed something the parser refuses
  }
  if (!(again == *out)) std::abort();
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string s(reinterpret_cast<const char*>(data), size);
  locus::Device a("cpu"), b("cpu");
  bool ok = parse(s, &a);
  std::string prefix(s.c_str());  // what the const char* overload sees
  try {
    b = locus::Device(prefix.c_str());
    if (prefix == s && (!ok || !(a == b))) std::abort();
  } catch (const locus::Error&) {
    if (prefix == s && ok) std::abort();
  }
  return 0;
}
