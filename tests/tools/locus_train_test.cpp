// locus-train: a short run that saves a safetensors checkpoint, resumes from it, plots, and
// rejects bad flags with the usage text.
#include "test_paths.h"
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "locus/data.h"
#include "locus/serialize.h"
#include "locus/version.h"
#include "testing.h"
#include "tools/run_tool.h"

using namespace locus;

namespace locus_train_test {

namespace {
std::pair<int, std::string> train(const std::string& args) { return run_tool("locus-train", args); }

std::string tmp_path(const std::string& name) {
  std::string dir = std::string(LOCUS_BINARY_DIR) + "/tools-test-tmp";
  ::mkdir(dir.c_str(), 0755);
  return dir + "/" + std::to_string(::getpid()) + "-" + name;
}

bool have_dataset() { return std::filesystem::exists(data::datasets::kFashionMNISTRoot); }
}  // namespace

TEST(LocusTrainTool, SavesResumesAndPlots) {
  ASSERT_TRUE(have_dataset()) << "dataset-fashion-mnist is not installed; scripts/install-deps installs it (make test runs it)";
  std::string ckpt = tmp_path("mlp.safetensors"), svg = tmp_path("mlp.svg");
  std::remove(ckpt.c_str());
  std::remove(svg.c_str());
  const std::string common = "--device cpu --model mlp --limit 5 --workers 0 ";

  auto [rc, out] = train(common + "--epochs 1 --flush-denormal --save " + ckpt + " --plot " + svg);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(out.find("--flush-denormal"), std::string::npos) << out;  // accepted, no note on x86
  EXPECT_NE(out.find("epoch 1/1: train loss"), std::string::npos) << out;
  EXPECT_NE(out.find("checkpoint: " + ckpt), std::string::npos) << out;
  EXPECT_NE(out.find("plot: " + svg), std::string::npos) << out;

  // The checkpoint is safetensors: model.*, optim.*, and the epoch and model kind as metadata.
  CheckpointInfo info = inspect(ckpt);
  EXPECT_EQ(info.format, "safetensors");
  std::map<std::string, std::string> meta(info.metadata.begin(), info.metadata.end());
  EXPECT_EQ(meta["epoch"], "1");
  EXPECT_EQ(meta["model"], "mlp");
  StateDict sd = load(ckpt);
  ASSERT_NE(sd.find("model.1.weight"), nullptr);
  EXPECT_EQ(sd.find("model.1.weight")->sizes(), (std::vector<int64_t>{256, 784}));
  bool has_optim = false;
  for (const auto& t : sd) has_optim = has_optim || t.key().rfind("optim.state.", 0) == 0;
  EXPECT_TRUE(has_optim);

  std::ifstream f(svg);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("</svg>"), std::string::npos);

  auto [rc2, out2] = train(common + "--epochs 2 --resume " + ckpt + " --save " + ckpt);
  ASSERT_EQ(rc2, 0) << out2;
  EXPECT_NE(out2.find("resumed from " + ckpt + " after epoch 1"), std::string::npos) << out2;
  EXPECT_NE(out2.find("epoch 2/2: train loss"), std::string::npos) << out2;
  EXPECT_EQ(out2.find("epoch 1/2:"), std::string::npos) << out2;
  info = inspect(ckpt);
  meta = std::map<std::string, std::string>(info.metadata.begin(), info.metadata.end());
  EXPECT_EQ(meta["epoch"], "2");

  // A checkpoint of another model kind is refused by name, before any tensor is touched.
  auto [rc3, out3] = train("--device cpu --model cnn --limit 1 --workers 0 --epochs 3 --resume " + ckpt);
  EXPECT_EQ(rc3, 1) << out3;
  EXPECT_NE(out3.find("checkpoint of --model mlp"), std::string::npos) << out3;
  EXPECT_NE(out3.find("pass --model mlp"), std::string::npos) << out3;

  // A file that is not a checkpoint is an error, not a crash.
  auto [rc4, out4] = train(common + "--epochs 2 --resume " + svg);
  EXPECT_EQ(rc4, 1) << out4;
  EXPECT_NE(out4.find("locus-train: "), std::string::npos) << out4;

  std::remove(ckpt.c_str());
  std::remove(svg.c_str());
}

