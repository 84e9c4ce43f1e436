// locus-train: trains a Fashion-MNIST classifier (MLP or CNN) on the best device, the way every
// tutorial does: choose the device, move the model once, move every batch, train, evaluate, save.
// Progress bar on a terminal, a line every few seconds otherwise; per epoch the train loss, test
// accuracy, time and the device's peak memory, and at the end a memory line (the allocator's peak
// over the whole run and the process's resident set); --plot writes the curves as SVG.
// `locus-train --help`.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "locus/amp/grad_scaler.h"
#include "locus/autocast.h"
#include "locus/autograd.h"
#include "locus/data.h"
#include "locus/device_info.h"
#include "locus/distributed.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/guard.h"
#include "locus/memory.h"
#include "locus/nn.h"
#include "locus/nn/parallel/distributed.h"
#include "locus/optim.h"
#include "locus/parallel.h"
#include "locus/random.h"
#include "locus/serialize.h"
#include "locus/version.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace nn = locus::nn;
namespace data = locus::data;

const char* kUsage =
    "usage: locus-train [options]\n"
    "  --device D        auto (default: locus::best_device()), cpu, opencl:N or cuda:N\n"
    "  --devices D1,D2   DataParallel: each batch split over these devices (e.g. opencl:0,opencl:1);\n"
    "                    the model lives on D1, where outputs are gathered and evaluation runs\n"
    "  --model M         cnn (default: 2 conv + 1 linear) or mlp (784-256-128-10)\n"
    "  --epochs N        passes over the 60,000 training images (default 6)\n"
    "  --batch-size N    examples per step (default 64)\n"
    "  --lr X            Adam learning rate (default 0.002)\n"
    "  --scheduler S     cosine (default: cosine annealing to 0 over the epochs) or none\n"
    "  --no-normalize    inputs in [0, 1] instead of normalised to mean 0, std 1\n"
    "  --workers N       loader threads (default 1; 0 loads on the training thread)\n"
    "  --pin-memory      batches in page-locked memory, copied asynchronously (accelerators)\n"
    "  --flush-denormal  denormal floats flushed to zero on the cpu (locus::set_flush_denormal, as\n"
    "                    torch.set_flush_denormal): no slow denormal arithmetic anywhere\n"
    "  --limit N         at most N batches per epoch and per evaluation (quick runs)\n"
    "  --amp T           mixed precision: bf16 or fp16 (autocast around forward and loss, float32\n"
    "                    weights; fp16 adds a GradScaler, and each epoch line counts skipped steps)\n"
    "  --data DIR        directory with the IDX files (default /usr/share/datasets/fashion-mnist)\n"
    "  --save FILE       writes a checkpoint after every epoch: PyTorch's format for .pt/.pth/.bin\n"
    "                    (torch.load reads it), safetensors otherwise\n"
    "  --resume FILE     continues from a checkpoint written by --save\n"
    "  --seed N          initialisation and shuffling seed (default 0)\n"
    "  --plot FILE.svg   writes the loss and accuracy curves\n"
    "  --distributed     DistributedDataParallel, one process per device: `mpirun -n N locus-train --distributed`\n"
    "                    (rank r trains on its shard of each epoch on the device's index LOCAL_RANK when --device\n"
    "                    names none; rank 0 alone prints, evaluates and saves; docs/distributed.md)\n"
    "  --version         locus's version\n"
    "  --help            this text\n"
    "Flags take their value as --flag VALUE or --flag=VALUE.\n"
    "Exit status: 0 trained (or --help/--version); 1 an error while training (the reason on stderr);\n"
    "2 bad usage (nothing was loaded); 3 out of memory (with the batch size to try).\n";

struct Args {
  std::string device = "auto", model = "cnn", scheduler = "cosine", data = data::datasets::kFashionMNISTRoot;
  std::string save, resume, plot, amp;  // amp: "", "bf16" or "fp16"
  int64_t epochs = 6, batch_size = 64, workers = 1, limit = -1;
  uint64_t seed = 0;
  std::vector<locus::Device> devices;  // --devices (DataParallel)
  double lr = 2e-3;  // with the cosine schedule over 6 epochs: ~91% for the CNN
  bool normalize = true, pin_memory = false, distributed = false, flush_denormal = false;
};

