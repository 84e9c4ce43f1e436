// Saving and loading across devices (tutorial 002): a checkpoint remembers where each tensor was;
// load() puts it back there unless map_location (torch.load's argument) says otherwise, and a
// checkpoint from a device this machine lacks fails until map_location moves it.
//   example_save_load [device]     (default: best_device())
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <unistd.h>

#include <locus/locus.h>

static void check(bool ok, const char* what) {
  if (!ok) {
    std::cerr << "CHECK FAILED: " << what << "\n";
    std::exit(1);
  }
}

static int run(int argc, char** argv) {
  locus::Device device = locus::resolve_device(argc > 1 ? locus::Device(argv[1]) : locus::best_device());
  auto dir = std::filesystem::temp_directory_path() / ("locus_save_load_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "model.safetensors").string();
  std::cout << "device: " << device << "\n";

  // 1. Save a model that lives on the device (torch.save(model.state_dict(), path)).
  locus::manual_seed(0);
  locus::nn::Sequential model(locus::nn::Linear(4, 3), locus::nn::ReLU(), locus::nn::Linear(3, 2));
  model->to(device);
  locus::save(model, path, {{"epoch", "3"}});
  for (const locus::TensorInfo& t : locus::inspect(path).tensors)
    std::cout << "  saved " << t.name << " (" << t.bytes << " bytes) from " << t.saved_location << "\n";

  // 2. Without map_location each tensor goes back where it was saved.
  locus::StateDict back = locus::load(path);
  std::cout << "load(path): 0.weight on " << back["0.weight"].device() << "\n";
  check(back["0.weight"].device() == device, "loaded where it was saved");

  // 3. map_location="cpu": everything on the host, whatever the file says.
  locus::LoadReport report;
  locus::StateDict on_cpu = locus::load(path, "cpu", &report);
  std::cout << "load(path, \"cpu\"):\n" << report.str();
  check(on_cpu["0.weight"].is_cpu() && on_cpu["0.weight"].equal(model->parameters()[0].cpu()), "mapped to cpu");

  // 4. Into a model on another device: load_state_dict copies into the module where it is.
  locus::Device target = locus::device_count(locus::kOpenCL) > 0 ? locus::Device(locus::kOpenCL, 0) : device;
  locus::nn::Sequential fresh(locus::nn::Linear(4, 3), locus::nn::ReLU(), locus::nn::Linear(3, 2));
  fresh->to(target);
  locus::load(fresh, path, target);  // map_location = the module's device: one copy per tensor
  locus::Tensor x = locus::randn({5, 4});
  bool same = fresh->forward(x.to(target)).cpu().allclose(model->forward(x.to(device)).cpu(), 1e-5, 1e-6);
  std::cout << "a model on " << target << " loaded from " << device << " gives the same outputs: " << std::boolalpha
            << same << "\n";
  check(same && locus::nn::device_of(*fresh) == target, "loaded across devices");

  // 5. A checkpoint from a GPU machine (written here by hand: one float tensor saved on cuda:0).
  std::string header = R"({"__metadata__":{"locus.devices":"{\"w\":\"cuda:0\"}"},)"
                       R"("w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  std::string gpu_path = (dir / "from_gpu.safetensors").string();
  {
    std::ofstream f(gpu_path, std::ios::binary);
    uint64_t n = header.size();
    float w[2] = {1.5f, -2.0f};
    f.write(reinterpret_cast<const char*>(&n), 8).write(header.data(), header.size());
    f.write(reinterpret_cast<const char*>(w), sizeof w);
  }
  if (!locus::cuda::is_available()) {
    try {
      locus::load(gpu_path);
      check(false, "a cuda checkpoint loaded on a machine without cuda");
    } catch (const locus::Error& e) {
      std::cout << "load(from_gpu) without map_location: " << e.what() << "\n";
    }
  }
  locus::StateDict mapped = locus::load(gpu_path, {{"cuda:0", device.str()}});  // a mapping, as {'cuda:0': 'cpu'}
  std::cout << "load(from_gpu, {{\"cuda:0\", \"" << device << "\"}}): w = " << mapped["w"].cpu() << " on "
            << mapped["w"].device() << "\n";
  check(mapped["w"].device() == device, "mapped from cuda:0");

  std::filesystem::remove_all(dir);
  std::cout << "save_load: all checks passed\n";
  return 0;
}

// A device that is not here (`example_save_load cuda:0` on a machine without one), a malformed name:
// locus says what and how to fix it in a locus::Error; print it rather than abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const locus::Error& e) {
    std::cerr << "example_save_load: " << e.what() << "\n";
    return 1;
  }
}