// --save x.pt writes PyTorch's format (the extension decides) and --resume reads it back.
TEST(LocusTrainTool, SavesAndResumesPyTorchFormat) {
  ASSERT_TRUE(have_dataset()) << "dataset-fashion-mnist is not installed; scripts/install-deps installs it (make test runs it)";
  std::string ckpt = tmp_path("mlp.pt");
  std::remove(ckpt.c_str());
  const std::string common = "--device cpu --model mlp --limit 2 --workers 0 ";
  auto [rc, out] = train(common + "--epochs 1 --save " + ckpt);
  ASSERT_EQ(rc, 0) << out;
  CheckpointInfo info = inspect(ckpt);
  EXPECT_EQ(info.format, "pytorch");
  std::map<std::string, std::string> meta(info.metadata.begin(), info.metadata.end());
  EXPECT_EQ(meta["epoch"], "1");
  EXPECT_EQ(meta["model"], "mlp");
  EXPECT_EQ(load(ckpt).find("model.1.weight")->sizes(), (std::vector<int64_t>{256, 784}));
  auto [rc2, out2] = train(common + "--epochs 2 --resume " + ckpt);
  ASSERT_EQ(rc2, 0) << out2;
  EXPECT_NE(out2.find("resumed from " + ckpt + " after epoch 1"), std::string::npos) << out2;
  std::remove(ckpt.c_str());
}