[[noreturn]] void usage_error(std::string msg) {
  if (!msg.empty() && msg.back() == '.') msg.pop_back();  // a reason quoted whole ends in '.'
  std::cerr << "locus-train: " << msg << "; see --help\n";
  std::exit(2);
}

int64_t parse_int(const std::string& flag, const std::string& v, int64_t min) {
  try {
    size_t pos = 0;
    long long x = std::stoll(v, &pos);
    if (pos == v.size() && x >= min) return x;
  } catch (const std::exception&) {
  }
  usage_error(flag + " needs an integer >= " + std::to_string(min) + ", got '" + v + "'");
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string f = argv[i];
    std::optional<std::string> inline_value;  // --flag=value
    if (size_t eq = f.find('='); f.rfind("--", 0) == 0 && eq != std::string::npos)
      inline_value = f.substr(eq + 1), f = f.substr(0, eq);
    auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= argc) usage_error(f + " needs a value");
      return argv[++i];
    };
    const bool is_switch = f == "--help" || f == "-h" || f == "--version" || f == "--no-normalize" ||
                           f == "--pin-memory" || f == "--distributed" || f == "--flush-denormal";
    if (is_switch && inline_value) usage_error(f + " takes no value, got '" + *inline_value + "'");
    if (f == "--help" || f == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (f == "--version") {
      std::cout << "locus-train " << LOCUS_VERSION << "\n";
      std::exit(0);
    } else if (f == "--device") {
      a.device = value();
      if (a.device != "auto") {
        try {
          locus::check_device_available(locus::Device(a.device));  // before any data is read
        } catch (const locus::Error& e) {
          usage_error("--device " + a.device + ": " + std::string(e.what()));
        }
      }
    } else if (f == "--devices") {
      std::string list = value();
      a.devices.clear();
      for (size_t start = 0; start <= list.size();) {
        size_t comma = std::min(list.find(',', start), list.size());
        std::string item = list.substr(start, comma - start);
        try {
          locus::Device d(item);
          locus::check_device_available(d);  // before any data is read
          a.devices.push_back(d.is_cpu() || d.has_index() ? d : locus::resolve_device(d));
        } catch (const locus::Error& e) {
          usage_error("--devices: '" + item + "': " + e.what());
        }
        start = comma + 1;
      }
    } else if (f == "--amp") {
      a.amp = value();
      if (a.amp != "bf16" && a.amp != "fp16") usage_error("--amp must be bf16 or fp16, got '" + a.amp + "'");
    } else if (f == "--model") {
      a.model = value();
      if (a.model != "mlp" && a.model != "cnn") usage_error("--model must be mlp or cnn, got '" + a.model + "'");
    } else if (f == "--scheduler") {
      a.scheduler = value();
      if (a.scheduler != "cosine" && a.scheduler != "none")
        usage_error("--scheduler must be cosine or none, got '" + a.scheduler + "'");
    } else if (f == "--epochs") {
      a.epochs = parse_int(f, value(), 1);
    } else if (f == "--batch-size") {
      a.batch_size = parse_int(f, value(), 1);
    } else if (f == "--workers") {
      a.workers = parse_int(f, value(), 0);
    } else if (f == "--limit") {
      a.limit = parse_int(f, value(), 1);
    } else if (f == "--seed") {
      a.seed = static_cast<uint64_t>(parse_int(f, value(), 0));
    } else if (f == "--lr") {
      std::string v = value();
      char* end = nullptr;
      a.lr = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(a.lr > 0)) usage_error("--lr needs a positive number, got '" + v + "'");
    } else if (f == "--no-normalize") {
      a.normalize = false;
    } else if (f == "--pin-memory") {
      a.pin_memory = true;
    } else if (f == "--flush-denormal") {
      a.flush_denormal = true;
    } else if (f == "--distributed") {
      a.distributed = true;
    } else if (f == "--data") {
      a.data = value();
    } else if (f == "--save") {
      a.save = value();
    } else if (f == "--resume") {
      a.resume = value();
    } else if (f == "--plot") {
      a.plot = value();
    } else {
      usage_error("unknown argument '" + f + "'");
    }
  }
  if (!a.devices.empty() && a.device != "auto")
    usage_error("pass --device or --devices, not both (with --devices the model lives on the first one)");
  if (!a.devices.empty() && a.distributed)
    usage_error("pass --devices (DataParallel, one process) or --distributed (one process per device), not both");
  return a;
}

