#include "backends/opencl/runtime.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "backends/opencl/check.h"
#include "locus/error.h"

namespace locus::opencl {
namespace {

// A string property of a platform or device (clGetPlatformInfo, clGetDeviceInfo), without its
// NUL and trailing blanks; "" when the driver will not say.
template <typename Obj, typename Info>
std::string info_str(cl_int (*get)(Obj, Info, size_t, void*, size_t*), Obj obj, Info what) {
  size_t n = 0;
  if (get(obj, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (get(obj, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}
std::string platform_str(cl_platform_id p, cl_platform_info what) { return info_str(clGetPlatformInfo, p, what); }
std::string device_str(cl_device_id d, cl_device_info what) { return info_str(clGetDeviceInfo, d, what); }

template <typename T>
T device_val(cl_device_id d, cl_device_info what) {
  T v{};
  if (clGetDeviceInfo(d, what, sizeof(T), &v, nullptr) != CL_SUCCESS) return T{};
  return v;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int kind_rank(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return 0;
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return 1;
  if (t & CL_DEVICE_TYPE_CPU) return 2;
  return 3;
}

bool has_ext(const std::string& exts, const char* name) {
  std::string padded = " " + exts + " ";
  return padded.find(std::string(" ") + name + " ") != std::string::npos;
}

}  // namespace

Runtime& Runtime::get() noexcept {
  static Runtime* rt = [] {
    Runtime* r = new Runtime();  // never destroyed: see runtime.h
    // Registered after the driver (and its compiler) loaded, so it runs before their teardown.
    if (r->count() > 0) std::atexit([] { Runtime::get().drain(); });
    return r;
  }();
  return *rt;
}

void Runtime::track_queue(cl_command_queue q) {
  std::lock_guard<std::mutex> lock(queues_mu_);
  streams_.push_back(q);
}

void Runtime::untrack_queue(cl_command_queue q) {
  std::lock_guard<std::mutex> lock(queues_mu_);
  streams_.erase(std::remove(streams_.begin(), streams_.end(), q), streams_.end());
}

bool Runtime::first_launch(int index, uint32_t variant) {
  ClDevice& d = device(index);
  if (!d.lazy_compile) return false;
  if (variant >= ClDevice::kVariants) return true;
  std::atomic<uint64_t>& word = d.variants[variant / 64];
  const uint64_t bit = uint64_t{1} << (variant % 64);
  if (word.load(std::memory_order_relaxed) & bit) return false;
  return (word.fetch_or(bit, std::memory_order_relaxed) & bit) == 0;  // one thread wins a race
}

void Runtime::drain() noexcept {
  std::lock_guard<std::mutex> lock(queues_mu_);
  for (cl_command_queue q : streams_) clFinish(q);
  for (auto& d : devices_) clFinish(d->queue);
}

Runtime::Runtime() : DeviceTable("opencl", "OpenCL") {
  cl_uint np = 0;
  cl_int st = clGetPlatformIDs(0, nullptr, &np);
  if (st != CL_SUCCESS || np == 0) {
    reason_ = "no OpenCL platform (clGetPlatformIDs: " +
              (st == CL_SUCCESS ? std::string("0 platforms") : cl_status_name(st)) +
              "); install an ICD such as pocl-opencl-icd or a GPU driver's";
    return;
  }
  std::vector<cl_platform_id> plats(np);
  clGetPlatformIDs(np, plats.data(), nullptr);

  std::vector<std::string> filters;
  if (const char* f = std::getenv("LOCUS_OPENCL_DEVICES"); f && *f) {
    std::string s = lower(f);
    size_t b = 0;
    while (b <= s.size()) {
      size_t e = s.find(',', b);
      if (e == std::string::npos) e = s.size();
      std::string part = s.substr(b, e - b);
      part.erase(0, part.find_first_not_of(' '));
      part.erase(part.find_last_not_of(' ') + 1);
      if (!part.empty()) filters.push_back(part);
      b = e + 1;
    }
  }

  bool row_items = true;  // on CPU drivers (Caps::row_items)
  if (const char* r = std::getenv("LOCUS_OPENCL_ROW_ITEMS"); r && *r) {
    const std::string v = r;
    if (v == "0") {
      row_items = false;
    } else if (v != "1") {
      reason_ = "LOCUS_OPENCL_ROW_ITEMS=\"" + v + "\" is neither 0 nor 1: set 0 for a work-item per element on "
                "every device (as a GPU runs the kernels), or 1 (the default: a row per item on CPU drivers)";
      return;
    }
  }

  struct Candidate {
    int rank;
    size_t plat;
    cl_device_id id;
  };
  std::vector<Candidate> cands;
  std::vector<std::string> seen_names, problems;
  for (size_t p = 0; p < plats.size(); ++p) {
    std::string pname = platform_str(plats[p], CL_PLATFORM_NAME);
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ids(nd);
    clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr);
    for (cl_device_id id : ids) {
      std::string dname = device_str(id, CL_DEVICE_NAME);
      seen_names.push_back(pname + " / " + dname);
      if (!filters.empty()) {
        std::string hay = lower(pname + "\n" + dname);
        bool keep = std::any_of(filters.begin(), filters.end(),
                                [&](const std::string& f) { return hay.find(f) != std::string::npos; });
        if (!keep) continue;
      }
      if (!device_val<cl_bool>(id, CL_DEVICE_AVAILABLE) || !device_val<cl_bool>(id, CL_DEVICE_COMPILER_AVAILABLE)) {
        problems.push_back(dname + " is unavailable or has no compiler");
        continue;
      }
      cands.push_back({kind_rank(device_val<cl_device_type>(id, CL_DEVICE_TYPE)), p, id});
    }
  }
  std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) { return a.rank < b.rank; });

  // one context per platform, holding that platform's selected devices
  std::vector<cl_context> ctxs(plats.size(), nullptr);
  for (size_t p = 0; p < plats.size(); ++p) {
    std::vector<cl_device_id> ids;
    for (const Candidate& c : cands)
      if (c.plat == p) ids.push_back(c.id);
    if (ids.empty()) continue;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(plats[p]), 0};
    cl_int err = CL_SUCCESS;
    ctxs[p] = clCreateContext(props, static_cast<cl_uint>(ids.size()), ids.data(), nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      ctxs[p] = nullptr;
      problems.push_back("clCreateContext failed for platform " + platform_str(plats[p], CL_PLATFORM_NAME) + ": " +
                         cl_status_name(err));
    }
  }

  for (const Candidate& c : cands) {
    if (!ctxs[c.plat]) continue;
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(ctxs[c.plat], c.id, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
      problems.push_back("clCreateCommandQueue failed for " + device_str(c.id, CL_DEVICE_NAME) + ": " + cl_status_name(err));
      continue;
    }
    auto d = std::make_unique<ClDevice>();
    d->id = c.id;
    d->ctx = ctxs[c.plat];
    d->queue = q;
    d->platform_name = platform_str(plats[c.plat], CL_PLATFORM_NAME);
    d->lazy_compile = d->platform_name.find("Portable Computing Language") != std::string::npos;
    d->global_mem = device_val<cl_ulong>(c.id, CL_DEVICE_GLOBAL_MEM_SIZE);
    d->max_alloc = device_val<cl_ulong>(c.id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    std::string exts = device_str(c.id, CL_DEVICE_EXTENSIONS);
    d->int64_atomics = has_ext(exts, "cl_khr_int64_base_atomics");
    backend::DeviceProps& pr = d->props;
    pr.name = device_str(c.id, CL_DEVICE_NAME);
    pr.vendor = device_str(c.id, CL_DEVICE_VENDOR);
    pr.driver_version = device_str(c.id, CL_DRIVER_VERSION);
    pr.total_memory = d->global_mem;
    pr.compute_units = static_cast<int>(device_val<cl_uint>(c.id, CL_DEVICE_MAX_COMPUTE_UNITS));
    pr.max_work_group_size = device_val<size_t>(c.id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    pr.fp16 = has_ext(exts, "cl_khr_fp16");
    pr.fp64 = has_ext(exts, "cl_khr_fp64") || device_val<cl_device_fp_config>(c.id, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
    pr.is_gpu = c.rank == 0;
    pr.runs_on_host_cpu = c.rank == 2;
    d->row_items = pr.runs_on_host_cpu && row_items;
    pr.host_addressable = false;
    pr.extra = "platform: " + d->platform_name + " " + platform_str(plats[c.plat], CL_PLATFORM_VERSION) +
               "; " + device_str(c.id, CL_DEVICE_OPENCL_C_VERSION) +
               "; max allocation: " + std::to_string(d->max_alloc >> 20) + " MiB";
    devices_.push_back(std::move(d));
  }

  if (devices_.empty()) {
    if (!filters.empty() && cands.empty()) {
      std::string list;
      for (const std::string& n : seen_names) list += (list.empty() ? "" : "; ") + n;
      reason_ = std::string("LOCUS_OPENCL_DEVICES=\"") + std::getenv("LOCUS_OPENCL_DEVICES") +
                "\" matches none of the OpenCL devices (" + (list.empty() ? "none found" : list) + ")";
    } else {
      reason_ = "no usable OpenCL device";
      for (const std::string& p : problems) reason_ += "; " + p;
    }
  }
}

}  // namespace locus::opencl