// --amp: bf16 autocast on cpu; fp16 autocast with a GradScaler on an OpenCL device (PoCL here),
// which counts its skipped steps: none once the scale has settled (it starts at 2^16 and backs off).
TEST(LocusTrainTool, AmpTrainsInBf16AndFp16) {
  ASSERT_TRUE(have_dataset()) << "dataset-fashion-mnist is not installed; scripts/install-deps installs it";
  auto [rc, out] = train("--device cpu --model cnn --limit 10 --epochs 1 --workers 0 --amp bf16");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("amp: autocast to bfloat16 on cpu (float32 weights and losses)\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("GradScaler"), std::string::npos) << out;  // bf16 needs no loss scaling
  std::string dev = device_count(kOpenCL) > 0 ? "opencl:0" : "cpu";
  auto [rc2, out2] = train("--device " + dev + " --model mlp --limit 30 --epochs 1 --workers 0 --amp fp16");
  ASSERT_EQ(rc2, 0) << out2;
  EXPECT_NE(out2.find("amp: autocast to float16 on " + dev + " (float32 weights and losses), GradScaler\n"),
            std::string::npos) << out2;
  size_t at = out2.find("amp: GradScaler scale ");
  ASSERT_NE(at, std::string::npos) << out2;
  long long skipped = -1, steps = -1;
  double scale = 0;
  ASSERT_EQ(std::sscanf(out2.c_str() + at, "amp: GradScaler scale %lf, %lld of %lld steps skipped", &scale, &skipped,
                        &steps), 3) << out2;
  EXPECT_EQ(steps, 30);
  EXPECT_LE(skipped, 3) << out2;
  EXPECT_EQ(scale, 65536.0 / std::pow(2.0, static_cast<double>(skipped))) << out2;  // growth only after 2000
  auto [rc3, out3] = train("--amp fp32");
  EXPECT_EQ(rc3, 2);
  EXPECT_EQ(out3, "locus-train: --amp must be bf16 or fp16, got 'fp32'; see --help\n");
}

// The last lines end with "memory: ...", which bench/run-train parses: the allocator's peaks over
// the whole run and the process's resident set at start-up, before training and at most. The
// datasets stay the files' bytes (outside the allocator, resident once read); the batched loader
// gathers from them, so the float images (210 MiB for both splits) are never made.
TEST(LocusTrainTool, PrintsPeakMemory) {
  ASSERT_TRUE(have_dataset()) << "dataset-fashion-mnist is not installed; scripts/install-deps installs it";
  auto [rc, out] = train("--device cpu --model mlp --limit 2 --epochs 2 --workers 0");
  ASSERT_EQ(rc, 0) << out;
  size_t at = out.find("\nmemory: allocator peak on cpu ");
  ASSERT_NE(at, std::string::npos) << out;
  double alloc = 0, reserved = 0, start = 0, before = 0, max = 0;
  ASSERT_EQ(std::sscanf(out.c_str() + at + 1,
                        "memory: allocator peak on cpu %lf MiB allocated, %lf MiB reserved (the whole run); process "
                        "resident set %lf MiB at start-up, %lf MiB before training, %lf MiB at most (max RSS)",
                        &alloc, &reserved, &start, &before, &max), 5) << out;
  const double bytes_mib = 70000.0 * 784 / (1 << 20);  // both splits' pixels as read
  const double labels_mib = 70000.0 * 8 / (1 << 20);   // the labels as int64, in the allocator
  EXPECT_GE(alloc, labels_mib) << out;
  EXPECT_LT(alloc, 4 * bytes_mib) << out;  // no float copy of the images
  EXPECT_GE(reserved, alloc) << out;
  EXPECT_GT(start, 0) << out;
  EXPECT_GE(before, start + bytes_mib) << out;  // the bytes are written, so resident
  EXPECT_GE(max, before) << out;
  EXPECT_GE(max, alloc) << out;  // every allocated byte of the peak was written
}

TEST(LocusTrainTool, RejectsBadFlagsPointingToHelp) {
  for (const char* args : {"--model foo", "--epochs 0", "--bogus", "--epochs", "--scheduler step", "--lr -1",
                           "--epochs=0", "--pin-memory=yes"}) {
    auto [rc, out] = train(args);
    EXPECT_EQ(rc, 2) << args << "\n" << out;
    EXPECT_NE(out.find("; see --help\n"), std::string::npos) << args << "\n" << out;
    EXPECT_EQ(out.find("usage: locus-train"), std::string::npos) << args << "\n" << out;  // not the whole text
  }
  auto [rc, out] = train("--model foo");
  EXPECT_EQ(out, "locus-train: --model must be mlp or cnn, got 'foo'; see --help\n");
  auto [rcu, outu] = train("--bogus");
  EXPECT_EQ(outu, "locus-train: unknown argument '--bogus'; see --help\n");
  auto [rcs, outs] = train("--pin-memory=yes");
  EXPECT_EQ(outs, "locus-train: --pin-memory takes no value, got 'yes'; see --help\n");
  auto [rce, oute] = train("--model=foo");  // --flag=value is read as --flag value
  EXPECT_EQ(oute, "locus-train: --model must be mlp or cnn, got 'foo'; see --help\n");
  auto [rcf, outf] = train("--flush-denormal=1");
  EXPECT_EQ(outf, "locus-train: --flush-denormal takes no value, got '1'; see --help\n");
  auto [rch, outh] = train("--help");
  EXPECT_EQ(rch, 0);
  EXPECT_NE(outh.find("--resume FILE"), std::string::npos);
  EXPECT_NE(outh.find("--flush-denormal  denormal floats flushed to zero"), std::string::npos) << outh;
  EXPECT_NE(outh.find("Exit status: 0 trained"), std::string::npos) << outh;
  auto [rcv, outv] = train("--version");
  EXPECT_EQ(rcv, 0);
  EXPECT_EQ(outv, std::string("locus-train ") + LOCUS_VERSION + "\n");
}

// --device is checked before any data is read: a device this machine lacks exits 2 at once, with
// the backend's reason.
TEST(LocusTrainTool, RejectsAMissingDeviceBeforeLoadingData) {
  auto [rc, out] = train("--device opencl:7 --data /nonexistent");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_EQ(out.rfind("locus-train: --device opencl:7: ", 0), 0u) << out;
  EXPECT_NE(out.find("; see --help\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("/nonexistent"), std::string::npos) << out;  // the data folder was never read
  try {
    check_device_available(Device("opencl:7"));
    ADD_FAILURE() << "opencl:7 exists here";
  } catch (const Error& e) {
    std::string reason = e.what();  // quoted whole, less its final '.'
    if (!reason.empty() && reason.back() == '.') reason.pop_back();
    EXPECT_NE(out.find(": " + reason + "; see --help\n"), std::string::npos) << out << "\nreason: " << e.what();
  }
  auto [rc2, out2] = train("--device=cuda:0 --data /nonexistent");
  if (!is_available(kCUDA)) {
    EXPECT_EQ(rc2, 2) << out2;
    EXPECT_EQ(out2.rfind("locus-train: --device cuda:0: ", 0), 0u) << out2;
  }
}

TEST(LocusTrainTool, DevicesRunsDataParallel) {
  // Bad lists are refused before any data is read.
  auto [rc1, out1] = train("--devices opencl:0,opencl:7");
  EXPECT_EQ(rc1, 2) << out1;
  EXPECT_NE(out1.find("--devices: 'opencl:7': "), std::string::npos) << out1;
  auto [rc2, out2] = train("--devices cpu,");
  EXPECT_EQ(rc2, 2) << out2;
  EXPECT_NE(out2.find("--devices: '': "), std::string::npos) << out2;
  auto [rc3, out3] = train("--device cpu --devices cpu,cpu");
  EXPECT_EQ(rc3, 2) << out3;
  EXPECT_NE(out3.find("pass --device or --devices, not both"), std::string::npos) << out3;

  if (device_count(kOpenCL) < 2) GTEST_SKIP() << "needs opencl:0 and opencl:1 (POCL_DEVICES=\"pthread pthread\")";
  ASSERT_TRUE(have_dataset()) << "dataset-fashion-mnist is not installed; scripts/install-deps installs it";
  auto [rc, out] = train("--devices opencl:0,opencl:1 --model mlp --epochs 1 --limit 3 --workers 0");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("devices: opencl:0 opencl:1 (--devices: DataParallel"), std::string::npos) << out;
  EXPECT_NE(out.find("epoch 1/1: train loss"), std::string::npos) << out;
  EXPECT_NE(out.find("summary: mlp on opencl:0"), std::string::npos) << out;
}

}  // namespace locus_train_test