nn::Sequential make_model(const std::string& kind) {
  if (kind == "mlp")
    return nn::Sequential(nn::Flatten(), nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 128), nn::ReLU(),
                          nn::Linear(128, 10));
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 16, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2),
                        nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2),
                        nn::Flatten(), nn::Linear(1568, 10));
}

// ---- checkpoint ------------------------------------------------------------------------------
// locus::save/load (the format by --save's extension: .pt/.pth/.bin PyTorch, else safetensors): model tensors as "model.<name>", optimizer state as
// "optim.<key>", and in the metadata the epochs completed ("epoch") and the model kind ("model").
void save_checkpoint(const std::string& path, const nn::Module& model, const locus::optim::Optimizer& opt,
                     const std::string& kind, int64_t epoch) {
  locus::StateDict dict;
  for (const auto& t : model.state_dict()) dict.insert("model." + t.key(), t.value());
  for (const auto& s : opt.state_dict()) dict.insert("optim." + s.key(), s.value());
  locus::save(dict, path, {{"epoch", std::to_string(epoch)}, {"model", kind}, {"producer", "locus-train"}});
}

/// Loads a checkpoint of --save into `model` and `opt`; returns the epochs it had completed.
int64_t load_checkpoint(const std::string& path, nn::Module& model, locus::optim::Optimizer& opt,
                        const std::string& kind) {
  auto bad = [&](const std::string& what) {
    return locus::CheckpointError("[locus-train] " + path + ": " + what);
  };
  locus::CheckpointInfo info = locus::inspect(path);  // the header only: checks before loading
  std::string saved_epoch, saved_kind;
  for (const auto& [k, v] : info.metadata) {
    if (k == "epoch") saved_epoch = v;
    if (k == "model") saved_kind = v;
  }
  if ((info.format != "safetensors" && info.format != "pytorch") || saved_epoch.empty() || saved_kind.empty())
    throw bad("not a locus-train checkpoint (a safetensors or .pt file with 'epoch' and 'model' in its metadata, as --save "
              "writes).");
  if (saved_kind != kind)
    throw bad("is a checkpoint of --model " + saved_kind + ", but this run trains --model " + kind +
              "; pass --model " + saved_kind + " to resume it.");
  int64_t epoch = -1;
  try {
    size_t pos = 0;
    epoch = std::stoll(saved_epoch, &pos);
    if (pos != saved_epoch.size()) epoch = -1;
  } catch (const std::exception&) {
  }
  if (epoch < 0) throw bad("its metadata has epoch '" + saved_epoch + "', not a number of epochs.");
  // On cpu first, so a checkpoint resumes on any device; the model and the optimizer copy each
  // tensor to their parameters' device.
  locus::StateDict all = locus::load(path, "cpu");
  locus::StateDict model_state, optim_state;
  for (const auto& t : all) {
    const std::string& name = t.key();
    if (name.rfind("model.", 0) == 0) model_state.insert(name.substr(6), t.value());
    else if (name.rfind("optim.", 0) == 0) optim_state.insert(name.substr(6), t.value());
    else throw bad("holds '" + name + "', which is neither model.* nor optim.*.");
  }
  model.load_state_dict(model_state);  // strict: missing, unexpected or reshaped tensors throw
  opt.load_state_dict(optim_state);
  return epoch;
}

// ---- output ----------------------------------------------------------------------------------
std::string mib(int64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return b;
}

/// The process's resident set now, in KiB (VmRSS in /proc/self/status); -1 where there is none.
int64_t resident_kib() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  return -1;
}

/// The process's largest resident set so far, in KiB (getrusage's ru_maxrss, which Linux counts in
/// KiB; it is what Python's resource.getrusage reports for the PyTorch side of bench/run-train).
int64_t max_resident_kib() {
  rusage u{};
  return getrusage(RUSAGE_SELF, &u) == 0 ? static_cast<int64_t>(u.ru_maxrss) : -1;
}

std::string kib_as_mib(int64_t kib) { return kib < 0 ? std::string("unknown") : mib(kib * 1024); }

std::string seconds(double s) {
  char b[32];
  if (s >= 60)
    std::snprintf(b, sizeof b, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else
    std::snprintf(b, sizeof b, "%.1fs", s);
  return b;
}

class Progress {
 public:
  Progress(int64_t epoch, int64_t epochs, int64_t total)
      : epoch_(epoch), epochs_(epochs), total_(total), tty_(isatty(STDOUT_FILENO) != 0), start_(Clock::now()),
        last_(start_) {}
  /// Called after each batch; `loss` is read (a device sync) only when a line is shown.
  template <typename LossFn>
  void update(int64_t done, int64_t samples, LossFn loss, bool last) {
    auto now = Clock::now();
    double since = std::chrono::duration<double>(now - last_).count();
    if (!last && since < (tty_ ? 0.25 : 5.0)) return;
    last_ = now;
    double el = std::chrono::duration<double>(now - start_).count();
    double rate = el > 0 ? samples / el : 0;
    double eta = done > 0 ? el * static_cast<double>(total_ - done) / static_cast<double>(done) : 0;
    char line[256];
    if (tty_) {
      const int w = 30;
      int fill = static_cast<int>(w * done / std::max<int64_t>(total_, 1));
      std::string bar = std::string(fill, '#') + std::string(w - fill, '.');
      std::snprintf(line, sizeof line, "\repoch %lld/%lld [%s] %lld/%lld loss %.4f %.0f samples/s ETA %s  ",
                    (long long)epoch_, (long long)epochs_, bar.c_str(), (long long)done, (long long)total_, loss(),
                    rate, seconds(eta).c_str());
      std::cout << line << (last ? "\n" : "") << std::flush;
    } else if (!last) {
      std::snprintf(line, sizeof line, "epoch %lld/%lld: %lld/%lld batches, loss %.4f, %.0f samples/s, ETA %s",
                    (long long)epoch_, (long long)epochs_, (long long)done, (long long)total_, loss(), rate,
                    seconds(eta).c_str());
      std::cout << line << std::endl;
    }
  }

 private:
  int64_t epoch_, epochs_, total_;
  bool tty_;
  Clock::time_point start_, last_;
};

/// Loss per logged step (x in epochs) and accuracy per epoch, as two panels of one SVG.
void write_svg(const std::string& path, const std::vector<std::pair<double, double>>& loss,
               const std::vector<std::pair<double, double>>& acc, const std::string& title) {
  std::ofstream f(path);
  if (!f) throw locus::Error("[locus-train] cannot write " + path + ": " + std::strerror(errno) + ".");
  const double W = 420, H = 300, L = 60, T = 40, PW = 330, PH = 210;
  f << "<svg xmlns='http://www.w3.org/2000/svg' width='" << 2 * W << "' height='" << H
    << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n"
    << "<text x='" << W << "' y='18' text-anchor='middle' font-size='14'>" << title << "</text>\n";
  auto panel = [&](double ox, const std::vector<std::pair<double, double>>& pts, const char* name, const char* color,
                   bool percent) {
    double xmax = 1, ymin = 1e30, ymax = -1e30;
    for (auto& [x, y] : pts) xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    if (pts.empty()) ymin = 0, ymax = 1;
    double pad = std::max((ymax - ymin) * 0.1, 1e-3);
    ymin -= pad, ymax += pad;
    auto X = [&](double x) { return ox + L + PW * x / xmax; };
    auto Y = [&](double y) { return T + PH - PH * (y - ymin) / (ymax - ymin); };
    f << "<rect x='" << ox + L << "' y='" << T << "' width='" << PW << "' height='" << PH
      << "' fill='none' stroke='#888'/>\n";
    f << "<text x='" << ox + L + PW / 2 << "' y='" << T - 8 << "' text-anchor='middle'>" << name << "</text>\n";
    f << "<text x='" << ox + L + PW / 2 << "' y='" << T + PH + 32 << "' text-anchor='middle'>epoch</text>\n";
    for (int i = 0; i <= 4; ++i) {
      double y = ymin + (ymax - ymin) * i / 4, x = xmax * i / 4;
      char b[32];
      std::snprintf(b, sizeof b, percent ? "%.1f%%" : "%.3f", y);
      f << "<text x='" << ox + L - 4 << "' y='" << Y(y) + 4 << "' text-anchor='end'>" << b << "</text>\n";
      std::snprintf(b, sizeof b, "%.2g", x);
      f << "<text x='" << X(x) << "' y='" << T + PH + 16 << "' text-anchor='middle'>" << b << "</text>\n";
    }
    f << "<polyline fill='none' stroke='" << color << "' stroke-width='2' points='";
    for (auto& [x, y] : pts) f << X(x) << "," << Y(y) << " ";
    f << "'/>\n";
    for (auto& [x, y] : pts)
      if (pts.size() < 40) f << "<circle cx='" << X(x) << "' cy='" << Y(y) << "' r='3' fill='" << color << "'/>\n";
  };
  panel(0, loss, "train loss", "#1f77b4", false);
  panel(W, acc, "test accuracy", "#d62728", true);
  f << "</svg>\n";
}

// ---- --distributed ---------------------------------------------------------------------------------
// The training sampler: RandomSampler's permutation; under --distributed,
// data::samplers::DistributedSampler (rank r's share of one permutation every rank draws from the
// same seed, padded by wrapping around; a new permutation each epoch through set_epoch).
class TrainSampler : public data::samplers::Sampler<> {
 public:
  TrainSampler(size_t size, std::optional<uint64_t> seed)
      : all_(size, seed), size_(size), seed_(seed.value_or(locus::initial_seed())) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override {
    if (new_size) size_ = *new_size;
    all_.reset(new_size);
    if (!locus::distributed::is_initialized()) return;
    if (!dist_)
      dist_ = std::make_unique<data::samplers::DistributedSampler>(
          size_, static_cast<size_t>(locus::distributed::get_world_size()),
          static_cast<size_t>(locus::distributed::get_rank()), /*shuffle=*/true, seed_);
    dist_->set_epoch(epoch_++);
    dist_->reset(new_size);
  }
  std::optional<std::vector<size_t>> next(size_t batch_size) override {
    return dist_ ? dist_->next(batch_size) : all_.next(batch_size);
  }

 private:
  data::samplers::RandomSampler all_;
  size_t size_, epoch_ = 0;
  uint64_t seed_;
  std::unique_ptr<data::samplers::DistributedSampler> dist_;
};

// ---- training ----------------------------------------------------------------------------------
/// The allocator's peaks over the whole run: each epoch resets the device's counters (so that its
/// line shows that epoch's peak), and this keeps the largest seen before each reset.
struct RunPeak {
  int64_t allocated = 0, reserved = 0;
  void note(locus::Device d) {
    allocated = std::max(allocated, locus::max_memory_allocated(d));
    reserved = std::max(reserved, locus::max_memory_reserved(d));
  }
};

/// `startup_kib`: the resident set when main began (the program and its libraries, no data yet).
int run(const Args& a, int64_t startup_kib) {
  int rank = 0, world = 1;
  if (a.distributed) {
    locus::distributed::init_process_group(locus::distributed::Backend::Auto);
    rank = locus::distributed::get_rank(), world = locus::distributed::get_world_size();
    if (rank != 0) std::cout.setstate(std::ios::failbit);  // rank 0 alone prints
  }
  locus::Device device = !a.devices.empty() ? a.devices.front()
                         : a.device == "auto" ? locus::best_device() : locus::Device(a.device);
  if (a.distributed && !device.is_cpu() && (!device.has_index() || a.device == "auto")) {
    const char* lr = std::getenv("LOCAL_RANK") ? std::getenv("LOCAL_RANK") : std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    device = locus::Device(device.type(), static_cast<locus::DeviceIndex>(lr ? std::atoi(lr) : 0));
  }
  if (!a.devices.empty()) {
    std::cout << "devices:";
    for (const auto& d : a.devices) std::cout << " " << d.str();
    std::cout << " (--devices: DataParallel splits each batch between them; the model lives on " << device.str()
              << ")\n";
  } else if (a.device == "auto") {
    std::cout << "device: " << device.str() << " (chosen by best_device(): cuda, then an OpenCL GPU, then an "
              << "OpenCL device that is not the host CPU, then cpu)\n"
              << locus::best_device_report();
  } else {
    std::cout << "device: " << device.str() << " (--device)\n";
  }
  if (!device.is_cpu() && !locus::is_available(device.type()))
    throw locus::NotAvailableError("[locus-train] " + device.str() + " is not available here; see locus-info.");
  if (a.flush_denormal && !locus::set_flush_denormal(true))
    std::cout << "note: --flush-denormal: this CPU has no flush-to-zero mode; denormals stay\n";
  bool pin = a.pin_memory;
  if (pin && device.is_cpu()) {
    std::cout << "note: --pin-memory has no effect on cpu\n";
    pin = false;
  }

  locus::manual_seed(a.seed);
  auto load_start = Clock::now();
  data::datasets::MNIST train_set(a.data, data::datasets::MNIST::Mode::kTrain);
  data::datasets::MNIST test_set(a.data, data::datasets::MNIST::Mode::kTest);
  // Fashion-MNIST's training-set pixel mean and standard deviation.
  std::vector<double> mean = {a.normalize ? 0.2860 : 0.0}, stddev = {a.normalize ? 0.3530 : 1.0};
  auto train_loader = data::make_data_loader<TrainSampler>(
      train_set.map(data::transforms::Normalize<>(mean, stddev)).map(data::transforms::Stack<>()),
      data::DataLoaderOptions()
          .batch_size(static_cast<size_t>(a.batch_size))
          .workers(static_cast<size_t>(a.workers))
          .pin_memory(pin)
          .seed(a.seed));
  auto test_loader = data::make_data_loader<data::samplers::SequentialSampler>(
      test_set.map(data::transforms::Normalize<>(mean, stddev)).map(data::transforms::Stack<>()),
      data::DataLoaderOptions().batch_size(1000).workers(static_cast<size_t>(a.workers)).pin_memory(pin));
  std::cout << "data: Fashion-MNIST from " << a.data << ", " << *train_set.size() << " train and "
            << *test_set.size() << " test images (read in "
            << seconds(std::chrono::duration<double>(Clock::now() - load_start).count()) << ")"
            << (a.normalize ? ", normalised" : ", in [0, 1]") << "\n";

  nn::Sequential model = make_model(a.model);
  model->to(device);
  std::shared_ptr<nn::parallel::DistributedDataParallel<nn::Sequential>> ddp;
  if (a.distributed) {
    ddp = std::make_shared<nn::parallel::DistributedDataParallel<nn::Sequential>>(model);
    std::cout << "distributed: " << world << " ranks over " << locus::distributed::to_string(locus::distributed::world()->backend())
              << ", rank 0 on " << device.str() << ", each trains on its shard (1/" << world << " of every epoch)\n";
  }
  int64_t nparams = 0;
  for (const auto& p : model->parameters()) nparams += p.numel();
  nn::DataParallel parallel = nullptr;  // --devices
  if (!a.devices.empty()) parallel = nn::DataParallel(model, a.devices);
  locus::optim::Adam optimizer(model->parameters(), locus::optim::AdamOptions(a.lr));
  std::unique_ptr<locus::optim::CosineAnnealingLR> scheduler;
  if (a.scheduler == "cosine")
    scheduler = std::make_unique<locus::optim::CosineAnnealingLR>(optimizer, static_cast<unsigned>(a.epochs));
  int64_t first_epoch = 1;
  if (!a.resume.empty()) {
    first_epoch = load_checkpoint(a.resume, *model, optimizer, a.model) + 1;
    for (int64_t e = 1; e < first_epoch && scheduler; ++e) scheduler->step();
    std::cout << "resumed from " << a.resume << " after epoch " << first_epoch - 1 << "\n";
  }
  std::cout << "model: " << a.model << ", " << nparams << " parameters; Adam lr " << a.lr << ", batch size "
            << a.batch_size << ", " << a.epochs << " epoch(s)" << (scheduler ? ", cosine schedule" : "") << ", "
            << a.workers << " loader worker(s)" << (pin ? ", pinned memory" : "") << "\n";
  // --amp: autocast (thread-local: the forward of --devices' replicas, on their own threads, stays float32)
  const bool amp = !a.amp.empty();
  const locus::ScalarType amp_dtype = a.amp == "fp16" ? locus::kHalf : locus::kBFloat16;
  locus::amp::GradScaler scaler(locus::amp::GradScalerOptions().enabled(a.amp == "fp16"));
  if (amp)
    std::cout << "amp: autocast to " << locus::dtype_name(amp_dtype) << " on " << device.str()
              << " (float32 weights and losses)" << (scaler.is_enabled() ? ", GradScaler" : "") << "\n";
  int64_t step_count = 0, last_skipped_step = -1;
  const int64_t before_training_kib = resident_kib();  // data read, model built
  RunPeak run_peak;

  std::vector<std::pair<double, double>> loss_curve, acc_curve;
  double best = 0, total_time = 0, last_acc = 0;
  for (int64_t epoch = first_epoch; epoch <= a.epochs; ++epoch) {
    run_peak.note(device);  // loading, or the previous epoch
    locus::reset_peak_memory_stats(device);
    auto t0 = Clock::now();
    model->train();
    const int64_t shard = static_cast<int64_t>((*train_set.size() + world - 1) / world);
    int64_t batches = (shard + a.batch_size - 1) / a.batch_size;
    if (a.limit > 0) batches = std::min(batches, a.limit);
    Progress progress(epoch, a.epochs, batches);
    locus::Tensor loss_sum = locus::zeros({}, device), window_sum = locus::zeros({}, device);
    int64_t done = 0, samples = 0, window = 0;
    for (auto& batch : data::DevicePrefetcher(*train_loader, device)) {
      optimizer.zero_grad();
      locus::Tensor loss;
      {
        locus::autocast::AutocastGuard autocast(device.type(), amp_dtype, /*enabled=*/amp);
        locus::Tensor out = ddp ? ddp->forward(batch.data) : parallel ? parallel->forward(batch.data) : model->forward(batch.data);
        loss = nn::functional::cross_entropy(out, batch.target);
      }
      scaler.scale(loss).backward();  // without fp16: loss itself, and step() is optimizer.step()
      int64_t skipped_before = scaler.skipped_steps();
      scaler.step(optimizer);
      scaler.update();
      if (scaler.skipped_steps() != skipped_before) last_skipped_step = step_count;
      ++step_count;
      {
        locus::NoGradGuard no_grad;
        loss_sum.add_(loss.detach());
        window_sum.add_(loss.detach());
      }
      ++done, ++window;
      samples += batch.data.size(0);
      progress.update(done, samples, [&] {
        double l = window_sum.item<float>() / static_cast<double>(window);
        loss_curve.emplace_back(static_cast<double>(epoch - 1) + static_cast<double>(done) / batches, l);
        window_sum.zero_(), window = 0;
        return l;
      }, done == batches);
      if (done == batches) break;
    }
    double train_loss = loss_sum.item<float>() / static_cast<double>(std::max<int64_t>(done, 1));
    if (scheduler) scheduler->step();
    double train_time = std::chrono::duration<double>(Clock::now() - t0).count();

    // evaluation
    model->eval();
    locus::NoGradGuard no_grad;
    locus::Tensor correct = locus::zeros({}, locus::TensorOptions(device).dtype(locus::kLong));
    int64_t seen = 0, eval_batches = 0;
    locus::autocast::AutocastGuard autocast(device.type(), amp_dtype, /*enabled=*/amp);
    for (auto& batch : data::DevicePrefetcher(*test_loader, device)) {
      if (rank != 0) break;  // rank 0 alone evaluates
      correct.add_(model->forward(batch.data).argmax(1).eq(batch.target).sum());
      seen += batch.data.size(0);
      if (a.limit > 0 && ++eval_batches >= a.limit) break;
    }
    last_acc = 100.0 * static_cast<double>(correct.item<int64_t>()) / static_cast<double>(std::max<int64_t>(seen, 1));
    best = std::max(best, last_acc);
    double epoch_time = std::chrono::duration<double>(Clock::now() - t0).count();
    total_time += epoch_time;
    acc_curve.emplace_back(static_cast<double>(epoch), last_acc);
    char line[320];
    std::snprintf(line, sizeof line,
                  "epoch %lld/%lld: train loss %.4f, test accuracy %.2f%%, time %.2fs (train %.2fs, %.0f samples/s), "
                  "peak memory on %s: %s allocated, %s reserved",
                  (long long)epoch, (long long)a.epochs, train_loss, last_acc, epoch_time, train_time,
                  samples / train_time, device.str().c_str(), mib(locus::max_memory_allocated(device)).c_str(),
                  mib(locus::max_memory_reserved(device)).c_str());
    std::cout << line << std::endl;
    if (scaler.is_enabled())
      std::printf("amp: GradScaler scale %g, %lld of %lld steps skipped (inf/NaN gradients), last skipped: %s\n",
                  scaler.get_scale(), (long long)scaler.skipped_steps(), (long long)step_count,
                  last_skipped_step < 0 ? "none" : ("step " + std::to_string(last_skipped_step)).c_str());
    if (!a.save.empty() && rank == 0) save_checkpoint(a.save, *model, optimizer, a.model, epoch);
  }
  if (rank != 0) return 0;
  run_peak.note(device);
  std::printf("summary: %s on %s, final test accuracy %.2f%% (best %.2f%%), %s in all\n", a.model.c_str(),
              device.str().c_str(), last_acc, best, seconds(total_time).c_str());
  // bench/run-train parses this line (docs/benchmarks.md, "Peak memory").
  std::printf("memory: allocator peak on %s %s allocated, %s reserved (the whole run)", device.str().c_str(),
              mib(run_peak.allocated).c_str(), mib(run_peak.reserved).c_str());
  if (const locus::Device cpu(locus::kCPU); !device.is_cpu())  // the datasets, and each batch before its copy
    std::printf(", on cpu %s allocated, %s reserved", mib(locus::max_memory_allocated(cpu)).c_str(),
                mib(locus::max_memory_reserved(cpu)).c_str());
  std::printf("; process resident set %s at start-up, %s before training, %s at most (max RSS)\n",
              kib_as_mib(startup_kib).c_str(), kib_as_mib(before_training_kib).c_str(),
              kib_as_mib(max_resident_kib()).c_str());
  if (!a.save.empty()) std::printf("checkpoint: %s\n", a.save.c_str());
  if (!a.plot.empty()) {
    write_svg(a.plot, loss_curve, acc_curve, "locus-train " + a.model + " on " + device.str());
    std::printf("plot: %s\n", a.plot.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t startup_kib = resident_kib();  // before --device starts a backend
  Args args = parse(argc, argv);
  try {
    return run(args, startup_kib);
  } catch (const locus::OutOfMemoryError& e) {
    std::cout << std::endl;
    std::cerr << "locus-train: out of memory at batch size " << args.batch_size << ": " << e.what()
              << "\nTry a smaller batch, e.g. --batch-size " << std::max<int64_t>(1, args.batch_size / 2) << ".\n";
    return 3;
  } catch (const locus::Error& e) {
    std::cout << std::endl;
    std::cerr << "locus-train: " << e.what() << "\n";
    return 1;
  }
}
